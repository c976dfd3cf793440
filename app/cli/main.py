"""The ``paperboy`` command: every step of the service, runnable by hand.

``COMMANDS`` below is the one list of commands; ``paperboy --help`` prints it. A command's
module is imported when that command runs, not for every command: together they pull in
scikit-learn, the arXiv clients and the web stack, seconds of start-up that a
``paperboy send-digests`` or ``paperboy stats`` has no use for.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import DBAPIError

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.db_faults import quiet_secondary_driver_errors
from app.core.logs import configure_logging, print_or_log_report
from app.core.schema import SchemaOutOfDateError, require_current_schema
from app.core.settings_check import EXIT_REFUSED, database_refusal, said, startup_settings
from app.services.artifacts import EVERY, Artifact, refuse_broken_artifacts
from app.services.store import describe_store, format_overview, migrate_store

Handler = Callable[[argparse.Namespace, Settings], int]


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    handler: Handler
    add_arguments: Callable[[argparse.ArgumentParser], None] = lambda _: None
    # The model files the command loads, checked before it starts.
    uses: Callable[[argparse.Namespace], Collection[Artifact]] = lambda _: ()


@dataclass(frozen=True)
class Deferred:
    """A command's function named by its module, imported only when used, so that a command
    loads its own module alone; tests/app/test_cli.py resolves every one."""

    module: str
    name: str

    def resolve(self) -> Callable[..., Any]:
        function: Callable[..., Any] = getattr(importlib.import_module(self.module), self.name)
        return function


class DeferredHandler(Deferred):
    def __call__(self, args: argparse.Namespace, settings: Settings) -> int:
        handler: Handler = self.resolve()
        return handler(args, settings)


class DeferredArguments(Deferred):
    def __call__(self, parser: argparse.ArgumentParser) -> None:
        self.resolve()(parser)


def _handler(module: str, name: str) -> Handler:
    return DeferredHandler(module, name)


def _arguments(module: str, name: str) -> Callable[[argparse.ArgumentParser], None]:
    return DeferredArguments(module, name)


def _using(*artifacts: Artifact) -> Callable[[argparse.Namespace], Collection[Artifact]]:
    return lambda _args: artifacts


def _jobs_use(args: argparse.Namespace) -> Collection[Artifact]:
    """``jobs run`` may run any job; listing them loads no model."""
    return EVERY if args.action == "run" else ()


EMBEDDING, TASTE, TRENDING = Artifact.EMBEDDING_MODEL, Artifact.TASTE_SPACE, Artifact.TRENDING_MODEL


def run_migrate(_args: argparse.Namespace, settings: Settings) -> int:
    with open_engine(settings) as engine:
        lines = migrate_store(engine, settings)
    print_or_log_report(lines, command="migrate")
    return 0


def run_stats(_args: argparse.Namespace, settings: Settings) -> int:
    with open_engine(settings) as engine:
        require_current_schema(engine)
        with session_scope(make_session_factory(engine)) as session:
            print(format_overview(describe_store(session)))
    return 0


COMMANDS: tuple[Command, ...] = (
    Command("migrate", "create or upgrade the database schema (safe to repeat)", run_migrate),
    Command(
        name="web",
        help="serve the site (uvicorn, --workers N) once the settings, model files and "
        "database pass; exit 1 with the reasons if they do not",
        handler=_handler("app.cli.web", "run_web"),
        add_arguments=_arguments("app.cli.web", "add_web_arguments"),
    ),
    Command(
        name="mcp",
        help="answer an assistant over stdio as an MCP server (the tools /mcp serves); "
        "PAPERBOY_MCP_TOKEN: a reader's personal access token for their own tools",
        handler=_handler("app.cli.mcp", "run_mcp"),
    ),
    Command(
        name="import",
        help="bulk-import papers from a JSON-lines file (Kaggle arXiv snapshot or daily listings); "
        "exit 0 if every line was taken, 2 if some were rejected, 1 on a fatal error",
        handler=_handler("app.cli.store", "run_import"),
        add_arguments=_arguments("app.cli.store", "add_import_arguments"),
    ),
    Command("stats", "print what the database holds", run_stats),
    Command(
        name="backup",
        help="copy a SQLite database safely while it serves (PostgreSQL: pg_dump, docs/deploy.md)",
        handler=_handler("app.cli.store", "run_backup"),
        add_arguments=_arguments("app.cli.store", "add_backup_arguments"),
    ),
    Command(
        name="demo",
        help="the whole daily job on the embedded default: import the bundled sample, replay live "
        "ingest from a local server, embed, rank, publish, mail a demo reader's digest to a "
        "local sink (DATA_DIR/mail), then serve the site (--no-serve: stop before that)",
        handler=_handler("app.cli.demo.steps", "run_demo"),
        add_arguments=_arguments("app.cli.demo.steps", "add_demo_arguments"),
        uses=_using(*EVERY),
    ),
    Command(
        name="ingest",
        help="read arXiv's latest announcement (RSS/Atom), enrich it from the arXiv API and store "
        "Hugging Face signals; --source picks one; exit 1 if a source failed, 2 if partial/stale",
        handler=_handler("app.cli.ingest", "run_ingest"),
        add_arguments=_arguments("app.cli.ingest", "add_ingest_arguments"),
    ),
    Command(
        name="backfill",
        help="harvest past days from arXiv's OAI-PMH, --from..--until inclusive, per category",
        handler=_handler("app.cli.ingest", "run_backfill"),
        add_arguments=_arguments("app.cli.ingest", "add_backfill_arguments"),
    ),
    Command(
        name="import-hf-signals",
        help="store Hugging Face Daily Papers signals from flattened JSON-lines records (FILE...); "
        "rows already stored only gain what they lack; exit 0 if every line was taken, 2 if "
        "some were rejected, 1 if a file could not be read",
        handler=_handler("app.cli.ingest", "run_import_hf_signals"),
        add_arguments=_arguments("app.cli.ingest", "add_import_hf_signals_arguments"),
    ),
    Command(
        name="embed",
        help="embed the papers of --date D (or --all) whose vector is missing or stale",
        handler=_handler("app.cli.ranking", "run_embed"),
        add_arguments=_arguments("app.cli.ranking", "add_embed_arguments"),
        uses=_using(EMBEDDING),
    ),
    Command(
        name="import-embeddings",
        help="store a precomputed matrix (--matrix X.npy --ids X.ids.json) for known papers",
        handler=_handler("app.cli.ranking", "run_import_embeddings"),
        add_arguments=_arguments("app.cli.ranking", "add_import_embeddings_arguments"),
    ),
    Command(
        name="rank",
        help="build the topics of --date D (with its trailing window) and publish the day's "
        "edition; --from D1 --to D2 ranks each announcement day between, oldest first, with "
        "its week and month",
        handler=_handler("app.cli.ranking", "run_rank"),
        add_arguments=_arguments("app.cli.ranking", "add_rank_arguments"),
        uses=_using(EMBEDDING, TRENDING),
    ),
    Command(
        name="publish",
        help="publish the week and month editions that hold --date D",
        handler=_handler("app.cli.ranking", "run_publish"),
        add_arguments=_arguments("app.cli.ranking", "add_day_argument"),
        uses=_using(TRENDING),
    ),
    Command(
        name="emerging",
        help="flag the emerging topics of the week that holds --date D (the daily job does "
        "this with each publication)",
        handler=_handler("app.cli.ranking", "run_emerging"),
        add_arguments=_arguments("app.cli.ranking", "add_day_argument"),
    ),
    Command(
        name="people",
        help="split author names into the people behind them, keeping each person's address "
        "(the daily job does this for each day's names)",
        handler=_handler("app.cli.ranking", "run_people"),
        add_arguments=_arguments("app.cli.ranking", "add_people_arguments"),
    ),
    Command(
        name="week-review",
        help="write up the week that holds --date D: its topics, what Paperboy predicted and "
        "what Hugging Face featured (the daily job does this with each publication)",
        handler=_handler("app.cli.ranking", "run_week_review"),
        add_arguments=_arguments("app.cli.ranking", "add_day_argument"),
    ),
    Command(
        name="run-daily",
        help="the day's chain for --date D: ingest, embed, rank, publish (each step also runs "
        "alone; --skip-ingest ranks what is stored; --from D1 --to D2 with --skip-ingest "
        "fills every announcement day between)",
        handler=_handler("app.cli.ranking", "run_daily"),
        add_arguments=_arguments("app.cli.ranking", "add_daily_arguments"),
        uses=_using(EMBEDDING, TRENDING),
    ),
    Command(
        name="train-ranker",
        help="train the trending model on a corpus, label files and embeddings before --until; "
        "writes a versioned JSON artifact",
        handler=_handler("app.cli.offline", "run_train_ranker"),
        add_arguments=_arguments("app.cli.offline", "add_train_arguments"),
    ),
    Command(
        name="eval-trending",
        help="replay announcement days --from..--to, rank each pool with the trending model "
        "and the baselines, print a markdown table and write results JSON",
        handler=_handler("app.cli.offline", "run_eval_trending"),
        add_arguments=_arguments("app.cli.offline", "add_eval_arguments"),
    ),
    Command(
        name="eval-personal",
        help="for (author, day) pairs --from..--to, rank the day's papers for the author's earlier "
        "ones by content with Paperboy's profile match and the baselines; markdown table, JSON",
        handler=_handler("app.cli.offline", "run_eval_personal"),
        add_arguments=_arguments("app.cli.offline", "add_eval_personal_arguments"),
    ),
    Command(
        name="eval-authors",
        help="give distinct authors of the corpus --from..--to one name (pairs, triples, hard "
        "pairs) and score how each method splits them into people (B-cubed F1); table, JSON",
        handler=_handler("app.cli.people_eval", "run_eval_authors"),
        add_arguments=_arguments("app.cli.people_eval", "add_eval_authors_arguments"),
    ),
    Command(
        name="train-taste-space",
        help="learn the taste space (embeddings mapped so that one author's papers lie closer) on "
        "(author, day) pairs --from..before --until; writes a versioned JSON artifact",
        handler=_handler("app.cli.offline", "run_train_taste"),
        add_arguments=_arguments("app.cli.offline", "add_train_taste_arguments"),
    ),
    Command(
        name="send-digests",
        help="email edition --date D (default: the latest) to every confirmed subscriber "
        "whose local delivery hour has come and who has not had it; exit 1 if SMTP failed "
        "(re-run finishes)",
        handler=_handler("app.cli.digest", "run_send_digests"),
        add_arguments=_arguments("app.cli.digest", "add_send_arguments"),
        uses=_using(EMBEDDING, TASTE),
    ),
    Command(
        name="preview-digest",
        help="render EMAIL's digest of --date D to a .eml file, sending and recording nothing",
        handler=_handler("app.cli.digest", "run_preview_digest"),
        add_arguments=_arguments("app.cli.digest", "add_preview_arguments"),
        uses=_using(EMBEDDING, TASTE),
    ),
    Command(
        name="scheduler",
        help="run the jobs on their schedule (arXiv's calendar); with several running, one acts "
        "(a lease in the database) and the others stand by",
        handler=_handler("app.cli.jobs", "run_scheduler"),
        add_arguments=_arguments("app.cli.jobs", "add_scheduler_arguments"),
        uses=_using(*EVERY),
    ),
    Command(
        name="jobs",
        help="list the scheduled jobs (last run, result, next run) or run one now: jobs run NAME "
        "[--date D]; exit 0 ok, 2 partial or stale, 1 failed",
        handler=_handler("app.cli.jobs", "run_jobs"),
        add_arguments=_arguments("app.cli.jobs", "add_jobs_arguments"),
        uses=_jobs_use,
    ),
    Command(
        name="incidents",
        help="list the open incidents, or acknowledge one: incidents ack JOB (it stays open until "
        "the job succeeds; /status shows it as acknowledged, not unhealthy)",
        handler=_handler("app.cli.jobs", "run_incidents"),
        add_arguments=_arguments("app.cli.jobs", "add_incidents_arguments"),
    ),
    Command(
        name="unsubscribe-mail",
        help="unsubscribe the sender of a mail to the digests' mailto: unsubscribe address, read "
        "from standard input (a mail server's pipe alias); exit 0 done, 65 refused",
        handler=_handler("app.cli.digest", "run_unsubscribe_mail"),
        add_arguments=_arguments("app.cli.digest", "add_unsubscribe_mail_arguments"),
    ),
    Command(
        name="subscribers",
        help="list | show EMAIL (with delivery history and bounces) | remove EMAIL | resend EMAIL",
        handler=_handler("app.cli.digest", "run_subscribers"),
        add_arguments=_arguments("app.cli.digest", "add_subscribers_arguments"),
    ),
    Command(
        name="moderators",
        help="add EMAIL | remove EMAIL | list: the readers who decide pending claims and "
        "corrections on /moderation",
        handler=_handler("app.cli.moderators", "run_moderators"),
        add_arguments=_arguments("app.cli.moderators", "add_moderators_arguments"),
    ),
)


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``chosen``, only that command's arguments (and module) are loaded."""
    parser = argparse.ArgumentParser(
        prog="paperboy",
        description="Paperboy: the day's trending research papers from arXiv. "
        "Settings come from PAPERBOY_* environment variables (see README).",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        subparser = subparsers.add_parser(command.name, help=command.help, description=command.help)
        if chosen is None or command.name == chosen:
            command.add_arguments(subparser)
        subparser.set_defaults(handler=command.handler, uses=command.uses)
    return parser


def main(argv: Sequence[str] | None = None, settings: Settings | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    chosen = words[0] if words and words[0] in {command.name for command in COMMANDS} else None
    args = build_parser(chosen).parse_args(words)
    program = f"paperboy {args.command}"
    checked = startup_settings(program, settings)
    if checked is None or refuse_broken_artifacts(program, checked, args.uses(args)):
        return EXIT_REFUSED
    if checked.log_json:  # a command run by cron or a job runner logs as the services do
        configure_logging(checked)
    quiet_secondary_driver_errors()
    try:
        handler: Handler = args.handler
        return handler(args, checked)
    except SchemaOutOfDateError as error:
        print(f"paperboy {args.command}: {error}", file=sys.stderr)
        return 1
    except DBAPIError as error:
        # A read-only database, a full disk, a server that turns the connection down: the
        # operator's to fix, in one line rather than a traceback.
        if (line := database_refusal(program, error, checked.resolved_database_url)) is None:
            raise
        print(said(line, checked), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
