"""How long a scheduler waits between looks while the database is away, and how long it was."""

from datetime import UTC, datetime, timedelta

from app.worker.lease import Outage

WENT = datetime(2026, 11, 26, 3, 0, tzinfo=UTC)


def test_each_failed_look_waits_twice_as_long_up_to_the_check_interval() -> None:
    outage = Outage(first=1.0, longest=20.0)
    waits = [outage.failed(WENT + timedelta(seconds=second)) for second in range(7)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 20.0, 20.0]


def test_the_outage_lasts_from_the_first_failed_look_and_ends_once() -> None:
    outage = Outage(first=1.0, longest=20.0)
    assert outage.ended(WENT) is None  # nothing went away
    outage.failed(WENT)
    outage.failed(WENT + timedelta(seconds=1))
    assert outage.ongoing
    assert outage.ended(WENT + timedelta(seconds=14)) == 14.0
    assert outage.ended(WENT + timedelta(seconds=15)) is None
    assert outage.failed(WENT + timedelta(seconds=60)) == 1.0  # the next outage starts afresh
