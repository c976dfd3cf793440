// Progressive enhancements only: every page works without this file.
(function () {
  "use strict";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("paperboy-theme"); } catch (e) { saved = null; }
  if (saved === "dark" || saved === "light") { root.setAttribute("data-theme", saved); }
  function isDark() {
    var t = root.getAttribute("data-theme");
    if (t === "dark") { return true; }
    if (t === "light") { return false; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (button) {
      button.setAttribute("aria-pressed", isDark() ? "true" : "false");
      button.addEventListener("click", function () {
        var next = isDark() ? "light" : "dark";
        root.setAttribute("data-theme", next);
        button.setAttribute("aria-pressed", next === "dark" ? "true" : "false");
        try { localStorage.setItem("paperboy-theme", next); } catch (e) { /* private mode */ }
      });
    }
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  });
})();
