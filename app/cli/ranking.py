"""``paperboy embed | import-embeddings | rank | publish | run-daily``: the ranking pipeline.

Each command calls its use case (``app.services.editions``, ``app.services.daily``), prints
the report and exits with its outcome; unusable ranking input is one line on standard error
and exit 1. Every step is one unit of work, so a crash leaves the database as it was before.

Ranking a day makes a great many short-lived objects after importing modules that hold a
great many more. Python collects its youngest objects often, and now and then walks all of
them; for a job of seconds that walking is a large share of its time. So a ranking command
collects less often, and what is alive when it starts (its modules) is frozen, so that
collections no longer walk it (:func:`app.core.heap.collected_rarely`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker
from tqdm import tqdm

from app.cli.common import command_sessions, parse_day, print_error, print_report
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.heap import collected_rarely
from app.core.vectors import BadVectorsError
from app.services import editions
from app.services.daily import DailyReport, flag_week, review_week, run_range
from app.services.daily import run_daily as daily_chain
from app.services.editions import Advance, Progress
from app.services.people import names_of_day, split_names
from app.services.reports import Report
from app.services.store import RankingInputError, read_vector_files


@contextmanager
def progress_bar(total: int, unit: str, quiet: bool) -> Iterator[Advance]:
    """A bar on a terminal; elsewhere (a log file, a unit's journal) a line at every tenth."""
    if quiet or not sys.stderr.isatty():
        with progress_lines(total, unit, quiet) as advance:
            yield advance
        return
    with tqdm(total=total, unit=unit, file=sys.stderr) as bar:

        def update(done: int) -> None:
            bar.update(done)

        yield update


@contextmanager
def progress_lines(total: int, unit: str, quiet: bool) -> Iterator[Advance]:
    done, started = 0, time.monotonic()

    def advance(step: int) -> None:
        nonlocal done
        before, done = done, done + step
        if not quiet and tenths(before, total) < tenths(done, total):
            pace = pace_words(done, total, time.monotonic() - started, unit)
            print(
                f"{unit}s: {done:,} of {total:,} ({done * 100 // total} %){pace}", file=sys.stderr
            )

    yield advance


def pace_words(done: int, total: int, seconds: float, unit: str) -> str:
    """ ", 35.2 papers/s, about 4 min 16 s left": the rate so far and the time it leaves."""
    if done <= 0 or seconds <= 0:
        return ""
    rate = done / seconds
    left = round((total - done) / rate)
    when = "done" if left <= 0 else f"about {_duration(left)} left"
    return f", {rate:,.1f} {unit}s/s, {when}"


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def tenths(done: int, total: int) -> int:
    """How many tenths of ``total`` are done (a line is printed as each is reached)."""
    return done * 10 // total if total else 10


def progress_of(unit: str, quiet: bool, settings: Settings) -> Progress:
    """Progress on standard error, unless quiet or logging JSON (where a line must be JSON)."""

    def start(total: int) -> AbstractContextManager[Advance]:
        return progress_bar(total, unit, quiet or settings.log_json)

    return start


def add_embed_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every stored paper")
    which.add_argument("--date", type=parse_day, help="papers announced on this day")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_embed(args: argparse.Namespace, settings: Settings) -> int:
    day, progress = None if args.all else args.date, progress_of("paper", args.quiet, settings)
    with command_sessions(settings) as sessions:
        try:
            return print_report(editions.embed(settings, sessions, day, progress))
        except RankingInputError as error:
            return print_error("embed", error)


def add_import_embeddings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--matrix", type=Path, required=True, help="X.npy, one row per id")
    parser.add_argument("--ids", type=Path, required=True, help="X.ids.json, a JSON list of ids")
    parser.add_argument("--model", help="model the vectors were made with (default: the setting)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_import_embeddings(args: argparse.Namespace, settings: Settings) -> int:
    return import_embeddings(
        settings, args.matrix, args.ids, args.model or settings.embedding_model, quiet=args.quiet
    )


def import_embeddings(
    settings: Settings, matrix: Path, ids_file: Path, model: str, *, quiet: bool = True
) -> int:
    """Check the matrix and its ids, then store them (the demo imports the sample's so)."""
    try:
        vectors, ids = read_vector_files(matrix, ids_file)
    except (BadVectorsError, OSError) as error:
        return print_error("import-embeddings", error)
    progress = progress_of("vector", quiet, settings)
    with command_sessions(settings) as sessions:
        return print_report(
            editions.import_embeddings(settings, sessions, vectors, ids, model, progress)
        )


def add_day_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--date", type=parse_day, required=True, help="announcement day")


def add_rank_arguments(parser: argparse.ArgumentParser) -> None:
    add_days_arguments(parser, "announcement day")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_days_arguments(parser: argparse.ArgumentParser, day_help: str) -> None:
    """``--date D``, or ``--from D1 --to D2``: every announcement day stored in between."""
    parser.add_argument("--date", type=parse_day, help=day_help)
    parser.add_argument("--from", dest="first", type=parse_day, help="first day of a range")
    parser.add_argument("--to", dest="last", type=parse_day, help="last day of a range")


def days_error(args: argparse.Namespace, date_required: bool) -> str | None:
    """Why ``--date``/``--from``/``--to`` do not name a day or a range, or None."""
    ranged = args.first is not None or args.last is not None
    if ranged and args.date is not None:
        return "give --date or --from and --to, not both"
    if ranged and (args.first is None or args.last is None):
        return "--from and --to go together"
    if ranged and args.first > args.last:
        return f"--from {args.first} is after --to {args.last}"
    if date_required and not ranged and args.date is None:
        return "give --date D, or --from D1 --to D2"
    return None


def run_rank(args: argparse.Namespace, settings: Settings) -> int:
    """One day's topics and edition, or a range filled day by day with its weeks and months."""
    if (problem := days_error(args, date_required=True)) is not None:
        return print_error("rank", problem)
    if args.date is not None:
        day = args.date
        return _step("rank", settings, lambda sessions: editions.rank(settings, sessions, day))
    with command_sessions(settings) as sessions, collected_rarely():
        progress = progress_of("paper", args.quiet, settings)
        report = run_range(settings, sessions, args.first, args.last, progress, embed=False)
    return print_daily(report, "rank")


def run_emerging(args: argparse.Namespace, settings: Settings) -> int:
    return _step("emerging", settings, lambda sessions: flag_week(settings, sessions, args.date))


def add_people_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--date", type=parse_day, help="split only the names of day D's papers (default: all)"
    )


def run_people(args: argparse.Namespace, settings: Settings) -> int:
    def split(sessions: sessionmaker[Session]) -> Report:
        names = None if args.date is None else names_of_day(sessions, args.date)
        return split_names(settings, sessions, names)

    return _step("people", settings, split)


def run_week_review(args: argparse.Namespace, settings: Settings) -> int:
    return _step(
        "week-review", settings, lambda sessions: review_week(settings, sessions, args.date)
    )


def run_publish(args: argparse.Namespace, settings: Settings) -> int:
    return _step(
        "publish", settings, lambda sessions: editions.publish(settings, sessions, args.date)
    )


def _step(command: str, settings: Settings, step: Callable[[sessionmaker[Session]], Report]) -> int:
    """Run one ranking step; unusable input is one line on standard error and exit 1."""
    with command_sessions(settings) as sessions, collected_rarely():
        try:
            return print_report(step(sessions))
        except RankingInputError as error:
            return print_error(command, error)


def add_daily_arguments(parser: argparse.ArgumentParser) -> None:
    add_days_arguments(parser, "announcement day (default: arXiv's latest)")
    parser.add_argument(
        "--skip-ingest", action="store_true", help="rank what is stored; fetch nothing"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_daily(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest, embed, rank, publish (``app.services.daily``); exit 1 if a step failed, 2 if
    ingest was partial or stale. A range is ranked from what is stored (no ingest)."""
    if (problem := days_error(args, date_required=False)) is not None:
        return print_error("run-daily", problem)
    if args.first is not None and not args.skip_ingest:
        return print_error("run-daily", "a range ranks what is stored: add --skip-ingest")
    progress = progress_of("paper", args.quiet, settings)
    with command_sessions(settings, "worker") as sessions:
        if args.first is not None:
            return print_daily(run_range(settings, sessions, args.first, args.last, progress))
        report = daily_chain(
            settings,
            sessions,
            utc_now(),
            args.date,
            skip_ingest=args.skip_ingest,
            progress=progress,
        )
    return print_daily(report)


def print_daily(report: DailyReport, command: str = "run-daily") -> int:
    """What each step did; why the chain stopped on standard error; its exit code."""
    for line in report.step_lines():
        print(line)
    if report.ingest_failed:
        return print_error(command, "ingest failed; nothing ranked")
    if report.ranking_failure is not None:
        return print_error(command, report.ranking_failure.message)
    if not report.days:
        print("no announcement day stored there; nothing ranked")
    return report.outcome.exit_code
