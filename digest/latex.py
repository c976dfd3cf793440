"""LaTeX in titles and abstracts made readable in email (pure).

Mail clients render no maths: inline ``$...$`` loses its dollars, common commands become their
Unicode symbols (``\\alpha`` "α", ``\\mathbb{R}`` "ℝ", ``n^{2}`` "n²", ``x_i`` "xᵢ",
``\\frac{a}{b}`` "a/b"), ``\\mathbf{x}`` becomes ``x`` and unknown commands lose their
backslash. Outside maths the escapes people type in titles (``\\%``, ``\\&``, ``~``,
``\\emph{...}``) read as what they mean. A lone ``$`` (broken TeX) is left as written.
"""

# ruff: noqa: RUF001, RUF002 (the Greek letters and symbols here are meant)
from __future__ import annotations

import re

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

_ESCAPED_DOLLAR = "\x00"
_MATH = re.compile(r"\$\$?([^$]+)\$\$?")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
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
    text = _MATH.sub(lambda match: _math(match.group(1)), text)
    text = _WRAPPER.sub(r"\1", text)
    for escape, meant in _TEXT_ESCAPES.items():
        text = text.replace(escape, meant)
    return " ".join(text.replace(_ESCAPED_DOLLAR, "$").split())


def _math(formula: str) -> str:
    formula = _SPACING.sub(" ", formula)
    formula = _BLACKBOARD.sub(lambda match: BLACKBOARD.get(match.group(1), match.group(1)), formula)
    for _ in range(3):  # nested wrappers and fractions, innermost first
        formula = _WRAPPER.sub(r"\1", formula)
        formula = _FRACTION.sub(_fraction, formula)
    formula = _COMMAND.sub(lambda match: SYMBOLS.get(match.group(1), match.group(1)), formula)
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
