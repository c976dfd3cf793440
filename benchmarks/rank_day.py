"""Time to build topics and an edition for the corpus's largest day and for a month.

    .venv/bin/python benchmarks/rank_day.py [--corpus ...jsonl.gz] [--matrix ...f16.npy]

Imports the real corpus into a scratch SQLite database with the precomputed vectors of the
days needed, then times, through the same code ``paperboy rank`` runs:

- the days before 2026-06-02, the largest day (713 papers first listed), ranked as the daily
  job ranks them (labels by meaning, so the phrases they embed are kept as in production);
- ``paperboy rank`` on the largest day, ranked for the first time, as a user runs it: its own
  process with every default on, ``--runs`` times, each on a fresh copy of the store (median);
- ``rank_day`` on the largest day (topics with the window, then the edition), without labels
  by meaning, which load the model;
- every announcement day of March 2026, then the month's edition (6,083 papers);
- clustering March's 6,083 vectors in one go (the pure code, with labels).

The peer, in the same run: scikit-learn's HDBSCAN on the raw 384-d vectors of the largest
day's window: a density clustering that is quadratic in the window's size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

from sklearn.cluster import HDBSCAN
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import Paper
from app.services import editions
from benchmarks.corpus_data import CORPUS, MATRIX, prepare_database
from ranking.day_topics import load_window
from ranking.editions import publish
from ranking.labels import label_clusters, representatives
from ranking.onnx_encoder import prepare_query_model
from ranking.pipeline import default_scorer, rank_day
from ranking.topics import TopicParams, centroids, cluster

LARGEST_DAY = date(2026, 6, 2)
T = TypeVar("T")
MONTH = (date(2026, 3, 1), date(2026, 3, 31))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--runs", type=int, default=5, help="runs of the shipped command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch) / "store")
        days = prepare(settings, args.corpus, args.matrix)
        measure(settings, days, args.runs)


def prepare(settings: Settings, corpus: Path, matrix: Path) -> list[date]:
    spans = [(MONTH[0] - _days(10), MONTH[1]), (LARGEST_DAY - _days(14), LARGEST_DAY)]
    return prepare_database(settings, corpus, matrix, spans)


def _days(count: int) -> timedelta:
    return timedelta(days=count)


def measure(settings: Settings, days: list[date], runs: int) -> None:
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        peer = hdbscan_peer(settings, sessions)
        # The daily job's embed step builds the int8 query model before rank runs.
        prepare_query_model(settings)
        for day in (d for d in days if LARGEST_DAY - _days(14) <= d < LARGEST_DAY):
            editions.rank(settings, sessions, day)
    shipped_command(settings, runs)
    with open_engine(settings) as engine:
        sessions = make_session_factory(engine)
        largest = rank(settings, sessions, LARGEST_DAY)
        print(
            f"rank_day {LARGEST_DAY}, 7-day window: {largest:.2f} s ({peer / largest:.1f} x peer)"
        )
        march = [d for d in days if d <= MONTH[1]]
        times = [rank(settings, sessions, d) for d in march][-_march_days(march) :]
        print(
            f"rank_day over March's {len(times)} days: median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s"
        )
        month_edition(settings, sessions)
        month_clustering(settings, sessions)


def _march_days(days: list[date]) -> int:
    return sum(1 for d in days if d >= MONTH[0])


def rank(settings: Settings, sessions: sessionmaker[Session], day: date) -> float:
    """Wall seconds; CPU seconds of this process are printed for the largest day too."""
    started, cpu = time.perf_counter(), time.process_time()
    with session_scope(sessions) as session:
        rank_day(session, day, settings, default_scorer(settings, session))
    if day == LARGEST_DAY:
        print(f"  {LARGEST_DAY}: {time.process_time() - cpu:.2f} CPU s in this process")
    return time.perf_counter() - started


def month_edition(settings: Settings, sessions: sessionmaker[Session]) -> None:
    started = time.perf_counter()
    with session_scope(sessions) as session:
        edition = publish(session, "month", MONTH[1], default_scorer(settings, session), settings)
    seconds = time.perf_counter() - started
    print(f"month edition {edition.key} ({edition.pool_size} papers): {seconds:.2f} s")


def month_clustering(settings: Settings, sessions: sessionmaker[Session]) -> None:
    with session_scope(sessions) as session:
        march = session.scalars(
            select(Paper.announced_on)
            .where(Paper.announced_on >= MONTH[0], Paper.announced_on <= MONTH[1])
            .distinct()
        ).all()
        month_settings = settings.model_copy(update={"topic_window_days": len(march)})
        window = load_window(session, MONTH[1], month_settings)
    started = time.perf_counter()
    labels = cluster(window.vectors, TopicParams(settings.topic_size, settings.topic_min_size))
    centres = centroids(window.vectors, labels)
    label_clusters(window.texts, representatives(window.vectors, labels, centres))
    seconds = time.perf_counter() - started
    print(
        f"clustering March in one go ({len(window.vectors)} papers, {len(centres)} topics, "
        f"labels included): {seconds:.2f} s"
    )


def shipped_command(settings: Settings, runs: int) -> None:
    """``paperboy rank`` on the largest day, as a user runs it: its own process, every default
    on (topic labels by meaning embed their new phrases with the int8 query model, which the
    embed step has built), each run on a fresh copy of the store, where the day is not ranked
    yet; and, apart, the seconds a process takes only to import the command line's modules."""
    command = [sys.executable, "-m", "app.cli.main", "rank", "--date", LARGEST_DAY.isoformat()]
    totals = [_on_a_copy(settings.data_dir, partial(_wall, command)) for _ in range(runs)]
    modules = _on_a_copy(settings.data_dir, _command_modules)
    importing = [sys.executable, "-c", _IMPORT_ALL.format(modules=modules)]
    imports = min(_wall(importing, _environment(settings.data_dir)) for _ in range(runs))
    total = statistics.median(totals)
    print(
        f"paperboy rank --date {LARGEST_DAY} as shipped, first time, median of {runs}: "
        f"{total:.2f} s ({', '.join(f'{t:.2f}' for t in totals)}), of which importing the "
        f"modules it loads {imports:.2f} s: {total - imports:.2f} s beyond imports"
    )


