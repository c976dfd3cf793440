"""Live ingest runs: read a source, store what it says, log one report per category and day.

Each run fetches first and stores afterwards, in one session scope, so no write transaction
is open while a request waits for the politeness gate; a failure rolls back only the step
that failed, and the report says what failed.

The ingest log (:class:`RunReport`) holds one report per source, category and announcement
date. Statuses (also in ``docs/ingest.md``):

* ``ok`` — read and stored.
* ``unchanged`` — the server said the feed has not changed since the last run (HTTP 304).
* ``empty`` — the source had nothing for this category and day.
* ``smaller`` — the source listed fewer papers than already stored for the day; the stored
  listing is kept whole.
* ``stale`` — the source served an older day than another category already has.
* ``partial`` — stored, but some items were rejected (the error says which).
* ``failed`` — the source could not be read; what was stored before stays stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import requests
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import make_session_factory, session_scope
from app.core.models import IngestRun, IngestRunStatus
from ingest import arxiv_api, hf_daily, hf_thumbnails, live_writes
from ingest.errors import SourceError
from ingest.http import Gate, PoliteSession
from ingest.rss import REPLACED_TYPES, FeedItem, Listing, feed_url, fetch_feed, parse_listing

MAX_LOGGED_REJECTIONS = 20
# A request holds the gate at most this many timeouts long (a crashed holder's lease expires).
_LEASE_TIMEOUTS = 4
FAILURES = (SourceError, SQLAlchemyError)


class WrongDayError(SourceError):
    """RSS was asked for a day other than the latest announcement, which is all it serves."""


@dataclass(frozen=True)
class Context:
    """What every run needs: settings, sessions and the two HTTP sessions."""

    settings: Settings
    sessions: sessionmaker[Session]
    arxiv: PoliteSession  # gated: RSS, OAI-PMH and the API all count against arXiv's limit
    api: PoliteSession  # gated as well, and checks API responses (see ingest.arxiv_api)
    web: PoliteSession  # not arXiv (Hugging Face): no gate, same retries and User-Agent
    thumbnails: PoliteSession  # Hugging Face's thumbnails: a gate of their own, a small cap


def make_context(settings: Settings, engine: Engine) -> Context:
    gate = Gate(
        engine,
        interval=settings.arxiv_min_interval_seconds,
        lease=settings.http_timeout_seconds * _LEASE_TIMEOUTS,
    )
    return Context(
        settings=settings,
        sessions=make_session_factory(engine),
        arxiv=PoliteSession(settings, gate),
        api=arxiv_api.api_session(settings, gate),
        web=PoliteSession(settings, None),
        thumbnails=hf_thumbnails.thumbnail_session(settings, engine),
    )


def ingest_rss(
    context: Context, categories: tuple[str, ...], day: date | None = None
) -> list[RunReport]:
    """Read the latest announcement of ``categories`` from the listing feed."""
    url = feed_url(context.settings, categories)
    reports = {category: RunReport("rss", category, detail=url) for category in categories}
    try:
        _ingest_feed(context, url, reports, day)
    except FAILURES as error:
        for report in reports.values():
            report.escalate(IngestRunStatus.FAILED, str(error))
    return list(reports.values())


def _ingest_feed(
    context: Context, url: str, reports: dict[str, RunReport], day: date | None
) -> None:
    with session_scope(context.sessions) as session:
        # A run for a named day must see the feed's day, so it never asks conditionally.
        validators = (None, None) if day else live_writes.feed_validators(session, url)
    fetched = fetch_feed(context.arxiv, url, *validators)
    if fetched is None:
        for report in reports.values():
            report.escalate(IngestRunStatus.UNCHANGED)
        return
    listing = parse_listing(fetched.body)
    _require_day(listing, day)
    with session_scope(context.sessions) as session:
        _store_listing(session, listing, reports)
        live_writes.save_feed_validators(session, url, fetched.etag, fetched.last_modified)


def _require_day(listing: Listing, day: date | None) -> None:
    served = max((item.listed_on for item in listing.items), default=None)
    if day is None or served is None or served == day:
        return
    raise WrongDayError(
        f"the RSS feed serves only the latest announcement ({served}), not {day}; "
        f"for an older day use OAI-PMH: paperboy backfill --from {day} --until {day}"
    )


def _store_listing(session: Session, listing: Listing, reports: dict[str, RunReport]) -> None:
    live_writes.store_papers(session, [item.record for item in listing.items])
    stored_latest = live_writes.latest_listing_day(session)
    newest = max([item.listed_on for item in listing.items] + [stored_latest or date.min])
    for category, report in reports.items():
        items = [item for item in listing.items if in_category(item, category)]
        _store_category(session, items, report, newest)
        if listing.rejected:
            report.counts["rejected"] = len(listing.rejected)
            report.escalate(
                IngestRunStatus.PARTIAL, "\n".join(listing.rejected[:MAX_LOGGED_REJECTIONS])
            )


def in_category(item: FeedItem, category: str) -> bool:
    """Whether the item belongs to a requested category (``cs`` takes every ``cs.*``)."""
    return any(
        name == category or name.startswith(f"{category}.") for name in item.record.categories
    )


def _store_category(
    session: Session, items: list[FeedItem], report: RunReport, newest: date
) -> None:
    report.counts["read"] = len(items)
    if not items:
        report.escalate(IngestRunStatus.EMPTY)
        return
    day = report.announced_on = max(item.listed_on for item in items)
    kinds = {item.record.arxiv_id: item.announce_type for item in items if item.listed_on == day}
    for kind in kinds.values():
        report.counts["replaced" if kind in REPLACED_TYPES else kind] += 1
    before = live_writes.add_listing(session, day, str(report.category), kinds)
    if len(kinds) < before:
        report.escalate(
            IngestRunStatus.SMALLER, f"the feed lists {len(kinds)} papers; {before} stay stored"
        )
    if day < newest:
        report.escalate(
            IngestRunStatus.STALE, f"the feed serves {day}; another category already has {newest}"
        )


def enrich_day(context: Context, day: date, categories: tuple[str, ...]) -> list[RunReport]:
    """Fetch full metadata from the API for every paper in the day's listing."""
    report = RunReport("api", None, day, detail=",".join(categories))
    with session_scope(context.sessions) as session:
        arxiv_ids = live_writes.listed_ids(session, day, categories)
    report.counts["read"] = len(arxiv_ids)
    if not arxiv_ids:
        report.escalate(
            IngestRunStatus.EMPTY, f"no listing stored for {day}; run `paperboy ingest` (RSS) first"
        )
        return [report]
    try:
        enrich(context, arxiv_ids, report)
    except FAILURES as error:
        report.escalate(IngestRunStatus.FAILED, str(error))
    return [report]


