"""A reading list as RIS, as CSL-JSON and as BibTeX (pure).

**RIS** (Research Information Systems, what EndNote, Zotero and Mendeley import) is one
``TAG  - value`` line per field, an entry from ``TY`` to ``ER``. A value is one line: line
breaks and control characters become spaces, so no title can end its line early and smuggle
in a field or an entry. An arXiv paper is ``TY  - UNPB`` (unpublished work) with its id as
``ID`` and the repository as ``PB``; an author is "Family, Given" where the name has parts
(:func:`app.core.names.name_parts`), else written whole.

**CSL-JSON** is the input of citeproc (Zotero, Pandoc): a JSON array of items of the CSL data
schema, ``type`` ``article`` (a preprint), each author split into ``family`` and ``given``
as arXiv lists them (forenames, then keyname), or a ``literal`` name where it has no such
parts (a collaboration, one word). The day of the first version is ``issued``: the day it was
submitted where known, else the day it was announced, as every format here dates a paper.

A reader's note on a paper travels with it (RIS ``N1``, CSL ``note``).

**BibTeX** is one ``@misc`` entry per paper, arXiv's own fields. Every value is text, never
TeX, and keeps its braces balanced: BibTeX counts braces without regard to backslashes, so a
literal brace is ``{\\textbraceleft}``/``{\\textbraceright}``, never ``\\{``, and no value can
close its field early and smuggle in a field or an entry. The other characters TeX treats as
commands are escaped, a command always in braces so that a style's change of case leaves its
name alone. In author names, "and", a comma and the name "others" are braced too: BibTeX would
otherwise read them as a second author, a name's parts or "et al.". Control characters are
dropped. TeX's ligatures stay: a title's ``--`` is an en dash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from app.core.names import name_parts
from app.web.view_models import PaperFacts

_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


@dataclass(frozen=True, slots=True)
class Cited:
    """A paper as an export writes it, with the reader's note on it."""

    paper: PaperFacts
    note: str | None = None


def one_line(text: str) -> str:
    return " ".join(_NOT_ONE_LINE.sub(" ", text).split())


def first_version_day(paper: PaperFacts) -> date | None:
    """The day a reference dates the paper by: its first version's, as arXiv's own does."""
    if paper.submitted_at is not None:
        return paper.submitted_at.date()
    return paper.announced_on


def inverted_name(author: str) -> str:
    """ "Family, Given" where the name has parts, else the name whole."""
    parts = name_parts(author)
    return author if parts is None else parts.inverted


def csl_name(author: str) -> dict[str, str]:
    parts = name_parts(author)
    if parts is None:
        return {"literal": author}
    written = {"family": parts.family, "given": parts.given}
    return written | {"suffix": parts.suffix} if parts.suffix else written


def ris(papers: Iterable[Cited]) -> str:
    """The papers as RIS, one entry each."""
    return "".join(_ris_entry(cited) for cited in papers)


def _ris_entry(cited: Cited) -> str:
    paper = cited.paper
    lines = [("TY", "UNPB"), ("ID", paper.arxiv_id), ("TI", paper.title)]
    lines += [("AU", inverted_name(author)) for author in paper.authors if one_line(author)]
    if day := first_version_day(paper):
        lines += [("PY", str(day.year)), ("DA", day.strftime("%Y/%m/%d"))]
    lines += [
        ("AB", paper.abstract),
        ("PB", "arXiv"),
        ("UR", f"https://arxiv.org/abs/{paper.arxiv_id}"),
    ]
    lines += [("KW", category) for category in paper.categories]
    if paper.doi:
        lines.append(("DO", paper.doi))
    if cited.note:
        lines.append(("N1", cited.note))
    written = [f"{tag}  - {one_line(value)}" for tag, value in lines]
    return "\n".join([*written, "ER  - ", "", ""])


def csl_json(papers: Iterable[Cited]) -> str:
    """The papers as a CSL-JSON array."""
    return json.dumps([csl_item(cited) for cited in papers], ensure_ascii=False, indent=1)


def csl_item(cited: Cited) -> dict[str, object]:
    paper = cited.paper
    item: dict[str, object] = {
        "id": paper.arxiv_id,
        "type": "article",
        "title": paper.title,
        "author": [csl_name(author) for author in paper.authors],
        "abstract": paper.abstract,
        "publisher": "arXiv",
        "number": paper.arxiv_id,
        "genre": "Preprint",
        "URL": f"https://arxiv.org/abs/{paper.arxiv_id}",
        "categories": list(paper.categories),
    }
    if day := first_version_day(paper):
        item["issued"] = {"date-parts": [[day.year, day.month, day.day]]}
    if paper.doi:
        item["DOI"] = paper.doi
    if cited.note:
        item["note"] = cited.note
    return item


_SPECIALS = {
    "\\": r"{\textbackslash}",
    "{": r"{\textbraceleft}",
    "}": r"{\textbraceright}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"{\textasciitilde}",
    "^": r"{\textasciicircum}",
}
_SPECIAL = re.compile("|".join(re.escape(char) for char in _SPECIALS))
_CONTROL = re.compile("[\x00-\x1f\x7f]+")
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9.:-]")
# BibTeX splits a name list at "and" between spaces, in any case.
_AND_WORD = re.compile(r"(?<!\S)and(?!\S)", re.IGNORECASE)


def bibtex_value(text: str) -> str:
    """Plain text as TeX that typesets it, on one line."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return _SPECIAL.sub(lambda found: _SPECIALS[found.group()], flat)


def bibtex_name(text: str) -> str:
    """An author's name as one BibTeX name, written "First von Last"."""
    written = _AND_WORD.sub(
        lambda word: f"{{{word.group()}}}", bibtex_value(text).replace(",", "{,}")
    )
    return "{others}" if written.lower() == "others" else written


def bibtex_entry(paper: PaperFacts) -> str:
    day = first_version_day(paper)
    fields = {
        "title": bibtex_value(paper.title),
        "author": " and ".join(filter(None, map(bibtex_name, paper.authors))),
        "year": str(day.year) if day else None,
        "eprint": bibtex_value(paper.arxiv_id),
        "archivePrefix": "arXiv",
        "primaryClass": bibtex_value(paper.primary_category) if paper.primary_category else None,
        "doi": bibtex_value(paper.doi) if paper.doi else None,
        "url": f"https://arxiv.org/abs/{bibtex_value(paper.arxiv_id)}",
    }
    lines = [f"  {name} = {{{value}}}," for name, value in fields.items() if value]
    return "\n".join([f"@misc{{{bibtex_key(paper.arxiv_id)},", *lines, "}"])


def bibtex_key(arxiv_id: str) -> str:
    """The entry's key: ``arXiv:2512.16698``; an old-style id's slash becomes a dash."""
    return "arXiv:" + _KEY_UNSAFE.sub("-", arxiv_id)


def bibliography(papers: Iterable[PaperFacts]) -> str:
    return "".join(bibtex_entry(paper) + "\n\n" for paper in papers)