def _on_a_copy(data_dir: Path, work: Callable[[dict[str, str]], T]) -> T:
    """``work`` given the environment of a fresh copy of the store at ``data_dir``."""
    copy = data_dir.with_name("copy")
    shutil.copytree(data_dir, copy)
    try:
        return work(_environment(copy))
    finally:
        shutil.rmtree(copy)


def _environment(data_dir: Path) -> dict[str, str]:
    return {**os.environ, "PAPERBOY_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}


_IMPORT_ALL = """
import importlib
for name in {modules!r}:
    try:
        importlib.import_module(name)
    except Exception:
        pass
"""
_LIST_MODULES = """
import contextlib, io, sys
from app.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["rank", "--date", "{day}"])
print("\\n".join(sys.modules))
"""


def _command_modules(env: dict[str, str]) -> list[str]:
    """Every module a ``paperboy rank`` process holds when it ends, in the order it loaded
    them: importing them all in a fresh process is the command's import time."""
    listing = [sys.executable, "-c", _LIST_MODULES.format(day=LARGEST_DAY.isoformat())]
    shown = subprocess.run(listing, env=env, check=True, capture_output=True, text=True).stdout
    return [name for name in shown.split() if not name.startswith("__")]


def _wall(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def hdbscan_peer(settings: Settings, sessions: sessionmaker[Session]) -> float:
    with session_scope(sessions) as session:
        window = load_window(session, LARGEST_DAY, settings)
    started = time.perf_counter()
    HDBSCAN(min_cluster_size=settings.topic_min_size).fit(window.vectors)
    seconds = time.perf_counter() - started
    print(
        f"peer: HDBSCAN on the raw vectors of {LARGEST_DAY}'s window "
        f"({len(window.vectors)} papers): {seconds:.2f} s"
    )
    return seconds


if __name__ == "__main__":
    main()
