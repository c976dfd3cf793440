// Renders $...$ and \(...\) in elements marked .math (titles and abstracts on every page) with
// the vendored KaTeX. Every page loads this small file; KaTeX itself (its script, renderer and
// stylesheet) is fetched from /static only when a .math element holds a delimiter, so pages
// without maths cost nothing more. Added as elements, never inline code: the strict CSP holds.
// Text stays as written when KaTeX is unavailable or the LaTeX is broken (throwOnError: false);
// trust: false keeps \href, \url and friends from making links. window.paperboyMath(element)
// renders what a script adds later (a comment posted without reloading).
(function () {
  "use strict";
  var DELIMITER = /\$|\\\(|\\\[/;
  var OPTIONS = {
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
  };

  function load(source) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = source;
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }

  function stylesheet(href) {
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.appendChild(link);
  }

  var loaded = null;
  function katex() {
    if (!loaded) {
      stylesheet("/static/katex/katex.min.css");
      loaded = load("/static/katex/katex.min.js")
        .then(function () { return load("/static/katex/auto-render.min.js"); });
    }
    return loaded;
  }

  // The .math elements under root (the page, or a comment a script just put in place).
  function render(root) {
    var elements = Array.prototype.filter.call(root.querySelectorAll(".math"), function (element) {
      return DELIMITER.test(element.textContent);
    });
    if (root.matches && root.matches(".math") && DELIMITER.test(root.textContent)) { elements.push(root); }
    if (elements.length === 0) { return; }
    katex()
      .then(function () {
        elements.forEach(function (element) { renderMathInElement(element, OPTIONS); });
        document.documentElement.dataset.math = "rendered";
      })
      .catch(function () { /* KaTeX missing: the TeX stays readable as text */ });
  }
  window.paperboyMath = render;

  document.addEventListener("DOMContentLoaded", function () { render(document); });
})();
