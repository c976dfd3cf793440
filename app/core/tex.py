"""TeX in arXiv's metadata, read three ways: author names, plain text and HTML (pure).

arXiv keeps titles, abstracts and author lines as their submitters typed them, in LaTeX.

**Names** (:func:`decode_tex_accents`): TeX accents decoded to Unicode, so ``P\\'erez`` is
"Pérez" both shown and keyed (raw, it would key as ``p-erez``, another author). People type
``Bal\\'azs``, ``{\\O}bro``, ``\\v{S}r\\'amek``, ``Garc\\'{\\i}a``. The rules are those of TeX
for the forms people type in names:

* An accent command puts its accent on the next letter, bare or braced: ``\\'e``, ``\\'{e}``,
  ``{\\'e}``; a letter command (``\\c``, ``\\v``, ``\\u``, ``\\H``, ``\\k``, ``\\r``, ``\\d``,
  ``\\b``) is followed by a braced letter or a space and the letter: ``\\v{s}``, ``\\v s``. The
  letter may be a dotless ``\\i`` or ``\\j`` (``\\'\\i`` is "í") or already accented
  (``Nguy\\~ên`` is "Nguyễn").
* A letter command (``\\o``, ``\\ss``, ``\\aa``, ``\\l``, ``\\ae``, ``\\i``, ...) is its
  letter, bare or braced (``{\\o}``, ``\\o{}``). TeX eats the space after it; here only before a
  lower-case letter (``S\\o ren`` is "Søren"), because a name written ``Mart\\'\\i Vidal`` means
  two words.
* Braces around plain text only group, and go once the commands inside are decoded:
  ``{\\'A}lvarez`` is "Álvarez", ``{van der} Berg`` is "van der Berg".
* A doubled backslash before a command is one (arXiv's feeds escape it: ``P\\\\'erez``).
* Anything else (an unknown command, a stray backslash) is left as written.

The result is in NFC, so a decoded name equals the same name typed in Unicode.

**Plain text** (:func:`readable`, for mail, feeds and previews): clients render no maths, so
inline ``$...$`` loses its dollars, common commands become their Unicode symbols (``\\alpha``
"α", ``\\mathbb{R}`` "ℝ", ``n^{2}`` "n²", ``x_i`` "xᵢ", ``\\frac{a}{b}`` "a/b"),
``\\mathbf{x}`` becomes ``x`` and unknown commands lose their backslash. Outside maths the
escapes people type in titles (``\\%``, ``\\&``, ``~``, ``\\emph{...}``) read as what they
mean. A lone ``$`` (broken TeX) is left as written.

**HTML** (:func:`tex_text`, for pages): maths (``$...$``, ``\\(...\\)``, ``\\[...\\]``) is
left as written for KaTeX to render in the browser (``static/math.js``); outside it, text
commands ("\\textbf{LoopBench}", "\\emph{not}") and escapes ("Q\\&A"), which KaTeX never
sees, become the HTML they mean, everything else escaped, so a hostile title stays text.
"""

# ruff: noqa: RUF001, RUF002 (the Greek letters and symbols here are meant)
from __future__ import annotations

import re
import unicodedata

from markupsafe import Markup, escape

# Names: accents and letter commands to Unicode.

# Accent commands and the combining mark each puts on its letter.
_MARKS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
# Letters TeX names with a command.
_LETTERS = {
    "o": "ø",
    "O": "Ø",
    "ss": "ß",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "i": "\u0131",
    "j": "\u0237",
}
# Under an accent, a dotless letter is the plain one: \\'\\i is "í", as \\'i is.
_DOTLESS = {"i": "i", "j": "j"}

_LETTER = r"[^\W\d_]"
# TeX eats the space after a command word; here only before a lower-case letter (module's rules).
_COMMAND_END = r"(?:\{\}| (?=[a-z]))?"


def _base(tag: str) -> str:
    """The accented letter: a letter, or a dotless \\i or \\j, which ends as a letter command
    does (:data:`_LETTER_COMMAND`)."""
    return rf"(?:(?P<{tag}letter>{_LETTER})|\\+(?P<{tag}dotless>[ij])(?![A-Za-z]){_COMMAND_END})"


