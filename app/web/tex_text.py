"""TeX text commands in titles and abstracts, as HTML (pure).

arXiv metadata is written in LaTeX. Maths (``$...$``, ``\\(...\\)``, ``\\[...\\]``) is left as
written for KaTeX to render in the browser (``static/math.js``); outside it, authors also use
text commands ("\\textbf{LoopBench}", "\\emph{not}") and escapes ("Q\\&A"), which KaTeX never
sees. Those become the HTML they mean here, everything else escaped, so a hostile title stays
text. Mail and feeds take the plain text instead (``digest.latex.readable``).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# Each text command and the element it becomes; None: the text alone.
_ELEMENTS = {
    "textbf": "strong",
    "textit": "em",
    "emph": "em",
    "textsl": "em",
    "texttt": "code",
    "underline": "u",
    "textsc": None,
    "textrm": None,
    "textsf": None,
    "textup": None,
    "textnormal": None,
}
_COMMAND = re.compile(r"\\(" + "|".join(_ELEMENTS) + r")\s*\{([^{}$]*)\}")
# A span of maths is bounded, so an unclosed "\(" costs a bounded look ahead, not the whole text.
_MATH = re.compile(
    r"\$\$.{1,2000}?\$\$|\$[^$]{1,2000}\$|\\\(.{1,2000}?\\\)|\\\[.{1,2000}?\\\]", re.DOTALL
)
# An escaped dollar ("\$5") is a dollar sign, never the edge of maths.
_ESCAPED_DOLLAR = "\x00"
# Dashes stay as written: a page shows the abstract's own characters but for TeX's markup.
_ESCAPES = {"\\&": "&", "\\%": "%", "\\_": "_", "\\#": "#"}
# A command inside another ("\textbf{\emph{x}}") is read from the inside out, this deep.
_NESTING = 3


def tex_text(text: str | None) -> Markup:
    """``text`` escaped, with its text commands outside maths as HTML elements."""
    if not text:
        return Markup("")
    text = text.replace("\\$", _ESCAPED_DOLLAR)
    parts: list[Markup] = []
    last = 0
    for math in _MATH.finditer(text):
        parts.append(_outside_math(text[last : math.start()]))
        parts.append(escape(math.group(0)))
        last = math.end()
    parts.append(_outside_math(text[last:]))
    return Markup("").join(parts).replace(_ESCAPED_DOLLAR, "$")


def _outside_math(segment: str) -> Markup:
    html = str(escape(_unescaped(segment)))
    for _ in range(_NESTING):
        html, found = _COMMAND.subn(_element, html)
        if not found:
            break
    # Built from escaped text and the fixed elements above only.
    return Markup(html)  # noqa: S704


def _unescaped(segment: str) -> str:
    for escape_sequence, meant in _ESCAPES.items():
        segment = segment.replace(escape_sequence, meant)
    return segment


def _element(command: re.Match[str]) -> str:
    # The braces' content is already escaped HTML (or an element made on an earlier pass).
    name, inner = command.group(1), command.group(2)
    element = _ELEMENTS[name]
    return inner if element is None else f"<{element}>{inner}</{element}>"
