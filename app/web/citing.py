"""One paper cited: the ``citation_*`` tags of its page, and its "Cite" menu (pure).

**Tags.** Google Scholar's inclusion guidelines read Highwire Press tags in a page's head:
``citation_title`` (required), one ``citation_author`` per author (at least one required;
"Family, Given" or "Given Family", nothing but the name) and ``citation_publication_date``
(required: the date other papers cite, "YYYY/MM/DD", not the day a repository took it in,
which is ``citation_online_date``), with ``citation_pdf_url`` for the full text. arXiv's own
abstract pages carry ``citation_date`` (the first version's day), ``citation_online_date``
(the latest version's), ``citation_arxiv_id`` and ``citation_abstract`` too; Zotero's
connector and Mendeley read the same tags. A tag whose value is unknown is left out, never
guessed. The values are text: the page's autoescaping keeps any markup in them inert.

**The Cite menu.** BibTeX, RIS and CSL-JSON are :mod:`app.web.citations`' writers, the ones the
reading list exports with, so a paper cites the same from its page as from a list. A formatted
reference (APA, IEEE) is citeproc-py's rendering of that CSL-JSON item with the CSL project's
own styles (``csl/``, see its PROVENANCE.md), as plain text (the page escapes it like any
text; citeproc's HTML output would pass a title's markup through unescaped).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON

from app.web.citations import (
    Cited,
    bibtex_entry,
    csl_item,
    first_version_day,
    inverted_name,
    one_line,
    ris,
)
from app.web.view_models import PaperFacts

# The formatted references the menu offers: the style's file in STYLES_DIR, and the name a
# reader knows it by.
STYLES = {"apa": "APA", "ieee": "IEEE"}
STYLES_DIR = Path(__file__).parent / "csl"
_DAY = "%Y/%m/%d"
# citeproc-py keeps state on a parsed style while it renders: one rendering at a time.
_RENDERING = threading.Lock()


@dataclass(frozen=True, slots=True)
class Reference:
    style: str  # a key of STYLES
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class PaperCitation:
    """A paper in every format the Cite menu gives."""

    bibtex: str
    ris: str
    csl_json: str
    references: tuple[Reference, ...]


def cite(paper: PaperFacts) -> PaperCitation:
    return PaperCitation(
        bibtex=bibtex_entry(paper) + "\n",
        ris=ris([Cited(paper)]),
        csl_json=csl_json_item(paper),
        references=tuple(
            Reference(style, name, reference(paper, style)) for style, name in STYLES.items()
        ),
    )


def csl_json_item(paper: PaperFacts) -> str:
    """The paper as CSL-JSON: an array of its one item, as the reading list writes it."""
    return json.dumps([csl_item(Cited(paper))], ensure_ascii=False, indent=1)


def reference(paper: PaperFacts, style: str) -> str:
    """The paper's reference in a style of :data:`STYLES` (``KeyError`` for another)."""
    if style not in STYLES:
        raise KeyError(style)
    item = csl_item(Cited(paper))
    # The CSL schema's categories are for a reader's own sorting; no style prints them, and
    # citeproc-py does not take them.
    item.pop("categories", None)
    return _rendered(json.dumps(item, sort_keys=True), style)


@lru_cache(maxsize=2048)
def _rendered(item_json: str, style: str) -> str:
    # Remembered by the item's text: a popular paper's page renders it once, not per view.
    item = json.loads(item_json)
    with _RENDERING:
        bibliography = CitationStylesBibliography(
            _style(style), CiteProcJSON([item]), formatter.plain
        )
        bibliography.register(Citation([CitationItem(item["id"])]))
        [entry] = bibliography.bibliography()
    # A numeric style numbers its list; one reference alone has no number.
    return one_line(str(entry)).removeprefix("[1]").strip()


@lru_cache(maxsize=len(STYLES))
def _style(name: str) -> CitationStylesStyle:
    return CitationStylesStyle(str(STYLES_DIR / f"{name}.csl"), validate=False)


def citation_tags(paper: PaperFacts) -> list[tuple[str, str]]:
    """The page's ``citation_*`` tags as (name, content) pairs, in arXiv's order."""
    tags = [("citation_title", one_line(paper.title))]
    tags += [("citation_author", one_line(inverted_name(a))) for a in paper.authors]
    if first := first_version_day(paper):
        tags += [
            ("citation_date", first.strftime(_DAY)),
            ("citation_publication_date", first.strftime(_DAY)),
        ]
        latest = paper.updated_at.date() if paper.updated_at else first
        tags.append(("citation_online_date", max(latest, first).strftime(_DAY)))
    tags += [
        ("citation_pdf_url", f"https://arxiv.org/pdf/{paper.arxiv_id}"),
        ("citation_arxiv_id", paper.arxiv_id),
    ]
    if paper.doi:
        tags.append(("citation_doi", one_line(paper.doi)))
    tags.append(("citation_abstract", one_line(paper.abstract)))
    return [(name, value) for name, value in tags if value]
