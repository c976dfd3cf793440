"""The demo's replayed live ingest answers with the sample's own latest day, and the demo's
clock makes that day today, so ``/status`` is green by the same rules as in production."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.cli.demo.replay import (
    MARK_EVERY,
    MARK_FILE,
    SAMPLE,
    SAMPLE_SIGNALS,
    Route,
    daily_papers,
    demo_clock,
    listing_feed,
    read_jsonl,
    replay_server,
    replayed_ingest,
    sample_routes,
)
from app.cli.demo.steps import _replay_settings
from app.core.config import get_settings
from app.core.models import HfThumbnail, Paper
from app.services.status import stale_before
from app.web.app import create_app
from ingest import hf_daily
from ingest.bulk.importer import import_file
from ingest.rss import parse_listing
from tests.conftest import Database

DAY = date(2025, 12, 19)  # the bundled sample's latest announcement day


def test_the_replayed_feed_lists_the_samples_latest_day_and_nothing_else() -> None:
    papers = read_jsonl(SAMPLE)
    day, routes = sample_routes(("cs",))
    listing = parse_listing(routes[("/rss/cs", frozenset())][0])
    assert day == DAY
    assert listing.rejected == []
    firsts = {paper["id"] for paper in papers if paper["listing_dates"][0] == DAY.isoformat()}
    assert {item.record.arxiv_id for item in listing.items} == firsts
    assert {(item.announce_type, item.listed_on) for item in listing.items} == {("new", DAY)}
    assert all("Mysteries" not in item.record.title for item in listing.items)


def test_a_paper_outside_the_feeds_archives_is_left_out_and_a_cross_listing_is_cross() -> None:
    papers = [
        {
            "id": "2512.00001",
            "categories": ["math.AG", "cs.LG"],
            "listing_dates": ["2025-12-19"],
            "title": "T",
            "summary": "A.",
            "authors": ["Ann Lee"],
        },
        {
            "id": "2512.00002",
            "categories": ["math.AG"],
            "listing_dates": ["2025-12-19"],
            "title": "T",
            "summary": "A.",
            "authors": ["Ann Lee"],
        },
        {
            "id": "2512.00003",
            "categories": ["cs.LG"],
            "listing_dates": ["2025-12-18"],
            "title": "T",
            "summary": "A.",
            "authors": ["Ann Lee"],
        },
    ]
    items = parse_listing(listing_feed(papers, DAY, ("cs",))).items
    assert [(item.record.arxiv_id, item.announce_type) for item in items] == [
        ("2512.00001", "cross")
    ]


def test_the_replayed_hugging_face_page_holds_the_days_signals_of_sample_papers_only() -> None:
    papers = read_jsonl(SAMPLE)
    signals = [s for s in read_jsonl(SAMPLE_SIGNALS) if s["daily_date"] == "2025-12-19"]
    page = hf_daily.parse_daily_page(
        daily_papers(signals, DAY, (paper["id"] for paper in papers)), DAY
    )
    sampled = {paper["id"] for paper in papers}
    assert page.rejected == []
    assert {s.arxiv_id for s in page.signals} == {s["arxiv_id"] for s in signals} & sampled
    kling = next(signal for signal in page.signals if signal.arxiv_id == "2512.16776")
    assert (kling.upvotes, kling.num_comments, kling.submitted_by) == (79, 1, "taesiri")
    assert (kling.organization_name, kling.organization_fullname) == (None, "Kling Team")
    # The sample's own slug, where a recorded response gave it (app/sample/PROVENANCE.md).
    tencent = next(signal for signal in page.signals if signal.arxiv_id == "2512.16561")
    assert (tencent.organization_name, tencent.organization_fullname) == ("tencent", "Tencent")


def test_the_demo_clock_starts_on_the_replayed_day_and_moves_with_real_time() -> None:
    real = [datetime(2026, 11, 23, 13, 0, tzinfo=UTC)]
    clock = demo_clock(DAY, real=lambda: real[0])
    assert clock() == datetime(2025, 12, 19, 19, 0, tzinfo=UTC)  # 14:00 in New York
    real[0] += timedelta(minutes=5)
    assert clock() == datetime(2025, 12, 19, 19, 5, tzinfo=UTC)


def test_a_demo_clock_made_later_never_starts_behind_what_an_earlier_one_gave(
    tmp_path: Path,
) -> None:
    # A slow daily job: the site's clock is made twenty minutes after the job's.
    real = [datetime(2026, 11, 23, 13, 0, tzinfo=UTC)]
    jobs = demo_clock(DAY, tmp_path, real=lambda: real[0])
    given = [jobs()]
    for _ in range(40):
        real[0] += timedelta(seconds=31)
        given.append(jobs())
    sites = demo_clock(DAY, tmp_path, real=lambda: real[0])
    assert sites() > max(given)
    assert sites() - max(given) <= 3 * MARK_EVERY  # continues, rather than jumping ahead


def test_a_restarted_demos_clock_goes_on_from_where_the_last_one_was_read(
    tmp_path: Path,
) -> None:
    real = [datetime(2026, 11, 23, 13, 0, tzinfo=UTC)]
    first = demo_clock(DAY, tmp_path, real=lambda: real[0])
    real[0] += timedelta(hours=2)  # served for two hours, read now and then
    last = first()
    real[0] += timedelta(days=3)  # stopped for three days, then restarted
    again = demo_clock(DAY, tmp_path, real=lambda: real[0])
    assert last < again() <= last + 3 * MARK_EVERY
    assert stale_before(DAY, get_settings(), again()) is None


def test_a_damaged_clock_mark_starts_the_clock_on_the_samples_afternoon(tmp_path: Path) -> None:
    (tmp_path / MARK_FILE).write_text("not a time")
    clock = demo_clock(DAY, tmp_path)
    assert clock().date() == DAY


def test_the_samples_day_is_current_by_the_demo_clock_and_stale_by_the_real_one(
    database: Database,
) -> None:
    settings = database.settings
    assert stale_before(DAY, settings, demo_clock(DAY)()) is None
    assert stale_before(DAY, settings, datetime(2026, 11, 23, 13, 0, tzinfo=UTC)) is not None


def test_the_replayed_ingest_stores_the_day_and_the_site_reports_it_healthy(
    database: Database,
) -> None:
    import_file(SAMPLE, database.sessions, show_progress=False)  # as the demo does first
    routes: dict[Route, tuple[bytes, str]] = {}
    with replay_server(routes) as url:
        day, answers = sample_routes(("cs",), url)
        routes.update(answers)
        clock = demo_clock(day)
        replay = _replay_settings(database.settings, url)
        report = replayed_ingest(replay, database.sessions, clock(), ("cs",))
    assert [(run.source, run.status) for run in report.sources] == [("rss", "ok"), ("hf", "ok")]
    with database.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Paper)) == 491
        days = select(func.min(Paper.announced_on), func.max(Paper.announced_on))
        assert tuple(session.execute(days).one()) == (date(2025, 12, 17), day)
    with database.sessions() as session:  # the drawn cards, stored as live ingest stores them
        stored = session.scalars(select(HfThumbnail.arxiv_id)).all()
    assert len(stored) == 10 and "2512.16776" in stored
    with TestClient(create_app(database.settings, clock)) as client:
        status = client.get("/status")
        card = client.get("/papers/2512.16776").text
        thumbnail = re.search(r'<img class="thumb" src="(/thumbnails/[0-9a-f]{64}\.webp)"', card)
        assert thumbnail is not None
        image = client.get(thumbnail[1])
    assert (image.status_code, image.headers["content-type"]) == (200, "image/webp")
    # No edition is published in this test: that is the one red line, and no source is.
    assert "is partial" not in status.text and "Stale data" not in status.text
