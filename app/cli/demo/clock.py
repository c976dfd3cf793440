"""The demo's clock: the afternoon of the sample's latest announcement day (US/Eastern), moving
on with the real clock, and never going back.

Every link the demo mails carries the time it was issued, and a link issued more than a minute
ahead of the clock that checks it is refused. So a clock made later (the site after a slow daily
job, a restarted demo) must never start behind a time an earlier one gave: each clock writes its
reading to a mark in the data folder whenever it has moved on ``MARK_EVERY`` since the last, and
a new clock starts past the last mark by more than that.
"""

from __future__ import annotations

import os
import tempfile
import threading
from datetime import date, datetime, time, timedelta
from pathlib import Path

from app.cli.demo import responses
from app.core.clock import Clock, utc_now

# The hour on the sample's latest day: that day's announcement is out (20:00 the evening
# before), the next one not yet.
DEMO_HOUR = time(14, 0)
MARK_FILE = "demo-clock"
MARK_EVERY = timedelta(seconds=5)


class DemoClock:
    """The demo's now; with a ``mark`` file, it starts past every reading a clock with the
    same mark gave before (thread-safe: the site reads it from many threads)."""

    def __init__(self, day: date, mark: Path | None = None, real: Clock = utc_now) -> None:
        start = datetime.combine(day, DEMO_HOUR, responses.EASTERN)
        last = None if mark is None else read_mark(mark)
        if last is not None:
            start = max(start, last + 2 * MARK_EVERY)
        self._start, self._started, self._real, self._mark = start, real(), real, mark
        self._marked: datetime | None = None
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        now = self._start + (self._real() - self._started)
        if self._mark is not None and (self._marked is None or now - self._marked >= MARK_EVERY):
            self._write_mark(self._mark, now)
        return now

    def _write_mark(self, mark: Path, now: datetime) -> None:
        with self._lock:
            if self._marked is not None and now <= self._marked:
                return
            handle, temporary = tempfile.mkstemp(dir=mark.parent, prefix=f".{mark.name}.")
            with os.fdopen(handle, "w") as out:
                out.write(now.isoformat())
            Path(temporary).replace(mark)
            self._marked = now


def read_mark(mark: Path) -> datetime | None:
    """The last reading a demo clock marked, or None (no mark, or one that is no time)."""
    try:
        marked = datetime.fromisoformat(mark.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return marked if marked.tzinfo is not None else None


def demo_clock(day: date, data_dir: Path | None = None, real: Clock = utc_now) -> Clock:
    """The demo's clock for the sample's latest ``day``, marked in ``data_dir`` if given."""
    return DemoClock(day, None if data_dir is None else data_dir / MARK_FILE, real)
