"""What time it is: the one ``Clock`` type and the real clock, ``utc_now``.

Everything that asks "now" takes a ``Clock`` from its caller (the entry point passes
``utc_now``; tests pass a frozen one), so no module reads the system time on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The real clock: the current time, aware, in UTC."""
    return datetime.now(UTC)
