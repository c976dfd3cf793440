"""Shared by the ranking benchmarks: read the corpus and its precomputed vectors by path."""

from __future__ import annotations

import argparse
import gzip
import json
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.schema import upgrade_to_head
from app.core.vectors import Matrix, normalise
from ingest.bulk.importer import import_file
from ranking.embeddings import embedding_text, import_matrix

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "corpus"
CORPUS = DATA / "arxiv_listings_2025-03-18_2026-07-01.jsonl.gz"
MATRIX = DATA / "embeddings_all-MiniLM-L6-v2.f16.npy"
# Seven announcement days span at most about ten calendar days; two weeks is safe.
WINDOW_LEAD = timedelta(days=14)


@dataclass(frozen=True, slots=True)
class CorpusPaper:
    arxiv_id: str
    text: str
    announced_on: date
    categories: tuple[str, ...]
    authors: int
    comment: str | None


def read_corpus(path: Path = CORPUS) -> list[CorpusPaper]:
    with gzip.open(path, "rt") as lines:
        return [_paper(json.loads(line)) for line in lines]


def _paper(raw: dict[str, object]) -> CorpusPaper:
    dates = raw["listing_dates"]
    categories = raw["categories"]
    authors = raw["authors"]
    assert isinstance(dates, list) and isinstance(categories, list) and isinstance(authors, list)
    comment = raw.get("comment")
    return CorpusPaper(
        arxiv_id=str(raw["id"]),
        text=embedding_text(str(raw["title"]), str(raw["summary"])),
        announced_on=date.fromisoformat(dates[0]),
        categories=tuple(str(c) for c in categories),
        authors=len(authors),
        comment=comment if isinstance(comment, str) else None,
    )


def read_vectors(matrix: Path = MATRIX) -> dict[str, int]:
    """Row of each id in the matrix file (the ids file sits beside it)."""
    ids = json.loads(matrix.with_name(matrix.name.replace(".f16.npy", ".ids.json")).read_text())
    return {arxiv_id: row for row, arxiv_id in enumerate(ids)}


def vectors_of(matrix: Path, rows: dict[str, int], arxiv_ids: list[str]) -> Matrix:
    stored = np.load(matrix, mmap_mode="r")
    return normalise(np.asarray(stored[[rows[i] for i in arxiv_ids]], dtype=np.float32))


def prepare_database(
    settings: Settings, corpus: Path, matrix: Path, spans: list[tuple[date, date]]
) -> list[date]:
    """Import the whole corpus and the vectors of the papers announced in the spans.

    Vectors are imported from ``WINDOW_LEAD`` earlier, so the first days' windows are whole.
    Returns the announcement days in the spans, in order.
    """
    papers = read_corpus(corpus)
    wanted = [p for p in papers if any(first <= p.announced_on <= last for first, last in spans)]
    led = [(first - WINDOW_LEAD, last) for first, last in spans]
    ids = sorted({p.arxiv_id for p in papers if any(a <= p.announced_on <= b for a, b in led)})
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
        import_file(corpus, make_session_factory(engine))
        with session_scope(make_session_factory(engine)) as session:
            vectors = vectors_of(matrix, read_vectors(matrix), ids)
            import_matrix(session, vectors, ids, settings.embedding_model)
    print(f"prepared: {len(papers)} papers stored, {len(ids)} vectors imported")
    return sorted({p.announced_on for p in wanted})


def add_days_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus, its vectors and the run of announcement days a topics benchmark measures."""
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--first", type=date.fromisoformat, default=date(2026, 5, 1))
    parser.add_argument("--days", type=int, default=30)
