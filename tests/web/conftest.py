"""One real migrated database for the web tests: the bundled sample, ranked into editions.

It is filled once for the package (importing, ranking and splitting the names into people
take seconds) and emptied after; the web tests only read. Besides the 491 real papers it holds
a few hostile ones (markup, template syntax, broken LaTeX, right-to-left marks) and an
old-style identifier. The browser tests share a served site and Debian's chromium, one of
each per module.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import Engine, select

from app.cli.main import main
from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, session_scope
from app.core.models import Base, Edition, EditionItem, HfDailyPaper
from app.web.app import create_app
from ingest.hf_thumbnails import Thumbnail, small_image, store_thumbnails
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from ranking.embeddings import import_matrix
from tests.conftest import SAMPLE_PATH
from tests.ranking.conftest import SAMPLE_IDS, SAMPLE_MATRIX, sample_vectors
from tests.servers import served

DAYS = ("2025-12-17", "2025-12-18", "2025-12-19")
LAST_DAY = date(2025, 12, 19)
HOSTILE_ID = "2512.99901"
OLD_STYLE_ID = "hep-th/9901001"
HOSTILE_TITLE = '<script>alert(1)</script> "><img src=x onerror=alert(2)> {{ 7*7 }} {% raw %}'
HOSTILE_ABSTRACT = (
    "We bound $\\frac{1}{ unbalanced and \\begin{align} never closed. "
    "\u202eRight-to-left\u202c and \u200fmarks. <b>bold</b> {{ config }} <!-- comment"
)
HOSTILE_AUTHOR = '"><img src=x onerror=alert(3)>'
HF_PAPER = "2512.14133"
HF_SUBMITTER = "taesiri"
HOSTILE_SUMMARY = "<script>alert(5)</script> A <b>bold</b> claim {{ 7*7 }} about $\\alpha$."
HF_DISCUSSION = "690813a7812eca10f9cc5e09"
# Papers of the last day's edition given a thumbnail (generated, stored as ingest stores it).
THUMBNAILED = 20
HOSTILE_SUBMITTED_AT = datetime(2025, 12, 17, 15, 30, 5, tzinfo=UTC)
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def hostile_records() -> list[PaperRecord]:
    return [
        PaperRecord(
            arxiv_id=HOSTILE_ID,
            version=1,
            title=HOSTILE_TITLE,
            abstract=HOSTILE_ABSTRACT,
            authors=("José Pérez", HOSTILE_AUTHOR, "Jose Perez"),
            categories=("cs.LG",),
            primary_category="cs.LG",
            comment=(
                "Accepted at NeurIPS; code is available at https://github.com/example/hostile "
                '(javascript:alert(4) "quoted")'
            ),
            announced_on=LAST_DAY,
            submitted_at=HOSTILE_SUBMITTED_AT,
        ),
        PaperRecord(
            arxiv_id=OLD_STYLE_ID,
            version=2,
            title="Old-style identifiers still work",
            abstract="A string theory abstract.",
            authors=("Ada Lovelace",),
            categories=("hep-th",),
            primary_category="hep-th",
            announced_on=None,
        ),
    ]


def _settings(engine: Engine, data_dir: Path, **overrides: object) -> Settings:
    url = engine.url.render_as_string(hide_password=False)
    return get_settings(database_url=url, data_dir=data_dir, **overrides)


def _fill(settings: Settings, engine: Engine) -> None:
    assert main(["import", str(SAMPLE_PATH), "--quiet"], settings) == 0
    args = ["import-embeddings", "--matrix", str(SAMPLE_MATRIX), "--ids", str(SAMPLE_IDS)]
    assert main([*args, "--quiet"], settings) == 0
    borrowed = sample_vectors()[HF_PAPER]
    with session_scope(make_session_factory(engine)) as session:
        store_records(session, hostile_records())
        session.flush()
        import_matrix(session, np.stack([borrowed]), [HOSTILE_ID], settings.embedding_model)
        session.add(_hf_signal())
    for day in DAYS:
        assert main(["rank", "--date", day], settings) == 0
        assert main(["publish", "--date", day], settings) == 0
    assert main(["week-review", "--date", DAYS[-1]], settings) == 0
    assert main(["people"], settings) == 0
    _store_thumbnails(engine)


def _store_thumbnails(engine: Engine) -> None:
    """A thumbnail for the first papers of the last day's edition and for the paper on Hugging
    Face, each its own colour."""
    with session_scope(make_session_factory(engine)) as session:
        ids = session.scalars(
            select(EditionItem.arxiv_id)
            .join(Edition, Edition.id == EditionItem.edition_id)
            .where(Edition.period == "day", Edition.edition_date == LAST_DAY)
            .order_by(EditionItem.position)
            .limit(THUMBNAILED)
        ).all()
        made = [
            Thumbnail(arxiv_id, f"https://cdn.example/{arxiv_id}.png", _picture(number))
            for number, arxiv_id in enumerate([*ids, HF_PAPER])
        ]
        store_thumbnails(session, made, datetime(2025, 12, 19, 12, tzinfo=UTC))


def _picture(number: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1200, 648), (number * 11 % 256, 120, 200)).save(out, "PNG")
    return small_image(out.getvalue(), max_pixels=10_000_000)


def _hf_signal() -> HfDailyPaper:
    return HfDailyPaper(
        daily_date=date(2025, 12, 18),
        arxiv_id=HF_PAPER,
        upvotes=42,
        num_comments=3,
        github_repo="https://github.com/example/animamimic",
        github_stars=10,
        ai_keywords=["3D animation", "video diffusion"],
        submitted_on_daily_at=datetime(2025, 12, 18, 0, 17, 1, 674000, tzinfo=UTC),
        published_at=datetime(2025, 12, 16, 17, 51, 38, tzinfo=UTC),
        project_page="https://animamimic.github.io/",
        submitted_by=HF_SUBMITTER,
        organization_name="ByteDance-Seed",
        organization_fullname="ByteDance Seed",
        fetched_at=datetime(2025, 12, 18, 12, tzinfo=UTC),
        ai_summary=HOSTILE_SUMMARY,
        discussion_id=HF_DISCUSSION,
    )


@pytest.fixture(scope="package")
def site_settings(
    migrated_engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    """Settings of the filled database (no rate limits, keyword search only: no model)."""
    data_dir = tmp_path_factory.mktemp("web")
    settings = _settings(
        migrated_engine,
        data_dir,
        api_rate_limit_per_minute=0,
        preview_drawings_per_minute=0,
        search_semantic=False,
    )
    _fill(settings, migrated_engine)
    yield settings
    with migrated_engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())


@pytest.fixture(scope="package")
def client(site_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(site_settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def base_url(site_settings: Settings) -> Iterator[str]:
    """The filled site served by uvicorn on a free port, for a real browser."""
    with served(create_app(site_settings)) as url:
        yield url


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks each test that drives the browser ``browser``: .ci/run's PostgreSQL passes leave
    them out (``-m "not browser"``), as what they check does not depend on the database."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, driven by Playwright; a module using it skips where either is missing."""
    sync_api: Any = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()
