"""The reading list's BibTeX: arXiv's fields, and every value text, never TeX.

Each export is read back by pybtex (a BibTeX parser, strict: it raises on a syntax error) and
every value is decoded as TeX would set it, by the small reader below, which refuses anything
that is not plain text: a raw special character, an unknown command, an unbalanced brace.
"""

from __future__ import annotations

import re
from datetime import date

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pybtex.database import BibliographyData, Entry, Person, parse_string

from app.web.citations import bibliography, bibtex_key, bibtex_value
from app.web.view_models import PaperFacts

# What LaTeX sets for each command an export may hold (the kernel's text symbols).
TEXT_SYMBOLS = {
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
}
# Characters TeX does not set as themselves in text: escaped or refused.
TEX_ACTIVE = frozenset("$&%#_^~")
ESCAPABLE = frozenset("$&%#_{}")
FIELDS = ("title", "year", "eprint", "archivePrefix", "primaryClass", "doi", "url")


def _paper(
    arxiv_id: str, title: str, authors: tuple[str, ...], doi: str | None = None
) -> PaperFacts:
    return PaperFacts(
        arxiv_id=arxiv_id,
        title=title,
        abstract="An abstract.",
        authors=authors,
        categories=("cs.LG",),
        primary_category="cs.LG",
        comment=None,
        announced_on=date(2025, 12, 19),
        version=1,
        doi=doi,
    )


def tex_text(value: str) -> str:
    """The text TeX sets for ``value``; AssertionError for anything that is not plain text."""
    out: list[str] = []
    depth, at = 0, 0
    while at < len(value):
        char = value[at]
        if char == "\\":
            command = re.match(r"[A-Za-z]+|.", value[at + 1 :], re.DOTALL)
            assert command, f"a lone backslash ends {value!r}"
            name = command.group()
            at += 1 + len(name)
            if name.isalpha():
                assert name in TEXT_SYMBOLS, f"unknown command \\{name} in {value!r}"
                out.append(TEXT_SYMBOLS[name])
                while at < len(value) and value[at] == " ":  # TeX skips them after a word
                    at += 1
            else:
                assert name in ESCAPABLE, f"\\{name} is not a character in {value!r}"
                out.append(name)
            continue
        assert char not in TEX_ACTIVE, f"raw {char!r} in {value!r}"
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, f"a brace closes what it did not open in {value!r}"
        if char not in "{}":
            out.append(char)
        at += 1
    assert depth == 0, f"a brace left open in {value!r}"
    return "".join(out)


def plain(text: str) -> str:
    """What an export keeps of a text: one line, control characters as spaces."""
    return " ".join(re.sub("[\x00-\x1f\x7f]", " ", text).split())


def name_text(person: Person) -> str:
    # Written "First von Last" (no comma at brace level 0), so the parts keep their order.
    parts = [*person.first_names, *person.middle_names, *person.prelast_names, *person.last_names]
    return tex_text(" ".join([*parts, *person.lineage_names]))


def read_back(text: str) -> BibliographyData:
    return parse_string(text, "bibtex")


def assert_reads_back(papers: list[PaperFacts], text: str) -> None:
    data = read_back(text)
    assert list(data.entries) == [bibtex_key(paper.arxiv_id) for paper in papers]
    for paper, entry in zip(papers, data.entries.values(), strict=True):
        assert_entry_holds(paper, entry)


def assert_entry_holds(paper: PaperFacts, entry: Entry) -> None:
    expected = {
        "title": plain(paper.title),
        "year": "2025",
        "eprint": paper.arxiv_id,
        "archivePrefix": "arXiv",
        "primaryClass": "cs.LG",
        "url": f"https://arxiv.org/abs/{paper.arxiv_id}",
    }
    if paper.doi:
        expected["doi"] = plain(paper.doi)
    assert {name: tex_text(value) for name, value in entry.fields.items()} == expected
    names = [plain(name) for name in paper.authors if plain(name)]
    assert [name_text(person) for person in entry.persons.get("author", [])] == names


