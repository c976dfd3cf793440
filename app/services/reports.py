"""What every use case returns: an outcome, the failure with its type, and its lines; and what
the web's use cases take: the running site (:class:`Deployment`).

A report is data. The command line prints its lines and exits with its outcome's code; the
job runner stores the lines as the run's summary and the failure as its error. Nobody reads
what a use case printed, because it prints nothing.

A web use case needs the site's settings, session factory and clock. The web's context has
all three, so a route hands it over as it is; a test or a command can pass any object that has
them. A use case reads the time once, from ``clock``, at its start.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock
from app.core.config import Settings


class Outcome(StrEnum):
    """How a use case ended; the exit code of the command that ran it follows from it."""

    OK = "ok"
    # Finished, with a partial or stale source: worth a look, not a failure.
    WARNING = "warning"
    FAILED = "failed"

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self]

    @classmethod
    def of_exit_code(cls, code: int) -> Outcome:
        return {0: cls.OK, 2: cls.WARNING}.get(code, cls.FAILED)


_EXIT_CODES = {Outcome.OK: 0, Outcome.WARNING: 2, Outcome.FAILED: 1}
_SEVERITY = (Outcome.OK, Outcome.WARNING, Outcome.FAILED)


def worst(outcomes: Iterable[Outcome]) -> Outcome:
    return max(outcomes, key=_SEVERITY.index, default=Outcome.OK)


@dataclass(frozen=True)
class Failure:
    """Why a use case failed: the exception's type name (or the kind of a reported failure,
    such as ``SourceFailed``) and its message."""

    kind: str
    message: str

    @classmethod
    def of(cls, error: BaseException) -> Failure:
        return cls(type(error).__name__, str(error))

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" if self.message else self.kind


class Report(Protocol):
    """What the command line and the job runner need of any use case's report."""

    @property
    def outcome(self) -> Outcome: ...

    @property
    def failure(self) -> Failure | None: ...

    def lines(self) -> list[str]: ...


class Completed:
    """Base of the reports of steps that either finish or raise: their outcome is ok."""

    @property
    def outcome(self) -> Outcome:
        return Outcome.OK

    @property
    def failure(self) -> Failure | None:
        return None


class Deployment(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def sessions(self) -> sessionmaker[Session]: ...

    @property
    def clock(self) -> Clock: ...
