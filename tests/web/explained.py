"""A small site whose editions were built by a scorer that gives chances and reasons.

The package's site (``conftest.py``) is ranked by the shipped scorer, which may or may not
fill them; this one always has them. It lives in its own database (a file, or a scratch
database on the PostgreSQL server the suite runs on), so the package's site stays as built.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient

from accounts import votes
from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import HfDailyPaper
from app.core.schema import upgrade_to_head
from app.web.app import create_app
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from ranking.editions import publish
from ranking.embeddings import import_matrix
from tests.conftest import TEST_DATABASE_ENV
from tests.postgres import scratch_postgres_database
from tests.ranking.conftest import sample_vectors
from tests.ranking.explaining import AUTHORS, ExplainingScorer

DAY = date(2025, 12, 19)
WEEK = "2025-W51"
# The first has the day's best chance and community counts, the second a chance under 1%,
# the third neither a chance nor reasons.
TOP, RARE, PLAIN = "2512.90011", "2512.90012", "2512.90013"
CHANCES = {TOP: 0.123456, RARE: 0.004}
TOP_WORDS, RARE_WORDS = "12% chance to be featured", "under 1% chance to be featured"


@contextmanager
def explained_site(data_dir: Path, authors: str = AUTHORS) -> Iterator[TestClient]:
    """A client of the site, its day and week editions built by an ``ExplainingScorer`` whose
    author reason reads ``authors``."""
    with _database_url(data_dir) as url:
        settings = get_settings(
            database_url=url,
            data_dir=data_dir,
            api_rate_limit_per_minute=0,
            search_semantic=False,
        )
        _fill(settings, authors)
        with TestClient(create_app(settings)) as client:
            yield client


@contextmanager
def _database_url(data_dir: Path) -> Iterator[str]:
    server_url = os.environ.get(TEST_DATABASE_ENV)
    if not server_url:
        yield f"sqlite:///{data_dir / 'explained.sqlite3'}"
        return
    with scratch_postgres_database(server_url, "paperboy_explained") as url:
        yield url


def _fill(settings: Settings, authors: str) -> None:
    ids = [TOP, RARE, PLAIN]
    borrowed = list(sample_vectors().values())[: len(ids)]
    scorer = ExplainingScorer({TOP: 2.0, RARE: 1.0, PLAIN: 0.5}, CHANCES, authors=authors)
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
        with session_scope(make_session_factory(engine)) as session:
            store_records(session, [_record(arxiv_id) for arxiv_id in ids])
            session.flush()
            import_matrix(session, np.stack(borrowed), ids, settings.embedding_model)
            session.add(_upvotes(TOP, 42, stars=10))
            votes.cast(session, "ada@example.org", TOP, datetime(2025, 12, 19, 9, tzinfo=UTC))
            for period in ("day", "week"):
                publish(session, period, DAY, scorer, settings)


def _record(arxiv_id: str) -> PaperRecord:
    return PaperRecord(
        arxiv_id=arxiv_id,
        version=1,
        title=f"Paper {arxiv_id}",
        abstract="An abstract.",
        authors=("Ada Lovelace",),
        categories=("cs.LG",),
        primary_category="cs.LG",
        announced_on=DAY,
    )


def _upvotes(arxiv_id: str, upvotes: int, stars: int) -> HfDailyPaper:
    return HfDailyPaper(
        daily_date=DAY,
        arxiv_id=arxiv_id,
        upvotes=upvotes,
        github_stars=stars,
        ai_keywords=[],
        fetched_at=datetime(2025, 12, 19, 12, tzinfo=UTC),
    )