def enrich(context: Context, arxiv_ids: Sequence[str], report: RunReport) -> None:
    """Fetch ``arxiv_ids`` from the API and store them; counts go into ``report``."""
    client = arxiv_api.make_client(context.settings, context.api, arxiv_api.ID_BATCH_SIZE)
    fetched = arxiv_api.fetch_by_ids(client, arxiv_ids)
    with session_scope(context.sessions) as session:
        counts = live_writes.store_papers(session, fetched.records)
    report.counts.update(enriched=len(fetched.records), new=counts.new, updated=counts.updated)
    report.counts["unchanged"] += counts.unchanged
    report.counts["rejected"] += len(fetched.rejected)
    rejections = [f"{arxiv_id}: {why}" for arxiv_id, why in fetched.rejected.items()]
    if rejections:
        report.escalate(IngestRunStatus.PARTIAL, "\n".join(rejections[:MAX_LOGGED_REJECTIONS]))
    returned = {record.arxiv_id for record in fetched.records} | fetched.rejected.keys()
    missing = sorted(set(arxiv_ids) - returned)
    if missing:
        report.escalate(
            IngestRunStatus.PARTIAL, f"the API did not return {', '.join(missing[:20])}"
        )


def close(context: Context) -> None:
    for session in (context.arxiv, context.api, context.web, context.thumbnails):
        requests.Session.close(session)


