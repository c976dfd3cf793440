"""A reading list as BibTeX (pure): one ``@misc`` entry per paper, arXiv's own fields.

Every value is text, never TeX: the ten characters TeX treats as commands or grouping are
escaped, so a title such as ``50% of {x} & $y$`` reads back as written, and no value can close
its braces early and smuggle in a field or an entry. Control characters are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.web.views import PaperFacts

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL = re.compile("|".join(re.escape(char) for char in _SPECIALS))
_CONTROL = re.compile("[\x00-\x1f\x7f]+")
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9.:-]")


def escape(text: str) -> str:
    """Plain text as TeX that typesets it, on one line."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return _SPECIAL.sub(lambda found: _SPECIALS[found.group()], flat)


def entry(paper: PaperFacts) -> str:
    fields = {
        "title": escape(paper.title),
        "author": " and ".join(escape(name) for name in paper.authors),
        "year": str(paper.announced_on.year) if paper.announced_on else None,
        "eprint": escape(paper.arxiv_id),
        "archivePrefix": "arXiv",
        "primaryClass": escape(paper.primary_category) if paper.primary_category else None,
        "doi": escape(paper.doi) if paper.doi else None,
        "url": f"https://arxiv.org/abs/{escape(paper.arxiv_id)}",
    }
    lines = [f"  {name} = {{{value}}}," for name, value in fields.items() if value]
    return "\n".join([f"@misc{{{key(paper.arxiv_id)},", *lines, "}"])


def key(arxiv_id: str) -> str:
    """The entry's key: ``arXiv:2512.16698``; an old-style id's slash becomes a dash."""
    return "arXiv:" + _KEY_UNSAFE.sub("-", arxiv_id)


def bibliography(papers: Iterable[PaperFacts]) -> str:
    return "".join(entry(paper) + "\n\n" for paper in papers)
