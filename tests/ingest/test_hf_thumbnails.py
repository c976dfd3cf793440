"""Hugging Face's summary, discussion and thumbnail kept by live ingest, from the recorded pages
(thumbnails served as generated images by a local server: only their addresses are recorded)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import select

from app.core.config import Settings
from app.core.models import HfDailyPaper, HfThumbnail
from app.web.app import create_app
from ingest.hf_thumbnails import THUMBNAIL_SIZE, ThumbnailError, small_image
from ingest.live import Context, close, ingest_hf, make_context
from tests.conftest import Database
from tests.ingest.hf_pages import (
    PNG,
    png,
    recorded_items,
    serve_day,
    store_papers_of,
    thumbnail_path,
)
from tests.ingest.recorded_server import RecordedServer, Reply

JUNE = date(2025, 6, 2)
NOVEMBER = date(2025, 11, 3)
# Shorter than the server's wait below: the thumbnail never arrives in time.
TIMEOUT = 0.3
Item = dict[str, Any]


@pytest.fixture
def context(live_settings: Settings, database: Database) -> Iterator[Context]:
    settings = live_settings.model_copy(
        update={
            "hf_thumbnail_timeout_seconds": TIMEOUT,
            "hf_thumbnail_interval_seconds": 0.0,
            "hf_thumbnail_max_bytes": 200_000,
            "arxiv_max_retries": 0,
        }
    )
    made = make_context(settings, database.engine)
    yield made
    close(made)


def rows(database: Database) -> dict[str, HfDailyPaper]:
    with database.sessions() as session:
        return {row.arxiv_id: row for row in session.scalars(select(HfDailyPaper))}


def thumbnails(database: Database) -> dict[str, HfThumbnail]:
    with database.sessions() as session:
        return {row.arxiv_id: row for row in session.scalars(select(HfThumbnail))}


def stored_and_served(database: Database, server: RecordedServer, day: date) -> list[Item]:
    """The recorded ``day``'s papers stored and its page served; its items, to change and serve
    again."""
    items = recorded_items(day)
    store_papers_of(database, items)
    serve_day(server, day, items)
    return items


@pytest.fixture
def november(context: Context, database: Database, server: RecordedServer) -> list[Item]:
    """The recorded November day stored, served and read once; its items."""
    items = stored_and_served(database, server, NOVEMBER)
    ingest_hf(context, NOVEMBER)
    return items


def test_summaries_discussions_and_thumbnails_are_stored_from_the_recorded_day(
    context: Context, database: Database, server: RecordedServer
) -> None:
    items = stored_and_served(database, server, JUNE)
    (report,) = ingest_hf(context, JUNE)
    assert (report.status, report.counts["read"]) == ("ok", 20)
    stored = rows(database)
    prorl = stored["2505.24864"]
    assert prorl.ai_summary is not None and prorl.ai_summary.startswith("Prolonged reinforcement")
    assert prorl.discussion_id == items[0]["paper"]["discussionId"]
    assert sum(row.ai_summary is not None for row in stored.values()) == 19
    kept = thumbnails(database)
    assert len(kept) == 20
    with Image.open(io.BytesIO(kept["2505.24864"].image)) as image:
        assert (image.format, image.size) == ("WEBP", THUMBNAIL_SIZE)
    assert len({row.digest for row in kept.values()}) == 20  # each its own colour


def test_a_thumbnail_is_fetched_once_however_often_the_day_is_read(
    context: Context, server: RecordedServer, november: list[Item]
) -> None:
    ingest_hf(context, NOVEMBER)
    fetched = [a.path for a in server.arrivals if a.path.startswith("/social-thumbnails/")]
    assert sorted(fetched) == sorted(thumbnail_path(item["paper"]["id"]) for item in november)
    assert all(a.headers["User-Agent"].startswith("Paperboy/") for a in server.arrivals)


def test_a_day_without_summaries_stores_none_and_erases_none_stored_before(
    context: Context, database: Database, server: RecordedServer, november: list[Item]
) -> None:
    summarised = {arxiv_id for arxiv_id, row in rows(database).items() if row.ai_summary}
    assert summarised == {"2510.24411"}  # the one record of the day that has one
    for item in november:
        item["paper"].pop("ai_summary", None)
    serve_day(server, NOVEMBER, november)
    (again,) = ingest_hf(context, NOVEMBER)
    assert again.status == "ok"
    assert str(rows(database)["2510.24411"].ai_summary).startswith("A hybrid safety detection")


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply(200, b"<html>not found</html>", {"Content-Type": "image/png"}), "not an image"),
        (Reply(200, png((9000, 9000)), PNG), "larger than 200,000 bytes"),
        (Reply(200, png(), PNG, delay=TIMEOUT * 4), "timed out"),
    ],
    ids=["not-an-image", "huge", "never-arrives"],
)
def test_a_thumbnail_that_cannot_be_had_is_named_and_the_paper_kept_with_its_old_one(
    context: Context,
    database: Database,
    server: RecordedServer,
    november: list[Item],
    reply: Reply,
    why: str,
) -> None:
    before = thumbnails(database)["2510.27492"].image
    serve_day(server, NOVEMBER, november, images=False)
    november[0]["thumbnail"] = f"{server.url}/moved.png"  # a new address: fetched again
    server.add(
        "/api/daily_papers", {"date": "2025-11-03"}, Reply(200, json.dumps(november).encode())
    )
    server.add("/moved.png", {}, reply)
    (report,) = ingest_hf(context, NOVEMBER)
    assert report.status == "partial"
    assert "thumbnail of 2510.27492" in str(report.error) and why in str(report.error)
    assert thumbnails(database)["2510.27492"].image == before
    assert rows(database)["2510.27492"].upvotes == 37  # the paper's signals are stored


def test_a_thumbnail_off_the_allowed_hosts_is_never_fetched_and_the_old_one_stays(
    context: Context,
    database: Database,
    server: RecordedServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    items = recorded_items(NOVEMBER)
    store_papers_of(database, items)
    serve_day(server, NOVEMBER, items)
    ingest_hf(context, NOVEMBER)
    before = {one: row.image for one, row in thumbnails(database).items()}
    serve_day(server, NOVEMBER, items)
    # The same server under a name not allowed, and an allowed address redirecting to it.
    items[0]["thumbnail"] = server.url.replace("127.0.0.1", "localhost") + "/elsewhere.png"
    items[1]["thumbnail"] = f"{server.url}/moved.png"
    server.add("/api/daily_papers", {"date": "2025-11-03"}, Reply(200, json.dumps(items).encode()))
    server.add("/elsewhere.png", {}, Reply(200, png(colour=(1, 2, 3)), PNG))
    server.add("/moved.png", {}, Reply(302, b"", {"Location": items[0]["thumbnail"]}))
    (report,) = ingest_hf(context, NOVEMBER)
    first, second = items[0]["paper"]["id"], items[1]["paper"]["id"]
    said = str(report.error)
    assert report.status == "partial"
    assert f"thumbnail of {first}: 'localhost' is not a host thumbnails are fetched from" in said
    assert f"thumbnail of {second}: HTTP 302, a redirect: not followed" in said
    assert said.splitlines()[0] in caplog.text
    assert not [a for a in server.arrivals if a.path == "/elsewhere.png"]
    assert {one: row.image for one, row in thumbnails(database).items()} == before
    assert rows(database)[first].upvotes == 37  # the paper's signals are stored


def test_an_image_claiming_more_pixels_than_allowed_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(ThumbnailError, match="4000x4000 pixels, over the limit"):
        small_image(png((4000, 4000)), max_pixels=1_000_000)


def test_a_picture_of_a_format_not_kept_is_not_an_image() -> None:
    out = io.BytesIO()
    Image.new("RGB", (10, 10)).save(out, "BMP")
    with pytest.raises(ThumbnailError, match="not an image"):
        small_image(out.getvalue(), max_pixels=1_000_000)


def test_a_truncated_image_is_not_an_image() -> None:
    with pytest.raises(ThumbnailError, match="not an image"):
        small_image(png()[:200], max_pixels=10_000_000)


@pytest.mark.usefixtures("november")
def test_the_recorded_days_summary_and_thumbnail_reach_the_paper_page_and_the_api(
    database: Database,
) -> None:
    settings = database.settings.model_copy(update={"public_base_url": "https://papers.test"})
    with TestClient(create_app(settings)) as client:
        html = client.get("/papers/2510.24411").text
        assert "<strong>Summary by Hugging Face:</strong>" in html
        assert "1 comment on Hugging Face" in html
        src = re.search(r'<img class="thumb" src="(/thumbnails/[0-9a-f]{64}\.webp)"', html)
        assert src is not None
        assert client.get(src.group(1)).headers["Content-Type"] == "image/webp"
        bare = client.get("/papers/2510.27492").text  # a record with no ai_summary
        assert "Summary by Hugging Face" not in bare and "4 comments on Hugging Face" in bare
        detail = client.get("/api/papers/2510.24411").json()
    assert detail["ai_summary"].startswith("A hybrid safety detection framework")
    assert detail["discussionId"] == "6901c572646208eac0d1f599"
    assert detail["thumbnail"] == f"https://papers.test{src.group(1)}"
