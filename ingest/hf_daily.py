"""Hugging Face Daily Papers (``huggingface.co/api/daily_papers?date=YYYY-MM-DD``).

The community signals of each paper on a day's page — upvotes, comments and the discussion
they are in, GitHub repository and stars, project page, ``ai_keywords``, ``ai_summary``, who
submitted it to the page, when, and under which HF organization, and the address of its
thumbnail (fetched by :mod:`ingest.hf_thumbnails`) — stored per paper and day in
``hf_daily_papers`` for the ranker, the pages and the API.
Parsing is pure; the fetch is one GET (not an arXiv request, so not gated, but retried and
identified the same way). The field rules here (:func:`text`, :func:`web_url`, ...) are shared
with :mod:`ingest.hf_records`, which reads the same signals from flattened records.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlsplit

import requests
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.models import HfDailyPaper
from ingest.errors import FeedFormatError
from ingest.http import get
from ingest.merge import Action
from ingest.records import clean_text

# Limits of a signal's text (real pages: a dozen keywords of a few words each); a signal over
# them is rejected, as an oversized paper is (see ingest.records).
MAX_KEYWORDS = 100
MAX_TEXT = 1_000
# The largest count stored (the columns are 32-bit integers); a larger one is not a real count.
MAX_COUNT = 2**31 - 1
# The width of the username and organization slug columns (real ones: at most 40 characters).
MAX_NAME = 200
# An organization's slug as Hugging Face allows it (letters, digits, "-", "_", ".", neither
# "-" nor "." at an end, no ".."): the pages link /organizations/{slug}, where a "/" or a ".."
# would make a link that leads elsewhere or nowhere.
SLUG = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")
# Hugging Face's summary is one sentence (real ones: under 400 characters).
MAX_SUMMARY = 2_000
# A discussion's id as Hugging Face writes it (24 hex digits); another value is dropped.
DISCUSSION_ID = re.compile(r"[0-9a-f]{24}")
# More names than any real author list holds: a longer list rejects its record.
MAX_AUTHORS = 5_000
# A link is stored only if a browser would open it as a web page: never ``javascript:`` or
# ``data:``, which a page or API client could turn into script.
WEB_SCHEMES = frozenset({"http", "https"})


@dataclass(frozen=True, slots=True)
class HfSignal:
    arxiv_id: str
    daily_date: date
    upvotes: int
    num_comments: int | None
    github_repo: str | None
    github_stars: int | None
    ai_keywords: tuple[str, ...]
    submitted_on_daily_at: datetime | None
    published_at: datetime | None
    project_page: str | None
    # The HF username who submitted the paper to the daily page.
    submitted_by: str | None
    # The HF organization it was submitted under: its unique slug and its display name.
    organization_name: str | None
    organization_fullname: str | None
    # The paper's authors as Hugging Face lists them: the trending model's author history
    # reads them for featured papers Paperboy never stored from arXiv.
    authors: tuple[str, ...] = ()
    # Hugging Face's own: its model's one-sentence summary, the comment thread's id and the
    # address of the paper's social card.
    ai_summary: str | None = None
    discussion_id: str | None = None
    thumbnail_url: str | None = None


@dataclass(frozen=True, slots=True)
class DailyPage:
    signals: list[HfSignal] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def daily_url(settings: Settings) -> str:
    return f"{settings.hf_api_url.rstrip('/')}/daily_papers"


def fetch_daily(session: requests.Session, settings: Settings, day: date) -> bytes:
    return get(session, daily_url(settings), params={"date": day.isoformat()}).content


def parse_daily_page(body: bytes, day: date) -> DailyPage:
    try:
        items = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FeedFormatError(f"Daily Papers response: not JSON ({error})") from error
    if not isinstance(items, list):
        raise FeedFormatError("Daily Papers response: expected a list of papers")
    page = DailyPage()
    for number, item in enumerate(items, start=1):
        try:
            page.signals.append(parse_item(item, day))
        except (FeedFormatError, InvalidArxivIdError) as error:
            page.rejected.append(f"item {number}: {error}")
    return page


def parse_item(item: Any, day: date) -> HfSignal:
    paper = item.get("paper") if isinstance(item, dict) else None
    if not isinstance(paper, dict) or not paper.get("id"):
        raise FeedFormatError("no paper id")
    organization = _organization(item.get("organization"), paper.get("organization"))
    return HfSignal(
        arxiv_id=parse_arxiv_id(str(paper["id"])).base,
        daily_date=day,
        upvotes=count(paper.get("upvotes")) or 0,
        num_comments=count(item.get("numComments")),
        github_repo=web_url(paper.get("githubRepo"), "githubRepo"),
        github_stars=count(paper.get("githubStars")),
        ai_keywords=keywords(paper.get("ai_keywords") or ()),
        submitted_on_daily_at=timestamp(paper.get("submittedOnDailyAt")),
        published_at=timestamp(paper.get("publishedAt")),
        project_page=web_url(paper.get("projectPage"), "projectPage"),
        submitted_by=text(_submitter(item, paper), "submittedBy", MAX_NAME),
        organization_name=slug(organization.get("name"), "organization name"),
        organization_fullname=text(organization.get("fullname"), "organization fullname"),
        authors=author_names(
            [one.get("name") for one in paper.get("authors") or () if isinstance(one, dict)]
        ),
        ai_summary=text(paper.get("ai_summary"), "ai_summary", MAX_SUMMARY),
        discussion_id=discussion_id(paper.get("discussionId")),
        thumbnail_url=web_url(item.get("thumbnail"), "thumbnail"),
    )


def discussion_id(value: object) -> str | None:
    """Hugging Face's id of a paper's comment thread; any other value is dropped."""
    return value if isinstance(value, str) and DISCUSSION_ID.fullmatch(value) else None


def _submitter(item: dict[str, Any], paper: dict[str, Any]) -> object:
    """The username of ``paper.submittedOnDailyBy``, else of the item's ``submittedBy`` (the
    recorded responses give both, always the same)."""
    by_paper, by_item = paper.get("submittedOnDailyBy"), item.get("submittedBy")
    user = by_paper.get("user") if isinstance(by_paper, dict) else None
    if isinstance(user, str) and user.strip():
        return user
    return by_item.get("name") if isinstance(by_item, dict) else None


def _organization(*candidates: object) -> dict[str, Any]:
    """The first organization object (the item's, then the paper's); empty when none is."""
    return next((found for found in candidates if isinstance(found, dict)), {})


def author_names(names: object) -> tuple[str, ...]:
    """The authors' names as stored: text, at most ``MAX_NAME`` characters each; a list that
    is not one is dropped, one longer than ``MAX_AUTHORS`` rejects its record."""
    if not isinstance(names, list | tuple):
        return ()
    if len(names) > MAX_AUTHORS:
        raise FeedFormatError(f"authors: {len(names)} names, over the limit of {MAX_AUTHORS}")
    cleaned = (_clean(name, "authors", MAX_NAME) for name in names if isinstance(name, str))
    return tuple(filter(None, cleaned))


def keywords(words: object) -> tuple[str, ...]:
    if not isinstance(words, list | tuple):
        raise FeedFormatError("ai_keywords must be a list")
    if len(words) > MAX_KEYWORDS:
        raise FeedFormatError(
            f"ai_keywords: {len(words)} keywords, over the limit of {MAX_KEYWORDS}"
        )
    return tuple(filter(None, (_clean(word, "ai_keywords") for word in words)))


def text(value: object, field: str, limit: int = MAX_TEXT) -> str | None:
    """An optional text field as stored: None unless a non-blank string, cleaned as
    :func:`_clean` does (a string over ``limit`` rejects the signal)."""
    return (_clean(value, field, limit) or None) if isinstance(value, str) else None


def slug(value: object, field: str) -> str | None:
    """A Hugging Face name as stored (see :data:`SLUG`): None unless a non-blank string; one
    that is not a name rejects the signal, saying so."""
    name = text(value, field, MAX_NAME)
    if name is not None and (not SLUG.fullmatch(name) or ".." in name):
        raise FeedFormatError(f"{field}: {name[:40]!r} is not a Hugging Face name")
    return name


def web_url(value: object, field: str) -> str | None:
    """An http(s) link as stored; any other value (another scheme, no host) is dropped."""
    url = text(value, field)
    if url is None:
        return None
    parts = urlsplit(url)
    return url if parts.scheme in WEB_SCHEMES and parts.hostname else None


def _clean(value: object, field: str, limit: int = MAX_TEXT) -> str:
    """The value as stored text: no control characters, at most ``limit`` characters."""
    cleaned = clean_text(str(value or ""))
    if len(cleaned) > limit:
        raise FeedFormatError(f"{field}: {len(cleaned):,} characters, over the limit of {limit:,}")
    return cleaned


def count(value: object) -> int | None:
    """A count as stored: None unless an integer from 0 to :data:`MAX_COUNT`."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


def timestamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise FeedFormatError(f"bad timestamp {value!r}") from error
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class StoredSignals:
    """What storing a batch of signals did: rows added, rows changed, rows left as they were."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0


def store_signals(
    session: Session, signals: Sequence[HfSignal], *, fill_only: bool = False
) -> StoredSignals:
    """Insert each (day, paper) row, or merge the signal into the stored one.

    By default (live ingest) the signal's values win: the latest counts replace the stored ones.
    With ``fill_only`` (an import of older records, whose counts are earlier ones) a stored row
    only gains the fields it lacks. Either way a field the signal lacks (None, no keywords) keeps
    its stored value, so a source with less detail never erases what a richer one stored.
    """
    now = datetime.now(UTC)
    stored = _stored_rows(session, {signal.daily_date for signal in signals})
    outcomes = Counter(_store_one(session, stored, signal, now, fill_only) for signal in signals)
    return StoredSignals(outcomes[Action.NEW], outcomes[Action.UPDATE], outcomes[Action.UNCHANGED])


def _store_one(
    session: Session,
    stored: dict[tuple[date, str], HfDailyPaper],
    signal: HfSignal,
    now: datetime,
    fill_only: bool,
) -> Action:
    """Store one signal: a new row (added to ``stored``), an update, or nothing changed."""
    key, values = (signal.daily_date, signal.arxiv_id), _values(signal)
    row = stored.get(key)
    if row is None:
        values["ai_keywords"] = list(signal.ai_keywords)  # the column is never null
        values["authors"] = list(signal.authors)
        stored[key] = row = HfDailyPaper(
            daily_date=signal.daily_date, arxiv_id=signal.arxiv_id, fetched_at=now, **values
        )
        session.add(row)
        return Action.NEW
    changed = _merge(row, values, fill_only=fill_only)
    if not fill_only:
        row.fetched_at = now
    return Action.UPDATE if changed else Action.UNCHANGED


# Loaded a slice of days at a time: each day is one bound parameter of the query.
_DAYS_PER_QUERY = 500


def _stored_rows(session: Session, days: set[date]) -> dict[tuple[date, str], HfDailyPaper]:
    ordered, rows = sorted(days), {}
    for start in range(0, len(ordered), _DAYS_PER_QUERY):
        query = select(HfDailyPaper).where(
            HfDailyPaper.daily_date.in_(ordered[start : start + _DAYS_PER_QUERY])
        )
        rows.update({(row.daily_date, row.arxiv_id): row for row in session.scalars(query)})
    return rows


def _values(signal: HfSignal) -> dict[str, Any]:
    """The row's values the signal gives; None where it lacks one."""
    return {
        "upvotes": signal.upvotes,
        "num_comments": signal.num_comments,
        "github_repo": signal.github_repo,
        "github_stars": signal.github_stars,
        "ai_keywords": list(signal.ai_keywords) or None,
        "submitted_on_daily_at": signal.submitted_on_daily_at,
        "published_at": signal.published_at,
        "project_page": signal.project_page,
        "submitted_by": signal.submitted_by,
        "organization_name": signal.organization_name,
        "organization_fullname": signal.organization_fullname,
        "authors": list(signal.authors) or None,
        "ai_summary": signal.ai_summary,
        "discussion_id": signal.discussion_id,
        "thumbnail_url": signal.thumbnail_url,
    }


def _merge(row: HfDailyPaper, values: dict[str, Any], *, fill_only: bool) -> bool:
    """Write ``values`` into ``row`` as :func:`store_signals` says; whether anything changed."""
    changed = False
    for name, value in values.items():
        current = getattr(row, name)
        lacking = current is None or current == []
        if value is None or value == current or (fill_only and not lacking):
            continue
        setattr(row, name, value)
        changed = True
    return changed
