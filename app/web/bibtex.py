"""A reading list as BibTeX (pure): one ``@misc`` entry per paper, arXiv's own fields.

Every value is text, never TeX, and keeps its braces balanced: BibTeX counts braces without
regard to backslashes, so a literal brace is ``{\\textbraceleft}``/``{\\textbraceright}``, never
``\\{``, and no value can close its field early and smuggle in a field or an entry. The other
characters TeX treats as commands are escaped, a command always in braces so that a style's
change of case leaves its name alone. In author names, "and", a comma and the name "others"
are braced too: BibTeX would otherwise read them as a second author, a name's parts or "et
al.". Control characters are dropped. TeX's ligatures stay: a title's ``--`` is an en dash.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.web.view_models import PaperFacts

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


def escape(text: str) -> str:
    """Plain text as TeX that typesets it, on one line."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return _SPECIAL.sub(lambda found: _SPECIALS[found.group()], flat)


def name(text: str) -> str:
    """An author's name as one BibTeX name, written "First von Last"."""
    written = _AND_WORD.sub(lambda word: f"{{{word.group()}}}", escape(text).replace(",", "{,}"))
    return "{others}" if written.lower() == "others" else written


def entry(paper: PaperFacts) -> str:
    fields = {
        "title": escape(paper.title),
        "author": " and ".join(filter(None, map(name, paper.authors))),
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
