"""A long list cut into pages of a few dozen, each page a link away (pure).

The trending page shows an edition's first papers and links to the rest, so that its first
page stays light on a phone and every paper is still reachable without JavaScript.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlencode

from app.core.refusals import NotFound
from app.web.api_shape import page_of as api_page_of

T = TypeVar("T")
PAPERS_PER_PAGE = 30


class NoSuchPageError(NotFound, ValueError):
    """A page number past the list's last page."""


@dataclass(frozen=True, slots=True)
class Pager:
    """Where a page sits in its list: positions counted from 1, links to its neighbours."""

    page: int
    pages: int
    total: int
    first: int  # the position of the page's first item (0 when the list is empty)
    last: int
    previous_href: str | None
    next_href: str | None
    previous_text: str  # "Papers 1 to 30" (an en dash): where the link to the page before leads
    next_text: str


def page_of(
    items: Sequence[T],
    page: int,
    link: tuple[str, Mapping[str, str]],
    per_page: int = PAPERS_PER_PAGE,
) -> tuple[list[T], Pager]:
    """The items of ``page`` (from 1) and its pager, whose links are ``link``'s path and query
    (the filters) with the page number; :class:`NoSuchPageError` past the last page (an empty
    list has one, empty, page)."""
    pages = max(1, -(-len(items) // per_page))
    if page > pages:
        raise NoSuchPageError(f"page {page} does not exist: this list has {pages}")
    start = (page - 1) * per_page
    shown = list(api_page_of(list(items), page - 1, per_page))
    pager = Pager(
        page=page,
        pages=pages,
        total=len(items),
        first=start + 1 if shown else 0,
        last=start + len(shown),
        previous_href=_href(link, page - 1) if page > 1 else None,
        next_href=_href(link, page + 1) if page < pages else None,
        previous_text=_span(start - per_page, start, len(items)),
        next_text=_span(start + per_page, start + 2 * per_page, len(items)),
    )
    return shown, pager


def _span(start: int, end: int, total: int) -> str:
    return f"Papers {start + 1}\N{EN DASH}{min(end, total)}"


def _href(link: tuple[str, Mapping[str, str]], page: int) -> str:
    path, query = link
    wanted = {**query, "page": str(page)} if page > 1 else dict(query)
    return f"{path}?{urlencode(wanted)}" if wanted else path
