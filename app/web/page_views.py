"""View models of the site's pages (``templates/pages``; pure).

Each page's template reads the fields of one of these dataclasses, built once by its route.
What a page shows is decided here, not in its template: which cards pass the filters, which
categories and topics the filters offer and in what order, the edition before and after.

A long list is cut into pages of a few dozen (:class:`Pager`), each page a link away: the
trending page shows an edition's first papers and links to the rest, so that its first page
stays light on a phone and every paper is still reachable without JavaScript.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date
from typing import TypeVar
from urllib.parse import urlencode

from markupsafe import Markup

from app.core.models import Edition, RunStatus
from app.core.periods import Period, last_day, span
from app.core.reads import human_label
from app.core.refusals import NotFound
from app.core.wal import StandbyState, described
from app.services.discussion import MAX_BODY, MAX_NAME, Thread, Viewer
from app.services.status import JobStatus, SourceStatus, Status
from app.web.api_shape import page_of as api_page_of
from app.web.citing import PaperCitation
from app.web.view_models import Appearance, AuthorLink, Card, TopicChip

FAILED_RESULTS = frozenset({RunStatus.FAILED, RunStatus.WARNING})
TITLES: dict[Period, str] = {"day": "today", "week": "this week", "month": "this month"}
TAB_TEXTS: dict[Period, str] = {"day": "Daily", "week": "Weekly", "month": "Monthly"}


@dataclass(frozen=True, slots=True)
class Tab:
    """A period's tab: its edition holding the day shown, or its newest one."""

    period: Period
    text: str
    href: str
    current: bool


@dataclass(frozen=True, slots=True)
class TrendingPage:
    """An edition of a period (or none yet), its cards narrowed by the filters."""

    period: Period
    title: str  # "today", "this week", "this month"
    key: date | None
    label: str | None
    edition: Edition | None
    cards: list[Card]
    category: str | None  # the filters chosen
    topic: int | None
    categories: list[str]  # the filters offered: what the edition's cards have
    topics: list[TopicChip]
    previous: date | None  # the neighbouring editions of the period
    next: date | None
    first_date: date | None  # the range of the date picker: every ranked day
    last_date: date | None
    shown_day: date | None  # the picker's value: the edition's newest ranked day
    tabs: list[Tab]
    pager: Pager  # the cards are one page of the filtered edition
    # The edition asked for when none is stored, so the nearest is shown instead (its label).
    missed: str | None = None


def trending_page(
    period: Period,
    edition: Edition | None,
    cards: list[Card],
    dates: Mapping[Period, list[date]],
    category: str | None,
    topic: int | None,
    missed: date | None = None,
    page: int = 1,
) -> TrendingPage:
    """Page ``page`` of ``edition`` (with its ``cards``); ``dates`` are each period's
    editions; ``missed``, the key asked for when no edition of it is stored and ``edition`` is
    the nearest. :class:`NoSuchPageError` past the last page."""
    chosen = None if edition is None else edition.edition_date
    mine, days = dates.get(period, []), dates.get("day", [])
    shown = None if chosen is None else _newest_day(period, chosen, days)
    filters = _filter_query(period, chosen, category, topic)
    listed, pager = page_of(filter_cards(cards, category, topic), page, ("/", filters))
    return TrendingPage(
        period=period,
        title=TITLES[period],
        key=chosen,
        label=None if chosen is None else human_label(period, chosen),
        edition=edition,
        cards=listed,
        category=category,
        topic=topic,
        categories=offered_categories(cards),
        topics=offered_topics(cards),
        previous=max((d for d in mine if chosen and d < chosen), default=None),
        next=min((d for d in mine if chosen and d > chosen), default=None),
        first_date=min(days, default=None),
        last_date=max(days, default=None),
        shown_day=shown,
        tabs=tabs(period, shown, dates),
        pager=pager,
        missed=None if missed is None else human_label(period, missed),
    )


def _filter_query(
    period: Period, key: date | None, category: str | None, topic: int | None
) -> dict[str, str]:
    """The query naming this edition and its filters, as the pager's links keep them."""
    wanted = {"period": period, "date": key.isoformat() if key else None, "category": category}
    named = {name: value for name, value in wanted.items() if value}
    return named | ({"topic": str(topic)} if topic is not None else {})


def nearest_date(dates: list[date], wanted: date) -> date | None:
    """The stored edition date closest to ``wanted`` (the earlier of two as close)."""
    return min(dates, key=lambda day: (abs((day - wanted).days), day), default=None)


def tabs(period: Period, shown: date | None, dates: Mapping[Period, list[date]]) -> list[Tab]:
    """Each period's tab, keeping the day shown (a day's own, a week's or month's newest
    ranked day): its edition of that period where one is stored, else the period's newest."""
    return [
        Tab(
            period=name,
            text=text,
            href=_tab_href(name, shown, dates.get(name, [])),
            current=name == period,
        )
        for name, text in TAB_TEXTS.items()
    ]