# Braces around the whole ("{\'e}") are left to _PLAIN_GROUP, which drops them with the others.
_ACCENT = re.compile(
    r"\\+(?:(?P<symbol>['`^\"~=.])|(?P<command>[cvuHkrdb])(?![A-Za-z])\s*)"
    rf"(?:\{{\s*{_base('braced_')}\s*\}}|{_base('bare_')})"
)
_LETTER_COMMAND = re.compile(
    r"\\+(?P<name>"
    + "|".join(sorted(_LETTERS, key=len, reverse=True))
    + r")(?![A-Za-z])"
    + _COMMAND_END
)
# A group of plain text, and the unknown command it may be the argument of (then it stays).
_PLAIN_GROUP = re.compile(r"(\\[A-Za-z]+)?\{([^{}\\]*)\}")


def decode_tex_accents(text: str) -> str:
    """``text`` with its TeX accents and letters in Unicode (see the module's rules for names)."""
    if "\\" not in text and "{" not in text:  # nearly every name: nothing to decode
        return text
    decoded = _LETTER_COMMAND.sub(_letter, _ACCENT.sub(_accented, text))
    while True:  # innermost groups first: "{{\\o}}" is "ø"
        ungrouped = _PLAIN_GROUP.sub(_ungrouped, decoded)
        if ungrouped == decoded:
            return unicodedata.normalize("NFC", decoded)
        decoded = ungrouped


def _accented(match: re.Match[str]) -> str:
    mark = _MARKS[match["symbol"] or match["command"]]
    letter = match["braced_letter"] or match["bare_letter"]
    if letter is None:
        letter = _DOTLESS[match["braced_dotless"] or match["bare_dotless"]]
    return unicodedata.normalize("NFC", letter + mark)


def _ungrouped(match: re.Match[str]) -> str:
    return match[0] if match[1] else match[2]


def _letter(match: re.Match[str]) -> str:
    return _LETTERS[match["name"]]


# Plain text: mail, feeds and previews.

SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
    "infty": "∞",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "sim": "∼",
    "simeq": "≃",
    "equiv": "≡",
    "propto": "∝",
    "ll": "≪",
    "gg": "≫",
    "times": "×",
    "cdot": "·",
    "pm": "±",
    "mp": "∓",
    "ast": "∗",
    "circ": "∘",
    "star": "⋆",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "leftrightarrow": "↔",
    "mapsto": "↦",
    "in": "∈",
    "notin": "∉",
    "subset": "⊂",
    "subseteq": "⊆",
    "cup": "∪",
    "cap": "∩",
    "forall": "∀",
    "exists": "∃",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "sqrt": "√",
    "partial": "∂",
    "nabla": "∇",
    "ell": "ℓ",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "log": "log",
    "exp": "exp",
    "max": "max",
    "min": "min",
    "top": "⊤",
    "dagger": "†",
    "prime": "′",
    "mid": "|",
    "left": "",
    "right": "",
    "quad": " ",
    "qquad": " ",
}
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
_SUPERSCRIPT = str.maketrans("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ")
_SUBSCRIPT = str.maketrans("0123456789+-=()aeoxhklmnpstijruv", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ")
_SCRIPTABLE = {"^": set("0123456789+-=()ni"), "_": set("0123456789+-=()aeoxhklmnpstijruv")}

# An escaped dollar ("\$5") is a dollar sign, never the edge of maths.
_ESCAPED_DOLLAR = "\x00"
_PLAIN_MATH = re.compile(r"\$\$?([^$]+)\$\$?")
_PLAIN_COMMAND = re.compile(r"\\([A-Za-z]+)")
_SPACING = re.compile(r"\\[,;:! ]")
_BLACKBOARD = re.compile(r"\\mathbb\s*\{?([A-Z])\}?")
_FRACTION = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_WRAPPER = re.compile(
    r"\\(?:mathbf|mathrm|mathcal|mathsf|mathtt|mathit|boldsymbol|bm|operatorname|textbf|textit"
    r"|textrm|texttt|textsc|textsf|emph|text|hat|tilde|bar|vec|widehat|widetilde)\{([^{}]*)\}"
)
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|([A-Za-z0-9]))")
_TEXT_ESCAPES = {"\\%": "%", "\\&": "&", "\\_": "_", "\\#": "#", "~": " ", "---": "—", "--": "–"}


