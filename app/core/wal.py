"""Which streaming standby may answer a read (pure): positions in PostgreSQL's write-ahead log,
what a health check saw of each standby, and the choice among them.

A position (an LSN) is written ``16/B374D848``: the high and low 32 bits in hex. The primary's
current position after a write is what a reader's next pages must see; a standby has replayed
up to its own position, so it can answer that reader once it is at or past it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from string import hexdigits


class PositionError(ValueError):
    """Text that is not a write-ahead log position."""


def parse_position(text: str) -> int:
    """``16/B374D848`` as one number (:class:`PositionError` for anything else)."""
    high, slash, low = text.strip().partition("/")
    if not (slash and _hex_word(high) and _hex_word(low)):
        raise PositionError(f"not a write-ahead log position: {text[:40]!r}")
    return (int(high, 16) << 32) | int(low, 16)


def _hex_word(part: str) -> bool:
    return 0 < len(part) <= 8 and all(c in hexdigits for c in part)


def format_position(position: int) -> str:
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"


@dataclass(frozen=True, slots=True)
class StandbyState:
    """One standby as the last health check saw it."""

    name: str  # its host, port and database (never its password)
    checked_at: datetime
    up: bool
    error: str | None = None  # why it is down or not a standby
    standby: bool = False  # still in recovery, following the primary (False once promoted)
    position: int | None = None  # replayed up to here
    lag_bytes: int | None = None  # the primary's position less its own
    lag_seconds: float | None = None  # 0 when it has replayed all the primary had written


def lag_seconds(
    written: Sequence[tuple[datetime, int]],
    position: int,
    since_last_replay: float | None,
    now: datetime,
) -> float | None:
    """How stale a standby at ``position`` is: the age of the newest of the primary's positions
    ``written`` (when each was seen, oldest first) that it has replayed, since it holds all the
    primary had then. Behind every one kept, the time since the last transaction it replayed.
    (That time alone would call a standby of an idle primary late: its last transaction may be
    an hour old, with nothing since to replay.)"""
    held = [seen for seen, primary in written if primary <= position]
    if not held:
        return since_last_replay
    return max((now - held[-1]).total_seconds(), 0.0)


def aged(state: StandbyState, now: datetime, limit_seconds: float) -> StandbyState:
    """The state as it stands ``now``: one no check has renewed for ``limit_seconds`` (a check
    hung on a host that stopped answering) is no longer trusted."""
    if (now - state.checked_at).total_seconds() <= limit_seconds:
        return state
    return StandbyState(
        name=state.name,
        checked_at=state.checked_at,
        up=False,
        error=f"not checked for more than {limit_seconds:g} s",
    )


def usable(state: StandbyState, max_lag_seconds: float) -> bool:
    """Up, still a standby, and no further behind than ``max_lag_seconds``."""
    return (
        state.up
        and state.standby
        and state.lag_seconds is not None
        and state.lag_seconds <= max_lag_seconds
    )


def choose(
    states: Sequence[StandbyState], max_lag_seconds: float, at_least: int | None, turn: int
) -> int | None:
    """The index of the standby to read from, or None for the primary: among the usable ones
    that have replayed ``at_least`` (a reader's last write), taken in turn."""
    fit = [
        index
        for index, state in enumerate(states)
        if usable(state, max_lag_seconds)
        and (at_least is None or (state.position is not None and state.position >= at_least))
    ]
    return fit[turn % len(fit)] if fit else None


def described(state: StandbyState, max_lag_seconds: float) -> str:
    """What a status page says of a standby: in use, or why reads are kept off it."""
    if usable(state, max_lag_seconds):
        return "in use"
    if not state.up or not state.standby:
        return f"skipped: {state.error or 'down'}"
    if state.lag_seconds is None:
        return "skipped: its lag is not known yet"
    return f"skipped: {state.lag_seconds:.1f} s behind (more than {max_lag_seconds:g} s)"
