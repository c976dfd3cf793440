// Preselects the reader's own time zone on the subscribe form, as the browser reports it.
// Only while the reader has not chosen one: the select must be marked data-guess-zone by the
// server (a blank form) and still show the zone the server selected (not one the browser
// restored on going back). Without this script the server's default (UTC) stays selected.
(function () {
  "use strict";
  function browserZone() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  function preselect() {
    var select = document.querySelector("select[data-guess-zone]");
    if (!select || select.selectedIndex < 0 || !select.options[select.selectedIndex].defaultSelected) {
      return;
    }
    var zone = browserZone();
    for (var i = 0; i < select.options.length; i += 1) {
      if (select.options[i].value === zone) { select.selectedIndex = i; return; }
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", preselect);
  } else {
    preselect();
  }
})();
