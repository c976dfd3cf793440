"""The reading list's BibTeX: arXiv's fields, and every value text, never TeX."""

from __future__ import annotations

from datetime import date

from app.web.bibtex import bibliography, escape, key
from app.web.views import PaperFacts


def _paper(arxiv_id: str, title: str, authors: tuple[str, ...]) -> PaperFacts:
    return PaperFacts(
        arxiv_id, title, "An abstract.", authors, ("cs.LG",), "cs.LG", None, date(2025, 12, 19), 1
    )


def test_each_tex_special_is_escaped_and_lines_are_joined() -> None:
    assert escape("50% of {x} & $y$ #1 a_b ~c ^d \\e\nnext") == (
        r"50\% of \{x\} \& \$y\$ \#1 a\_b \textasciitilde{}c \textasciicircum{}d "
        r"\textbackslash{}e next"
    )


def test_a_title_cannot_close_its_braces_or_add_a_field() -> None:
    hostile = _paper("2512.99901", "}, note = {owned", ("A } and B",))
    text = bibliography([hostile])
    assert text == (
        "@misc{arXiv:2512.99901,\n"
        "  title = {\\}, note = \\{owned},\n"
        "  author = {A \\} and B},\n"
        "  year = {2025},\n"
        "  eprint = {2512.99901},\n"
        "  archivePrefix = {arXiv},\n"
        "  primaryClass = {cs.LG},\n"
        "  url = {https://arxiv.org/abs/2512.99901},\n"
        "}\n\n"
    )


def test_authors_are_joined_with_and_and_old_style_ids_make_safe_keys() -> None:
    old = _paper("hep-th/9901001", "Strings", ("Ada Lovelace", "Alan Turing"))
    assert "  author = {Ada Lovelace and Alan Turing}," in bibliography([old])
    assert key("hep-th/9901001") == "arXiv:hep-th-9901001"
