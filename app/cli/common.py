"""What several commands share: the ``--date`` parser and one unit of work for a step.

Kept apart from the command modules so that importing one command does not import another's
dependencies (the ranking commands pull in scikit-learn: seconds at every start).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.schema import require_current_schema


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
