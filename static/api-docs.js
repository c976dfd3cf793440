// Starts Swagger UI on /api/docs: an external script, so the page keeps the strict
// Content-Security-Policy (no inline script). The OpenAPI URL is the page's data-openapi.
(function () {
  "use strict";
  window.addEventListener("DOMContentLoaded", function () {
    var holder = document.getElementById("swagger-ui");
    window.ui = SwaggerUIBundle({
      url: holder.getAttribute("data-openapi"),
      dom_id: "#swagger-ui",
      layout: "BaseLayout",
      // Deep links put a link inside each operation's toggle button (axe: nested-interactive).
      deepLinking: false,
      showExtensions: true,
      showCommonExtensions: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
    });
  });
})();
