"""A database outage as a scheduler lives through it: when it began, and how long to wait
before looking again (twice as long after each failed look, up to a limit).

Pure bookkeeping: the scheduler says when a look failed or succeeded, and logs one line when
the database goes and one when it is back, never a line per retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Outage:
    """Retries while the database is away: ``first`` seconds after the first failed look,
    then twice as long each time, never longer than ``longest``."""

    first: float
    longest: float
    since: datetime | None = None
    failed_looks: int = 0

    @property
    def ongoing(self) -> bool:
        return self.since is not None

    def failed(self, now: datetime) -> float:
        """Note a failed look; the seconds to wait before the next one."""
        if self.since is None:
            self.since = now
        wait: float = min(self.longest, self.first * 2.0**self.failed_looks)
        self.failed_looks += 1
        return wait

    def ended(self, now: datetime) -> float | None:
        """Seconds the outage lasted, if one was ongoing (it is over now); else None."""
        if self.since is None:
            return None
        lasted = (now - self.since).total_seconds()
        self.since, self.failed_looks = None, 0
        return lasted