def ingest_hf(context: Context, day: date) -> list[RunReport]:
    """Store the day's Hugging Face signals; papers not yet stored are fetched from arXiv."""
    report = RunReport("hf", None, day, detail=hf_daily.daily_url(context.settings))
    try:
        page = hf_daily.parse_daily_page(
            hf_daily.fetch_daily(context.web, context.settings, day), day
        )
        with session_scope(context.sessions) as session:
            hf_daily.store_signals(session, page.signals)
            missing = live_writes.missing_papers(session, [s.arxiv_id for s in page.signals])
            thumbnails = hf_thumbnails.wanted(session, page.signals)
        report.counts.update(read=len(page.signals), rejected=len(page.rejected))
        if page.rejected:
            report.escalate(
                IngestRunStatus.PARTIAL, "\n".join(page.rejected[:MAX_LOGGED_REJECTIONS])
            )
        if missing:
            enrich(context, missing, report)
        store_thumbnails(context, thumbnails, report)
    except FAILURES as error:
        report.escalate(IngestRunStatus.FAILED, str(error))
    if report.counts["read"] == 0 and report.status is IngestRunStatus.OK:
        report.escalate(IngestRunStatus.EMPTY)
    return [report]


def store_thumbnails(
    context: Context, wanted: Sequence[hf_thumbnails.Wanted], report: RunReport
) -> None:
    """Fetch the wanted thumbnails (no transaction open meanwhile), then store those made;
    the report names each that could not be."""
    fetched = hf_thumbnails.fetch_thumbnails(context.thumbnails, context.settings, wanted)
    with session_scope(context.sessions) as session:
        hf_thumbnails.store_thumbnails(session, fetched.thumbnails, _now())
    if fetched.refused:
        report.escalate(IngestRunStatus.PARTIAL, "\n".join(fetched.refused[:MAX_LOGGED_REJECTIONS]))


COUNTS = ("read", "new", "cross", "replaced", "updated", "enriched", "unchanged", "rejected")
# Worse statuses win when one report collects several findings.
_SEVERITY = (
    IngestRunStatus.OK,
    IngestRunStatus.UNCHANGED,
    IngestRunStatus.EMPTY,
    IngestRunStatus.SMALLER,
    IngestRunStatus.STALE,
    IngestRunStatus.PARTIAL,
    IngestRunStatus.FAILED,
)
_EXIT_CODES = {IngestRunStatus.FAILED: 1, IngestRunStatus.PARTIAL: 2, IngestRunStatus.STALE: 2}


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunReport:
    source: str
    category: str | None = None
    announced_on: date | None = None
    status: IngestRunStatus = IngestRunStatus.OK
    counts: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    detail: str | None = None
    started_at: datetime = field(default_factory=_now)

    def escalate(self, status: IngestRunStatus, note: str | None = None) -> None:
        """Raise the status to ``status`` if that is worse; keep every note."""
        if _SEVERITY.index(status) > _SEVERITY.index(self.status):
            self.status = status
        if note:
            self.error = f"{self.error}\n{note}" if self.error else note

    def line(self) -> str:
        where = " ".join(str(part) for part in (self.category, self.announced_on) if part)
        counts = ", ".join(f"{name} {self.counts[name]}" for name in COUNTS if self.counts[name])
        text = f"{self.source} {where}: {self.status}" + (f" ({counts})" if counts else "")
        return f"{text}; {self.error}" if self.error else text


def exit_code(reports: Iterable[RunReport]) -> int:
    """0 when all went well, 1 when a source failed, 2 when one was partial or stale."""
    codes = [_EXIT_CODES.get(report.status, 0) for report in reports]
    return 1 if 1 in codes else max(codes, default=0)


def save_reports(sessions: sessionmaker[Session], reports: Iterable[RunReport]) -> None:
    """Write the reports in their own transaction, so a failed run is logged too."""
    with session_scope(sessions) as session:
        session.add_all(_row(report) for report in reports)


def _row(report: RunReport) -> IngestRun:
    counts = {f"{name}_count": report.counts[name] for name in COUNTS}
    return IngestRun(
        source=report.source,
        category=report.category,
        announced_on=report.announced_on,
        detail=report.detail,
        status=report.status,
        started_at=report.started_at,
        finished_at=_now(),
        error=report.error,
        **counts,
    )
