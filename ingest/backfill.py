"""Backfill from OAI-PMH: harvest a date range of a category and store it page by page.

Each page is committed on its own, so a fault on page five (an expired resumption token, a
server that stays down) keeps the four pages before it; the report says where it stopped.
OAI-PMH dates are datestamps (last change of a record), not announcement days, so a backfill
fills in papers and leaves announcement days to the listings.
"""

from __future__ import annotations

from datetime import date

from app.core.db import session_scope
from app.core.models import IngestRunStatus
from ingest import live_writes, oai
from ingest.live import FAILURES, MAX_LOGGED_REJECTIONS, Context, RunReport


def backfill(
    context: Context, categories: tuple[str, ...], from_day: date, until_day: date
) -> list[RunReport]:
    """Harvest ``from_day``..``until_day`` (both inclusive) for each category."""
    if until_day < from_day:
        raise ValueError(f"--until {until_day} is before --from {from_day}")
    reports = []
    for category in categories:
        set_spec = oai.oai_set(category)
        report = RunReport("oai", category, detail=f"set {set_spec}, {from_day}..{until_day}")
        harvest(context, report, set_spec, from_day, until_day)
        reports.append(report)
    return reports


def harvest(
    context: Context,
    report: RunReport,
    set_spec: str | None,
    from_day: date,
    until_day: date,
    metadata_prefix: str = "arXiv",
) -> set[str]:
    """Store every page of one harvest; counts and failures go into ``report``.

    Returns the ids of the papers stored (also when the harvest stopped early).
    """
    seen: set[str] = set()
    pages = oai.list_records(
        context.arxiv,
        context.settings.arxiv_oai_url,
        set_spec=set_spec,
        from_day=from_day,
        until_day=until_day,
        metadata_prefix=metadata_prefix,
    )
    try:
        for page in pages:
            _store_page(context, page, report)
            seen.update(record.arxiv_id for record in page.records)
    except FAILURES as error:
        stored = report.counts["read"]
        report.escalate(
            IngestRunStatus.FAILED, f"{error} (after {stored} records, which stay stored)"
        )
    if report.counts["read"] == 0 and report.status is IngestRunStatus.OK:
        report.escalate(IngestRunStatus.EMPTY)
    return seen


def cross_check(context: Context, categories: tuple[str, ...], day: date) -> list[RunReport]:
    """Harvest one day per category and say how much of its stored listing OAI-PMH has.

    The comparison is informational: OAI datestamps (last change) and announcement days
    differ by a day or so, so it never changes a status.
    """
    reports = []
    for category in categories:
        set_spec = oai.oai_set(category)
        report = RunReport("oai", category, day, detail=f"set {set_spec}, {day}..{day}")
        seen = harvest(context, report, set_spec, day, day)
        with session_scope(context.sessions) as session:
            listed = set(live_writes.listed_ids(session, day, [category]))
        if listed:
            found = len(listed & seen)
            report.detail = f"{report.detail}; {found} of {len(listed)} listed papers harvested"
        reports.append(report)
    return reports


def _store_page(context: Context, page: oai.OaiPage, report: RunReport) -> None:
    with session_scope(context.sessions) as session:
        counts = live_writes.store_papers(session, page.records)
    report.counts.update(
        read=len(page.records),
        new=counts.new,
        updated=counts.updated,
        unchanged=counts.unchanged,
        rejected=len(page.rejected),
    )
    if page.rejected:
        report.escalate(IngestRunStatus.PARTIAL, "\n".join(page.rejected[:MAX_LOGGED_REJECTIONS]))
