"""Loading the corpus's precomputed vectors into PostgreSQL with pgvector: an empty store.

    .venv/bin/python benchmarks/import_embeddings.py --prepare [--postgres URL]
    .venv/bin/python benchmarks/import_embeddings.py [--postgres URL] [--matrix ...f16.npy]

``--prepare`` makes a fresh database ``paperboy_bench_vectors`` on the server (pgvector needed,
``make pgvector-server``), migrates it and imports the 74,728-paper corpus, once. Each run
then empties ``paper_embeddings`` and times what ``paperboy import-embeddings`` does with the
whole matrix in one transaction (``ranking.embeddings.import_matrix``), the HNSW index
included, and prints seconds and vectors/s.

Only the timed step imports the code under test, so with ``PYTHONPATH`` at another checkout
(``benchmarks/alternate.sh``) the same prepared database measures an older commit: run this
file by its path there, since the older tree may not have it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

DEFAULT_SERVER = "postgresql+psycopg://paperboy:paperboy@127.0.0.1:5433/postgres"
DATABASE = "paperboy_bench_vectors"
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "corpus"
CORPUS = DATA / "arxiv_listings_2025-03-18_2026-07-01.jsonl.gz"
MATRIX = DATA / "embeddings_all-MiniLM-L6-v2.f16.npy"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=DEFAULT_SERVER, help="server URL, any database")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--prepare", action="store_true", help="make and fill the database")
    args = parser.parse_args()
    url = make_url(args.postgres).set(database=DATABASE)
    if args.prepare:
        prepare(args.postgres, url.render_as_string(hide_password=False), args.corpus)
    else:
        measure(url.render_as_string(hide_password=False), args.matrix)


def prepare(server: str, url: str, corpus: Path) -> None:
    from app.core.config import Settings
    from app.core.db import make_engine, make_session_factory
    from app.core.schema import upgrade_to_head
    from ingest.bulk.importer import import_file

    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"DROP DATABASE IF EXISTS {DATABASE}"))
        connection.execute(text(f"CREATE DATABASE {DATABASE}"))
    admin.dispose()
    settings = Settings(database_url=url)
    engine = make_engine(settings)
    upgrade_to_head(engine)
    started = time.perf_counter()
    import_file(corpus, make_session_factory(engine))
    print(f"prepared: corpus imported in {time.perf_counter() - started:.0f} s")


def measure(url: str, matrix: Path) -> None:
    from app.core.config import Settings
    from app.core.db import make_engine, make_session_factory, session_scope
    from app.core.vectors import normalise
    from ranking.embeddings import import_matrix

    ids = json.loads(matrix.with_name(matrix.name.replace(".f16.npy", ".ids.json")).read_text())
    vectors = normalise(np.load(matrix).astype(np.float32))
    engine = make_engine(Settings(database_url=url))
    with engine.begin() as connection:
        connection.execute(text("TRUNCATE paper_embeddings"))
    sessions = make_session_factory(engine)
    started = time.perf_counter()
    with session_scope(sessions) as session:
        summary = import_matrix(session, vectors, ids, MODEL)
    seconds = time.perf_counter() - started
    print(f"{summary.stored} vectors in {seconds:.1f} s: {summary.stored / seconds:,.0f} vectors/s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
