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
    // A vote toggles in place; a reader who is not signed in goes to the sign-in page.
    document.querySelectorAll("a[data-vote]").forEach(function (control) {
      control.addEventListener("click", function (event) {
        event.preventDefault();
        var voted = control.getAttribute("aria-pressed") === "true";
        fetch("/votes/" + control.getAttribute("data-vote"), {
          method: voted ? "DELETE" : "POST", credentials: "same-origin"
        }).then(function (response) {
          if (response.status === 401) { window.location.href = control.href; return null; }
          return response.ok ? response.json() : null;
        }).then(function (result) {
          if (!result) { return; }
          control.querySelector(".vote-count").textContent = String(result.votes);
          control.setAttribute("aria-pressed", result.voted ? "true" : "false");
        });
      });
    });
  });
})();
