"""Write-ahead log positions and the choice of a standby for a read (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.wal import (
    PositionError,
    StandbyState,
    aged,
    choose,
    described,
    format_position,
    lag_seconds,
    parse_position,
    usable,
)

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _state(name: str, **seen: object) -> StandbyState:
    fields: dict[str, object] = {"up": True, "standby": True, "position": 100, "lag_seconds": 0.0}
    return StandbyState(name=name, checked_at=NOW, **(fields | seen))  # type: ignore[arg-type]


def test_a_position_reads_as_postgresql_writes_it() -> None:
    assert parse_position("16/B374D848") == (0x16 << 32) | 0xB374D848
    assert format_position(parse_position("0/3000060")) == "0/3000060"


@pytest.mark.parametrize("text", ["", "16", "/1", "1/", "x/1", "1/2/3", "123456789/1", "1/-2"])
def test_anything_else_is_refused_with_what_it_was(text: str) -> None:
    with pytest.raises(PositionError, match="not a write-ahead log position"):
        parse_position(text)


@given(st.integers(min_value=0, max_value=(1 << 64) - 1))
def test_a_position_survives_its_round_trip(position: int) -> None:
    assert parse_position(format_position(position)) == position


def test_lag_is_the_age_of_the_newest_primary_position_the_standby_holds() -> None:
    written = [(NOW - timedelta(seconds=9), 100), (NOW - timedelta(seconds=4), 200), (NOW, 300)]
    assert lag_seconds(written, 300, 3600.0, NOW) == 0.0  # all the primary had: an idle one too
    assert lag_seconds(written, 250, 3600.0, NOW) == 4.0
    assert lag_seconds(written, 99, 7.5, NOW) == 7.5  # behind all kept: since its last replay
    assert lag_seconds([], 99, None, NOW) is None


def test_only_an_up_standby_within_the_lag_is_usable() -> None:
    assert usable(_state("a"), 10)
    assert not usable(_state("a", up=False, error="refused"), 10)
    assert not usable(_state("a", standby=False, error="promoted"), 10)
    assert not usable(_state("a", lag_seconds=11.0), 10)
    assert not usable(_state("a", lag_seconds=None), 10)


def test_reads_take_fit_standbys_in_turn_and_a_write_s_reader_waits_for_its_position() -> None:
    states = [_state("a", position=50), _state("b", up=False), _state("c", position=200)]
    assert [choose(states, 10, None, turn) for turn in range(4)] == [0, 2, 0, 2]
    assert choose(states, 10, 150, 0) == 2 and choose(states, 10, 150, 1) == 2
    assert choose(states, 10, 201, 0) is None  # none has replayed it: the primary
    assert choose([], 10, None, 0) is None


def test_a_status_page_says_why_a_standby_is_skipped() -> None:
    assert described(_state("a"), 10) == "in use"
    assert described(_state("a", up=False, error="connection refused"), 10) == (
        "skipped: connection refused"
    )
    assert described(_state("a", lag_seconds=12.0), 10) == "skipped: 12.0 s behind (more than 10 s)"
    assert described(_state("a", lag_seconds=None), 10) == "skipped: its lag is not known yet"


def test_a_state_no_check_renewed_in_time_is_no_longer_trusted() -> None:
    fresh = _state("a")
    assert aged(fresh, NOW + timedelta(seconds=5), 6.0) is fresh
    old = aged(fresh, NOW + timedelta(seconds=7), 6.0)
    assert not usable(old, 10) and old.error == "not checked for more than 6 s"
