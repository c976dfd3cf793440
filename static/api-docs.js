// Starts Swagger UI on /api/docs: an external script, so the page keeps the strict
// Content-Security-Policy (no inline script). The OpenAPI URL is the page's data-openapi.
(function () {
  "use strict";
  // Swagger UI's info block opens with a second <h1>, and its operation groups are <h3>s: the
  // jump fails axe's heading-order. The page's own header says what the block said (the title
  // and summary) and puts an <h2> above the operations, so the block is left out.
  function withoutInfo() {
    var nothing = function () { return null; };
    return { components: { info: nothing, InfoContainer: nothing } };
  }
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
      plugins: [withoutInfo],
    });
  });
})();
