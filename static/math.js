// Renders $...$ and \(...\) in elements marked .math with the vendored KaTeX.
// Text stays as written when KaTeX is unavailable or the LaTeX is broken (throwOnError: false);
// trust: false keeps \href, \url and friends from making links.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    if (typeof renderMathInElement !== "function") { return; }
    document.querySelectorAll(".math").forEach(function (element) {
      renderMathInElement(element, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "$", right: "$", display: false },
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false,
        trust: false,
        strict: "ignore",
        maxSize: 20,
        maxExpand: 200
      });
    });
  });
})();
