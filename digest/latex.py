"""LaTeX in titles and abstracts made readable in email (pure).

Mail clients render no maths: inline ``$...$`` loses its dollars, common commands become their
Unicode symbols, ``\\mathbf{x}`` becomes ``x`` and unknown commands lose their backslash.
"""

# ruff: noqa: RUF001 (the Greek letters and symbols below are meant)
from __future__ import annotations

import re

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ",
    "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ",
    "Omega": "Ω", "infty": "∞", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠",
    "approx": "≈", "sim": "~", "times": "×", "cdot": "·", "pm": "±", "to": "→",
    "rightarrow": "→", "leftarrow": "←", "in": "∈", "sum": "∑", "prod": "∏", "sqrt": "√",
    "partial": "∂", "nabla": "∇", "ell": "ℓ", "log": "log", "ldots": "…", "dots": "…",
}  # fmt: skip
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_WRAPPER = re.compile(
    r"\\(?:mathbf|mathrm|mathcal|mathbb|textbf|textit|emph|text|mathit)\{([^{}]*)\}"
)
_MATH = re.compile(r"\$\$?([^$]+)\$\$?")


def readable(text: str) -> str:
    """``text`` with its LaTeX turned into plain Unicode, whitespace collapsed."""
    text = _MATH.sub(lambda match: _math(match.group(1)), text)
    return " ".join(text.split())


def _math(formula: str) -> str:
    formula = _WRAPPER.sub(r"\1", formula)
    formula = _COMMAND.sub(lambda match: SYMBOLS.get(match.group(1), match.group(1)), formula)
    return formula.replace("{", "").replace("}", "").replace("\\", "")
