"""A reading list as RIS and as CSL-JSON (pure), beside BibTeX (:mod:`app.web.bibtex`).

**RIS** (Research Information Systems, what EndNote, Zotero and Mendeley import) is one
``TAG  - value`` line per field, an entry from ``TY`` to ``ER``. A value is one line: line
breaks and control characters become spaces, so no title can end its line early and smuggle
in a field or an entry. An arXiv paper is ``TY  - UNPB`` (unpublished work) with its id as
``ID`` and the repository as ``PB``.

**CSL-JSON** is the input of citeproc (Zotero, Pandoc): a JSON array of items of the CSL data
schema, ``type`` ``article`` (a preprint), each author as a ``literal`` name, since splitting a
name into given and family names would get many wrong; the announcement day is ``issued``.

A reader's note on a paper travels with it (RIS ``N1``, CSL ``note``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.web.view_models import PaperFacts

_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


@dataclass(frozen=True, slots=True)
class Cited:
    """A paper as an export writes it, with the reader's note on it."""

    paper: PaperFacts
    note: str | None = None


def one_line(text: str) -> str:
    return " ".join(_NOT_ONE_LINE.sub(" ", text).split())


def ris(papers: Iterable[Cited]) -> str:
    """The papers as RIS, one entry each."""
    return "".join(_ris_entry(cited) for cited in papers)


def _ris_entry(cited: Cited) -> str:
    paper = cited.paper
    lines = [("TY", "UNPB"), ("ID", paper.arxiv_id), ("TI", paper.title)]
    lines += [("AU", author) for author in paper.authors if one_line(author)]
    if paper.announced_on:
        lines += [
            ("PY", str(paper.announced_on.year)),
            ("DA", paper.announced_on.strftime("%Y/%m/%d")),
        ]
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
    return json.dumps([_csl_item(cited) for cited in papers], ensure_ascii=False, indent=1)


def _csl_item(cited: Cited) -> dict[str, object]:
    paper = cited.paper
    item: dict[str, object] = {
        "id": paper.arxiv_id,
        "type": "article",
        "title": paper.title,
        "author": [{"literal": author} for author in paper.authors],
        "abstract": paper.abstract,
        "publisher": "arXiv",
        "number": paper.arxiv_id,
        "genre": "Preprint",
        "URL": f"https://arxiv.org/abs/{paper.arxiv_id}",
        "categories": list(paper.categories),
    }
    if paper.announced_on:
        day = paper.announced_on
        item["issued"] = {"date-parts": [[day.year, day.month, day.day]]}
    if paper.doi:
        item["DOI"] = paper.doi
    if cited.note:
        item["note"] = cited.note
    return item
