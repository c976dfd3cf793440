"""What splitting names into people costs: every stored name once (``paperboy people``), and
each day's names as the daily chain splits them, against ranking the same day.

    .venv/bin/python -m benchmarks.people_split [--last 2026-07-01] [--days 5]

Imports the whole corpus into a scratch SQLite database with every paper's vector, splits
every name (the first run after migrating: a new person for each), splits every name again
(nothing changes: the cost of a run over a settled store), then for each of the last days
ranks it as ``paperboy rank`` does and splits its names as the daily chain does. Prints the
times and, per day, the split's time over the rank's (a ratio, as these machines are noisy).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from app.services import editions
from app.services.people import PeopleReport, names_of_day, split_names
from benchmarks.corpus_data import CORPUS, MATRIX, prepare_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=date.fromisoformat, default=date(2026, 7, 1))
    parser.add_argument("--days", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch))
        days = prepare_database(settings, CORPUS, MATRIX, [(date(2025, 3, 18), args.last)])
        with open_engine(settings) as engine:
            sessions = make_session_factory(engine)
            for run in ("first", "again"):
                started = time.perf_counter()
                report = split_names(settings, sessions)
                print(f"every name, {run}: {_line(report)}, {time.perf_counter() - started:.1f} s")
            ratios = []
            for day in days[-args.days :]:
                started = time.perf_counter()
                editions.rank(settings, sessions, day)
                ranked = time.perf_counter() - started
                started = time.perf_counter()
                report = split_names(settings, sessions, names_of_day(sessions, day))
                split = time.perf_counter() - started
                ratios.append(split / ranked)
                print(f"{day}: rank {ranked:.2f} s, people {split:.2f} s ({_line(report)})")
            print(f"people / rank, median of {len(ratios)} days: {statistics.median(ratios):.3f}")


def _line(report: PeopleReport) -> str:
    return f"{report.names} names, {report.people} people, {report.new_people} new"


if __name__ == "__main__":
    main()
