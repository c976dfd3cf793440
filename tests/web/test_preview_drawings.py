"""Link previews at a cost one client cannot multiply: the images of published editions are
read from the files the daily job stored; any other is drawn at most once at a time, in a pool
of its own with a bounded queue, within each client's rate of drawings (on a real server)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import EditionItem
from app.core.reads import latest_edition
from app.services.previews.stored import (
    STORED_FOR,
    draw_published,
    previews_directory,
    stored_path,
)
from app.web.app import create_app
from app.web.caching import Rendered, rendered
from app.web.limits import RateLimiter
from app.web.preview_drawings import DrawingLimits, DrawingRefusedError, PreviewDrawings
from tests.servers import served
from tests.web.conftest import HF_PAPER, LAST_DAY

AT_ONCE = 50
ONE_CLIENT, ANOTHER_CLIENT = "203.0.113.1", "203.0.113.2"


def _without_stored_previews(settings: Settings, data_dir: Path, **update: object) -> Settings:
    """The filled site's settings, with a data folder holding no stored preview."""
    return settings.model_copy(update={"data_dir": data_dir, **update})


def _day_papers(settings: Settings) -> list[str]:
    """The papers of the last day's edition, in rank order."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
        edition = latest_edition(s, "day", LAST_DAY)
        assert edition is not None
        ids = s.scalars(
            select(EditionItem.arxiv_id)
            .where(EditionItem.edition_id == edition.id)
            .order_by(EditionItem.position)
        )
        return list(ids)


async def _at_once(base_url: str, path: str, client: str) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=AT_ONCE, max_keepalive_connections=AT_ONCE)
    headers = {"X-Forwarded-For": client}
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as http:
        return list(
            await asyncio.gather(*(http.get(path, headers=headers) for _ in range(AT_ONCE)))
        )


def test_fifty_requests_at_once_for_one_undrawn_image_draw_it_once(
    site_settings: Settings, tmp_path: Path
) -> None:
    # The client may have one image drawn: a second drawing for it would answer 429.
    settings = _without_stored_previews(
        site_settings, tmp_path, preview_drawings_per_minute=1, preview_drawings_burst=1
    )
    with served(create_app(settings)) as base_url:
        answers = asyncio.run(_at_once(base_url, f"/previews/papers/{HF_PAPER}.png", ONE_CLIENT))
        other = httpx.get(
            f"{base_url}/previews/topics/1.png", headers={"X-Forwarded-For": ONE_CLIENT}
        )
    assert [answer.status_code for answer in answers] == [200] * AT_ONCE
    assert len({answer.content for answer in answers}) == 1
    assert answers[0].content.startswith(b"\x89PNG")
    assert other.status_code == 429  # the fifty spent the client's one drawing, once


def test_a_client_past_its_drawings_is_told_when_to_retry_and_another_is_not(
    site_settings: Settings, tmp_path: Path
) -> None:
    settings = _without_stored_previews(
        site_settings, tmp_path, preview_drawings_per_minute=1, preview_drawings_burst=2
    )
    papers = _day_papers(settings)
    asked = [(ONE_CLIENT, papers[0]), (ONE_CLIENT, papers[1]), (ONE_CLIENT, papers[2])]
    asked += [(ANOTHER_CLIENT, papers[3]), (ONE_CLIENT, papers[0])]
    with served(create_app(settings)) as base_url:
        answers = [
            httpx.get(f"{base_url}/previews/papers/{paper}.png", headers={"X-Forwarded-For": who})
            for who, paper in asked
        ]
    # The last is the first image again, kept since it was drawn: it costs nothing.
    assert [answer.status_code for answer in answers] == [200, 200, 429, 200, 200]
    assert int(answers[2].headers["retry-after"]) >= 1
    assert "too many previews" in answers[2].text


def test_the_daily_jobs_stored_previews_are_served_from_their_files_at_no_cost(
    site_settings: Settings, tmp_path: Path
) -> None:
    settings = _without_stored_previews(
        site_settings, tmp_path, preview_drawings_per_minute=1, preview_drawings_burst=1
    )
    with open_engine(settings) as engine:
        report = draw_published(settings, make_session_factory(engine), LAST_DAY)
    papers = _day_papers(settings)
    directory = previews_directory(tmp_path)
    assert report.drawn >= len(papers) + 3  # the papers, their topics, the three editions
    assert all(stored_path(directory, ("paper", paper)).is_file() for paper in papers)
    with served(create_app(settings)) as base_url:
        answers = {
            paper: httpx.get(
                f"{base_url}/previews/papers/{paper}.png", headers={"X-Forwarded-For": ONE_CLIENT}
            )
            for paper in papers[:6]
        }
        edition = httpx.get(f"{base_url}/previews/day/{LAST_DAY}.png")
    for paper, answer in answers.items():
        assert answer.status_code == 200  # six images, though the client may have one drawn
        assert answer.content == stored_path(directory, ("paper", paper)).read_bytes()
    assert edition.content == stored_path(directory, ("day", LAST_DAY.isoformat())).read_bytes()


def test_the_daily_job_draws_again_only_the_images_whose_words_changed(
    site_settings: Settings, tmp_path: Path
) -> None:
    settings = _without_stored_previews(site_settings, tmp_path)
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        first = draw_published(settings, sessions, LAST_DAY)
        edition = stored_path(previews_directory(tmp_path), ("day", LAST_DAY.isoformat()))
        os.utime(edition, (0, 0))
        again = draw_published(settings, sessions, LAST_DAY)
        spoiled = stored_path(previews_directory(tmp_path), ("paper", _day_papers(settings)[0]))
        spoiled.write_bytes(b"not an image")
        mended = draw_published(settings, sessions, LAST_DAY)
    assert (again.drawn, again.unchanged) == (0, first.drawn)
    assert edition.stat().st_mtime > time.time() - STORED_FOR.total_seconds()  # checked
    assert (mended.drawn, mended.unchanged) == (1, first.drawn - 1)
    assert spoiled.read_bytes().startswith(b"\x89PNG")
    assert mended.lines() == [f"link previews: 1 drawn, {first.drawn - 1} unchanged"]


class _SlowDrawing:
    """A drawing that waits to be let go, counting how often it was started."""

    def __init__(self) -> None:
        self.started, self.released, self.calls = threading.Event(), threading.Event(), 0

    def __call__(self) -> Rendered:
        self.calls += 1
        self.started.set()
        assert self.released.wait(30)
        return rendered(b"\x89PNG drawn")


def test_fifty_asking_for_an_image_while_it_is_drawn_wait_for_that_one_drawing(
    tmp_path: Path,
) -> None:
    # The client may start one drawing: a second would be refused.
    drawings = PreviewDrawings(tmp_path, RateLimiter(per_minute=1, burst=1))
    slow, key = _SlowDrawing(), ("paper", "2512.00001")

    async def scenario() -> list[Rendered]:
        asked = [asyncio.ensure_future(drawings.image(key, "a", slow)) for _ in range(AT_ONCE)]
        await asyncio.to_thread(slow.started.wait, 30)
        while drawings.waiting_for(key) < AT_ONCE:  # every request joined the one drawing
            await asyncio.sleep(0.01)
        slow.released.set()
        return list(await asyncio.gather(*asked))

    images = asyncio.run(asyncio.wait_for(scenario(), 60))
    drawings.close()
    assert slow.calls == 1
    assert {image.body for image in images} == {b"\x89PNG drawn"}
    assert drawings.waiting_for(key) == 0


def test_a_site_stopped_and_started_again_still_draws_previews(
    site_settings: Settings, tmp_path: Path
) -> None:
    app = create_app(_without_stored_previews(site_settings, tmp_path))
    for _ in range(2):
        with TestClient(app) as client:
            answer = client.get(f"/previews/papers/{_day_papers(site_settings)[0]}.png")
            assert answer.status_code == 200 and answer.content.startswith(b"\x89PNG")


def test_a_stored_image_the_daily_job_no_longer_checks_is_drawn_again_on_demand(
    site_settings: Settings, tmp_path: Path
) -> None:
    paper = _day_papers(site_settings)[0]
    stored = stored_path(previews_directory(tmp_path), ("paper", paper))
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"an image of words since changed")
    long_ago = time.time() - STORED_FOR.total_seconds() - 60
    os.utime(stored, (long_ago, long_ago))
    with TestClient(create_app(_without_stored_previews(site_settings, tmp_path))) as client:
        answer = client.get(f"/previews/papers/{paper}.png")
    assert answer.status_code == 200 and answer.content.startswith(b"\x89PNG")


def test_past_the_drawing_queue_the_site_says_it_is_busy(tmp_path: Path) -> None:
    drawings = PreviewDrawings(
        tmp_path, RateLimiter(per_minute=0, burst=1), DrawingLimits(workers=1, waiting=0)
    )
    slow = _SlowDrawing()

    async def scenario() -> tuple[DrawingRefusedError, Rendered]:
        first = asyncio.ensure_future(drawings.image(("topic", "1"), "a", slow))
        await asyncio.to_thread(slow.started.wait, 30)
        with pytest.raises(DrawingRefusedError) as refused:
            await drawings.image(("topic", "2"), "b", slow)
        slow.released.set()
        return refused.value, await first

    refused, drawn = asyncio.run(scenario())
    drawings.close()
    assert (refused.status, refused.retry_after) == (503, 5)
    assert drawn.body == b"\x89PNG drawn"
