"""The store as a whole, as the commands that work on it see it: migrated to the newest
revision with its search indexes completed (``paperboy migrate``), filled from files (papers
from JSON lines by ``paperboy import`` and the demo's bundled sample, the work being
:mod:`ingest.bulk.importer`'s; a precomputed matrix with its ids, read and checked, by
``paperboy import-embeddings``), and what it holds, in numbers (``paperboy stats``).

``RankingInputError`` is what the ranking commands raise when what is stored cannot be ranked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.models import Author, Paper, PaperCategory
from app.core.schema import migrate
from app.core.vectors import BadVectorsError, Matrix
from ingest.bulk.chunk_reader import Rejection as Rejection
from ingest.bulk.importer import ImportSummary as ImportSummary
from ingest.bulk.importer import import_file
from ranking.embeddings import check_matrix
from ranking.errors import RankingInputError as RankingInputError
from search.database_indexes import PLACE_LINES, search_place
from search.database_indexes import complete as complete_search_indexes
from search.word_index_load import WordIndexAfterLoad


def migrate_store(engine: Engine, settings: Settings | None = None) -> list[str]:
    """Migrate and complete the indexes, and with ``settings`` build the web's query model
    if missing; what was done and where searches run, in lines."""
    done = migrate(engine)
    lines = [f"{done.describe()}: {engine.url.render_as_string(hide_password=True)}"]
    complete_search_indexes(engine)
    lines.append(PLACE_LINES[search_place(engine)])
    if settings is not None and (built := _query_model_built(settings)) is not None:
        lines.append(built)
    return lines


def _query_model_built(settings: Settings) -> str | None:
    """The int8 query model the web's searches read, built here (with torch) unless it is
    built already, so that no web process ever loads torch to build it."""
    if not settings.search_semantic or settings.search_query_backend != "onnx-int8":
        return None
    from ranking.onnx_encoder import prepare_query_model, query_model_path  # onnxruntime: here

    if query_model_path(settings).exists():
        return None
    return f"built the search query model: {prepare_query_model(settings)}"


def import_papers(
    sessions: sessionmaker[Session],
    path: Path,
    *,
    show_progress: bool = False,
    on_rejection: Callable[[Rejection], None] = lambda _: None,
    index_workers: int | None = None,
) -> ImportSummary:
    """Import ``path``; with ``index_workers``, the word index of a first PostgreSQL import is
    computed once after its rows, by that many statements at once."""
    deferred = () if index_workers is None else (WordIndexAfterLoad(index_workers),)
    return import_file(
        path,
        sessions,
        show_progress=show_progress,
        on_rejection=on_rejection,
        deferred_work=deferred,
    )


def read_vector_files(matrix: Path, ids_file: Path) -> tuple[Matrix, list[str]]:
    """The normalised matrix of ``matrix`` (.npy) and the ids of ``ids_file`` (a JSON list);
    ``BadVectorsError`` if they do not fit, ``OSError`` if one cannot be read."""
    return check_matrix(_read_matrix(matrix), _read_ids(ids_file))


def _read_matrix(path: Path) -> np.ndarray:
    try:
        matrix: np.ndarray = np.load(path, allow_pickle=False)
    except ValueError as error:
        raise BadVectorsError(f"{path} is not a .npy matrix: {error}") from None
    return matrix


def _read_ids(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise BadVectorsError(f"{path} is not JSON: {error}") from None


@dataclass(frozen=True, slots=True)
class StoreOverview:
    papers: int
    authors: int
    first_announcement: date | None
    last_announcement: date | None
    papers_per_day: list[tuple[date, int]]
    top_categories: list[tuple[str, int]]
    latest_titles: list[tuple[str, str]]


def describe_store(session: Session, *, days: int = 7, categories: int = 8) -> StoreOverview:
    announced = Paper.announced_on
    first, last = session.execute(select(func.min(announced), func.max(announced))).one()
    per_day = session.execute(
        select(announced, func.count())
        .where(announced.is_not(None))
        .group_by(announced)
        .order_by(announced.desc())
        .limit(days)
    ).all()
    top = session.execute(
        select(PaperCategory.category, func.count())
        .group_by(PaperCategory.category)
        .order_by(func.count().desc(), PaperCategory.category)
        .limit(categories)
    ).all()
    latest = session.execute(
        select(Paper.arxiv_id, Paper.title)
        .order_by(announced.desc().nulls_last(), Paper.arxiv_id.desc())
        .limit(5)
    ).all()
    return StoreOverview(
        papers=session.scalar(select(func.count()).select_from(Paper)) or 0,
        authors=session.scalar(select(func.count()).select_from(Author)) or 0,
        first_announcement=first,
        last_announcement=last,
        papers_per_day=[(day, count) for day, count in reversed(per_day) if day is not None],
        top_categories=[(name, count) for name, count in top],
        latest_titles=[(arxiv_id, title) for arxiv_id, title in latest],
    )


def format_overview(overview: StoreOverview) -> str:
    lines = [
        f"papers stored: {overview.papers}",
        f"authors: {overview.authors}",
        f"announced: {overview.first_announcement} .. {overview.last_announcement}",
        "papers per announcement day (latest):",
        *(f"  {day}  {count}" for day, count in overview.papers_per_day),
        "top categories:",
        *(f"  {name:<10} {count}" for name, count in overview.top_categories),
        "latest papers:",
        *(f"  {arxiv_id}  {title}" for arxiv_id, title in overview.latest_titles),
    ]
    return "\n".join(lines)
