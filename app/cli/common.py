"""What several commands share: the ``--date`` parser, the database a command works on
(one engine, its schema checked), and printing a use case's report.

Kept apart from the command modules so that importing one command does not import another's
dependencies (the ranking commands pull in scikit-learn: seconds at every start).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import Role, make_session_factory, open_engine, session_scope
from app.core.logs import print_or_log_report
from app.core.schema import require_current_schema
from app.services.reports import Report


def warn_if_trained_on_window(command: str, what: str, saw_before: date, start: date) -> None:
    """Say on standard error that ``what`` learned from days of the evaluated window (it saw
    data up to the day before ``saw_before``): its figure flatters it."""
    if saw_before > start:
        print(
            f"{command}: warning: {what} saw data until {saw_before}, after --from {start}; "
            f"train one with --until {start} for an honest figure",
            file=sys.stderr,
        )


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD date: {text!r}") from None


@contextmanager
def job_session(settings: Settings) -> Iterator[Session]:
    """One engine and one unit of work for a command step."""
    with open_engine(settings) as engine:
        require_current_schema(engine)
        with session_scope(make_session_factory(engine)) as session:
            yield session


@contextmanager
def command_sessions(settings: Settings, role: Role = "cli") -> Iterator[sessionmaker[Session]]:
    """The session factory of one command: one engine, closed afterwards, its schema current."""
    with open_engine(settings, role) as engine:
        require_current_schema(engine)
        yield make_session_factory(engine)


def print_report(report: Report) -> int:
    """Print the report's lines (log them, with JSON logs on); its outcome's exit code."""
    print_or_log_report(report.lines(), outcome=str(report.outcome))
    return report.outcome.exit_code


def print_error(command: str, message: object) -> int:
    """``paperboy COMMAND: message`` on standard error; exit code 1."""
    print(f"paperboy {command}: {message}", file=sys.stderr)
    return 1