def readable(text: str) -> str:
    """``text`` with its LaTeX turned into plain Unicode, whitespace collapsed."""
    text = text.replace("\\$", _ESCAPED_DOLLAR)
    text = _PLAIN_MATH.sub(lambda match: _plain_math(match.group(1)), text)
    text = _WRAPPER.sub(r"\1", text)
    for escape_sequence, meant in _TEXT_ESCAPES.items():
        text = text.replace(escape_sequence, meant)
    return " ".join(text.replace(_ESCAPED_DOLLAR, "$").split())


def _plain_math(formula: str) -> str:
    formula = _SPACING.sub(" ", formula)
    formula = _BLACKBOARD.sub(lambda match: BLACKBOARD.get(match.group(1), match.group(1)), formula)
    for _ in range(3):  # nested wrappers and fractions, innermost first
        formula = _WRAPPER.sub(r"\1", formula)
        formula = _FRACTION.sub(_fraction, formula)
    formula = _PLAIN_COMMAND.sub(lambda match: SYMBOLS.get(match.group(1), match.group(1)), formula)
    formula = _SCRIPT.sub(_script, formula)
    return formula.replace("{", "").replace("}", "").replace("\\", "")


def _fraction(match: re.Match[str]) -> str:
    top, bottom = match.group(1), match.group(2)
    return f"{_grouped(top)}/{_grouped(bottom)}"


def _grouped(part: str) -> str:
    return f"({part})" if re.search(r"[\s+\-]", part.strip()) else part.strip()


def _script(match: re.Match[str]) -> str:
    """``^{2}`` as "²" and ``_i`` as "ᵢ" when Unicode has every character; else ``^2``."""
    mark, body = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    if body and set(body) <= _SCRIPTABLE[mark]:
        return body.translate(_SUPERSCRIPT if mark == "^" else _SUBSCRIPT)
    return f"{mark}{body}" if len(body) <= 1 else f"{mark}({body})"


# HTML: pages, with maths left for KaTeX.

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
_HTML_COMMAND = re.compile(r"\\(" + "|".join(_ELEMENTS) + r")\s*\{([^{}$]*)\}")
# A span of maths is bounded, so an unclosed "\(" costs a bounded look ahead, not the whole text.
_HTML_MATH = re.compile(
    r"\$\$.{1,2000}?\$\$|\$[^$]{1,2000}\$|\\\(.{1,2000}?\\\)|\\\[.{1,2000}?\\\]", re.DOTALL
)
# Dashes stay as written: a page shows the abstract's own characters but for TeX's markup.
_HTML_ESCAPES = {"\\&": "&", "\\%": "%", "\\_": "_", "\\#": "#"}
# A command inside another ("\textbf{\emph{x}}") is read from the inside out, this deep.
_NESTING = 3


def tex_text(text: str | None) -> Markup:
    """``text`` escaped, with its text commands outside maths as HTML elements."""
    if not text:
        return Markup("")
    text = text.replace("\\$", _ESCAPED_DOLLAR)
    parts: list[Markup] = []
    last = 0
    for math in _HTML_MATH.finditer(text):
        parts.append(_outside_math(text[last : math.start()]))
        parts.append(escape(math.group(0)))
        last = math.end()
    parts.append(_outside_math(text[last:]))
    return Markup("").join(parts).replace(_ESCAPED_DOLLAR, "$")


def _outside_math(segment: str) -> Markup:
    html = str(escape(_unescaped(segment)))
    for _ in range(_NESTING):
        html, found = _HTML_COMMAND.subn(_element, html)
        if not found:
            break
    # Built from escaped text and the fixed elements above only.
    return Markup(html)  # noqa: S704


def _unescaped(segment: str) -> str:
    for escape_sequence, meant in _HTML_ESCAPES.items():
        segment = segment.replace(escape_sequence, meant)
    return segment


def _element(command: re.Match[str]) -> str:
    # The braces' content is already escaped HTML (or an element made on an earlier pass).
    name, inner = command.group(1), command.group(2)
    element = _ELEMENTS[name]
    return inner if element is None else f"<{element}>{inner}</{element}>"
