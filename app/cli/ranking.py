"""``paperboy embed | import-embeddings | rank | publish | run-daily``: the ranking pipeline.

Each handler opens one engine and one session scope per step, so a step commits only when it
has finished and a crash leaves the database as it was before that step.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import numpy as np
from sqlalchemy.orm import Session
from tqdm import tqdm

from app.cli import ingest as ingest_commands
from app.cli.common import job_session, parse_day
from app.core.config import Settings
from app.core.vectors import BadVectorsError
from ranking.editions import Publication
from ranking.embedder import make_embedder
from ranking.embeddings import check_matrix, count_papers, embed_papers, import_matrix
from ranking.errors import RankingInputError
from ranking.pipeline import default_scorer, publish_periods, rank_day, refresh_editions
from ranking.scoring import Scorer


@contextmanager
def progress_bar(total: int, unit: str, quiet: bool) -> Iterator[Callable[[int], None]]:
    show = not quiet and sys.stderr.isatty()
    with tqdm(total=total, unit=unit, disable=not show, file=sys.stderr) as bar:

        def advance(done: int) -> None:
            bar.update(done)

        yield advance


def add_embed_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every stored paper")
    which.add_argument("--date", type=parse_day, help="papers announced on this day")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_embed(args: argparse.Namespace, settings: Settings) -> int:
    embed_day(settings, None if args.all else args.date, quiet=args.quiet)
    return 0


def embed_day(settings: Settings, day: date | None, *, quiet: bool = True) -> None:
    embedder = make_embedder(settings)
    with job_session(settings) as session:
        total = count_papers(session, day)
        with progress_bar(total, "paper", quiet) as update:
            summary = embed_papers(session, embedder, day=day, progress=update)
    print(f"embedded ({embedder.model}) {summary.line()}")


def add_import_embeddings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--matrix", type=Path, required=True, help="X.npy, one row per id")
    parser.add_argument("--ids", type=Path, required=True, help="X.ids.json, a JSON list of ids")
    parser.add_argument("--model", help="model the vectors were made with (default: the setting)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_import_embeddings(args: argparse.Namespace, settings: Settings) -> int:
    try:
        vectors, ids = check_matrix(_read_matrix(args.matrix), _read_ids(args.ids))
    except (BadVectorsError, OSError) as error:
        print(f"paperboy import-embeddings: {error}", file=sys.stderr)
        return 1
    model = args.model or settings.embedding_model
    with job_session(settings) as session, progress_bar(len(ids), "vector", args.quiet) as update:
        summary = import_matrix(session, vectors, ids, model, update)
    print(f"imported embeddings ({model}) {summary.line()}")
    return 0


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


def add_day_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--date", type=parse_day, required=True, help="announcement day")


def run_rank(args: argparse.Namespace, settings: Settings) -> int:
    return _reporting_input_errors("rank", lambda: rank(settings, args.date))


def rank(settings: Settings, day: date) -> None:
    with job_session(settings) as session:
        topics, edition = rank_day(session, day, settings, default_scorer(settings, session))
    print(topics.line())
    print(edition.line())


def run_publish(args: argparse.Namespace, settings: Settings) -> int:
    return _reporting_input_errors("publish", lambda: publish_day(settings, args.date))


def publish_day(settings: Settings, day: date) -> None:
    _print_editions(settings, day, publish_periods)


def run_refresh_editions(args: argparse.Namespace, settings: Settings) -> int:
    """Rebuild the day's editions with the signals seen so far (the scheduler's signals job)."""
    return _reporting_input_errors(
        "refresh-editions", lambda: _print_editions(settings, args.date, refresh_editions)
    )


def _print_editions(
    settings: Settings,
    day: date,
    build: Callable[[Session, date, Settings, Scorer], list[Publication]],
) -> None:
    with job_session(settings) as session:
        editions = build(session, day, settings, default_scorer(settings, session))
    for edition in editions:
        print(edition.line())


def add_daily_arguments(parser: argparse.ArgumentParser) -> None:
    add_day_argument(parser)
    parser.add_argument(
        "--skip-ingest", action="store_true", help="rank what is stored; fetch nothing"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_daily(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest, embed, rank, publish: in order, each step its own unit of work.

    A failed ingest stops the chain (nothing is published from a day that failed to arrive);
    a partial or stale one lets it go on and sets the exit status to 2.
    """
    status = 0
    if not args.skip_ingest:
        ingest_args = argparse.Namespace(date=args.date, source="all", categories=None)
        status = ingest_commands.run_ingest(ingest_args, settings)
        if status == 1:
            print("paperboy run-daily: ingest failed; nothing ranked", file=sys.stderr)
            return 1

    def steps() -> None:
        embed_day(settings, args.date, quiet=args.quiet)
        rank(settings, args.date)
        publish_day(settings, args.date)

    return _reporting_input_errors("run-daily", steps) or status


def _reporting_input_errors(command: str, step: Callable[[], None]) -> int:
    try:
        step()
    except RankingInputError as error:
        print(f"paperboy {command}: {error}", file=sys.stderr)
        return 1
    return 0
