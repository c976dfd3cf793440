"""Hugging Face Daily Papers (``huggingface.co/api/daily_papers?date=YYYY-MM-DD``).

The community signals of each paper on a day's page — upvotes, comments, GitHub repository
and stars, ``ai_keywords``, when it was submitted to the page — stored per paper and day in
``hf_daily_papers`` for the ranker. Parsing is pure; the fetch is one GET (not an arXiv
request, so not gated, but retried and identified the same way).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import requests
from sqlalchemy.orm import Session

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.models import HfDailyPaper
from ingest.errors import FeedFormatError
from ingest.http import get
from ingest.records import clean_text

# Limits of a signal's text (real pages: a dozen keywords of a few words each); a signal over
# them is rejected, as an oversized paper is (see ingest.records).
MAX_KEYWORDS = 100
MAX_TEXT = 1_000


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
    return HfSignal(
        arxiv_id=parse_arxiv_id(str(paper["id"])).base,
        daily_date=day,
        upvotes=_count(paper.get("upvotes")) or 0,
        num_comments=_count(item.get("numComments")),
        github_repo=_text(paper.get("githubRepo"), "githubRepo") or None,
        github_stars=_count(paper.get("githubStars")),
        ai_keywords=_keywords(paper.get("ai_keywords") or ()),
        submitted_on_daily_at=_timestamp(paper.get("submittedOnDailyAt")),
        published_at=_timestamp(paper.get("publishedAt")),
    )


def _keywords(words: object) -> tuple[str, ...]:
    if not isinstance(words, list | tuple):
        raise FeedFormatError("ai_keywords must be a list")
    if len(words) > MAX_KEYWORDS:
        raise FeedFormatError(
            f"ai_keywords: {len(words)} keywords, over the limit of {MAX_KEYWORDS}"
        )
    return tuple(filter(None, (_text(word, "ai_keywords") for word in words)))


def _text(value: object, field: str) -> str:
    """The value as stored text: no control characters, at most ``MAX_TEXT`` characters."""
    text = clean_text(str(value or ""))
    if len(text) > MAX_TEXT:
        raise FeedFormatError(f"{field}: {len(text):,} characters, over the limit of {MAX_TEXT:,}")
    return text


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _timestamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise FeedFormatError(f"bad timestamp {value!r}") from error
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def store_signals(session: Session, signals: Sequence[HfSignal]) -> None:
    """Insert or refresh each (day, paper) row: the latest counts win."""
    fetched_at = datetime.now(UTC)
    for signal in signals:
        session.merge(
            HfDailyPaper(
                daily_date=signal.daily_date, arxiv_id=signal.arxiv_id, upvotes=signal.upvotes,
                num_comments=signal.num_comments, github_repo=signal.github_repo,
                github_stars=signal.github_stars, ai_keywords=list(signal.ai_keywords),
                submitted_on_daily_at=signal.submitted_on_daily_at,
                published_at=signal.published_at, fetched_at=fetched_at,
            )
        )  # fmt: skip