def _newest_day(period: Period, key: date, days: list[date]) -> date | None:
    """The newest ranked day of the edition keyed ``key`` (its key when none is ranked)."""
    end = last_day(period, key)
    return max((d for d in days if key <= d <= end), default=key)


def _tab_href(period: Period, day: date | None, stored: list[date]) -> str:
    if day is not None and span(period, day).key in stored:
        return f"/?period={period}&date={day.isoformat()}"
    return f"/?period={period}"


def filter_cards(cards: list[Card], category: str | None, topic: int | None) -> list[Card]:
    return [
        c
        for c in cards
        if (category is None or category in c.paper.categories)
        and (topic is None or (c.topic is not None and c.topic.id == topic))
    ]


def offered_categories(cards: list[Card]) -> list[str]:
    """Every category of the cards once (letter case aside), alphabetically."""
    seen: dict[str, str] = {}
    for card in cards:
        for category in card.paper.categories:
            seen.setdefault(category.lower(), category)
    return sorted(seen.values(), key=str.lower)


def offered_topics(cards: list[Card]) -> list[TopicChip]:
    """Every topic of the cards once, by label."""
    seen: dict[int, TopicChip] = {}
    for card in cards:
        if card.topic is not None:
            seen.setdefault(card.topic.id, card.topic)
    return sorted(seen.values(), key=lambda topic: topic.label.lower())


@dataclass(frozen=True, slots=True)
class PaperPage:
    card: Card
    authors: list[AuthorLink]  # all of them (a card shows the first few)
    similar: list[Card]
    appearances: list[Appearance]
    cite: PaperCitation  # the Cite menu's formats
    citation_tags: list[tuple[str, str]]  # the head's citation_* tags, (name, content)
    discussion: ThreadPart | None = None


@dataclass(frozen=True)
class ThreadPart:
    """A paper's thread as its page shows it to this reader (forms when signed in)."""

    thread: Thread
    viewer: Viewer
    signed_in: bool
    csrf: str = ""
    once: str = ""  # the post form's one-time value: sent twice, it posts once
    said: str = ""  # what the reader's last press did, in words (the status line)
    max_body: int = MAX_BODY
    max_name: int = MAX_NAME


@dataclass(frozen=True, slots=True)
class SearchPage:
    q: str
    since: str
    until: str
    category: str
    cards: list[Card]
    max_length: int
    snippets: dict[str, Markup]  # the abstract's passage with the query's words, by arxiv id
    total: int  # matches on every page
    first: int  # place of the first card among the matches, from 1
    sort: str
    previous_url: str | None
    next_url: str | None
    # The query and filters as the search's feeds take them (``/search/feed.rss?...``).
    feed_query: str = ""
    # The query's words when no paper holds them all: the cards are the closest matches.
    not_all_matched: tuple[str, ...] = ()
    signed_in: bool = False
    followed_search: int | None = None  # the signed-in reader's saved search that is this one


@dataclass(frozen=True, slots=True)
class ErrorPage:
    status: int
    heading: str
    message: str


def error_page(status: int, message: str) -> ErrorPage:
    if status == 404:
        heading = "Not found"
    elif status < 500:
        heading = "Something is wrong with this request"
    else:
        heading = "Server error"
    return ErrorPage(status, heading, message)


@dataclass(frozen=True, slots=True)
class JobRow:
    """A line of the status page's job table."""

    job: JobStatus
    failed: bool  # the last run failed or warned
    next_run: str  # in UTC, or why there is none


@dataclass(frozen=True, slots=True)
class StatusPage:
    status: Status
    overdue_jobs: list[JobStatus]  # never succeeded although due
    troubled_sources: list[SourceStatus]
    jobs: list[JobRow]
    # The read replicas, each with what the last check said (empty: none configured).
    replicas: list[tuple[StandbyState, str]] = field(default_factory=list)


def status_page(
    status: Status, replicas: Sequence[StandbyState] = (), max_lag_seconds: float = 0.0
) -> StatusPage:
    return StatusPage(
        status=status,
        replicas=[(state, described(state, max_lag_seconds)) for state in replicas],
        overdue_jobs=[job for job in status.jobs if job.overdue],
        troubled_sources=[source for source in status.sources if source.troubled],
        jobs=[
            JobRow(job, job.last_result in FAILED_RESULTS, _next_run(job)) for job in status.jobs
        ],
    )


def _next_run(job: JobStatus) -> str:
    if job.off:
        return "off (offline)"
    if job.next_run is None:
        return "-"
    return job.next_run.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


# Pages of a long list.
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