def test_each_tex_special_is_escaped_and_lines_are_joined() -> None:
    assert bibtex_value("50% of {x} & $y$ #1 a_b ~c ^d \\e\nnext") == (
        r"50\% of {\textbraceleft}x{\textbraceright} \& \$y\$ \#1 a\_b {\textasciitilde}c "
        r"{\textasciicircum}d {\textbackslash}e next"
    )


def test_a_title_cannot_close_its_braces_or_add_a_field() -> None:
    hostile = _paper("2512.99901", "}, note = {owned", ("A } and B",))
    text = bibliography([hostile])
    assert text == (
        "@misc{arXiv:2512.99901,\n"
        "  title = {{\\textbraceright}, note = {\\textbraceleft}owned},\n"
        "  author = {A {\\textbraceright} {and} B},\n"
        "  year = {2025},\n"
        "  eprint = {2512.99901},\n"
        "  archivePrefix = {arXiv},\n"
        "  primaryClass = {cs.LG},\n"
        "  url = {https://arxiv.org/abs/2512.99901},\n"
        "}\n\n"
    )
    assert_reads_back([hostile], text)


def test_a_title_with_one_closing_brace_keeps_the_entrys_own_fields_and_authors() -> None:
    # Escaped as "\}", the brace still closed the title for BibTeX: the entry got a note
    # and lost its author.
    hostile = _paper("2512.99902", "}, note = 2", ("Ada Lovelace",))
    entry = read_back(bibliography([hostile])).entries["arXiv:2512.99902"]
    assert "note" not in entry.fields
    assert [str(person) for person in entry.persons["author"]] == ["Lovelace, Ada"]
    assert_entry_holds(hostile, entry)


def test_a_title_with_an_unbalanced_brace_leaves_the_readers_file_readable() -> None:
    papers = [
        _paper("2512.99903", "a } b", ("Ada Lovelace",)),
        _paper("2512.99904", "c { d", ("Alan Turing",)),
        _paper("2512.99905", "Plain", ("Grace Hopper",)),
    ]
    assert_reads_back(papers, bibliography(papers))


def test_a_name_holding_and_or_commas_stays_one_author() -> None:
    papers = [_paper("2512.99906", "T", ("Smith and Jones", "Lovelace, Ada, Jr, x, y", "others"))]
    data = read_back(bibliography(papers))
    assert len(data.entries["arXiv:2512.99906"].persons["author"]) == 3
    assert_reads_back(papers, bibliography(papers))


def test_authors_are_joined_with_and_and_old_style_ids_make_safe_keys() -> None:
    old = _paper("hep-th/9901001", "Strings", ("Ada Lovelace", "Alan Turing"))
    assert "  author = {Ada Lovelace and Alan Turing}," in bibliography([old])
    assert bibtex_key("hep-th/9901001") == "arXiv:hep-th-9901001"


# Text heavy in what BibTeX and TeX treat specially, words BibTeX reads in names included.
PIECES = [*"{}\\$&%#_~^\"@,=()' \t\n\x00\x7f", " and ", "AND", "others", "--", "\\{"]
TRICKY = st.lists(st.sampled_from(PIECES) | st.characters(codec="utf-8"), max_size=20).map("".join)
SOME_TEXT = TRICKY.filter(lambda text: plain(text) != "")
PAPERS = st.lists(
    st.builds(
        _paper,
        arxiv_id=st.integers(10000, 99999).map(lambda n: f"2512.{n}"),
        title=SOME_TEXT,
        authors=st.lists(TRICKY, min_size=1, max_size=4)
        .filter(lambda names: any(plain(name) for name in names))
        .map(tuple),
        doi=st.none() | SOME_TEXT,
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda paper: paper.arxiv_id,
)


# No deadline: what is checked is the text read back, and a loaded machine's first example
# (the parser warming up) can take longer than hypothesis's default.
@settings(deadline=None)
@given(PAPERS)
@example([_paper("2512.99907", "}, note = 2", ("Ada Lovelace",))])
@example([_paper("2512.99908", "{", ("}",), doi="10.1000/a_b#c{")])
def test_any_reading_list_reads_back_as_written(papers: list[PaperFacts]) -> None:
    assert_reads_back(papers, bibliography(papers))
