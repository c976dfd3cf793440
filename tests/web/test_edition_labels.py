"""How a reader reads an edition's name, and which edition stands in for a day without one."""

from __future__ import annotations

from datetime import date

import pytest

from app.core.periods import Period
from app.core.reads import human_label
from app.web.page_views import nearest_date


@pytest.mark.parametrize(
    ("period", "key", "label"),
    [
        ("day", date(2025, 12, 19), "19 Dec 2025"),
        ("week", date(2025, 12, 15), "Week of 15 Dec 2025"),
        ("month", date(2025, 12, 1), "December 2025"),
        ("day", date(2026, 1, 5), "5 Jan 2026"),
    ],
)
def test_an_edition_is_named_as_a_reader_says_it(period: Period, key: date, label: str) -> None:
    assert human_label(period, key) == label


def test_the_nearest_stored_date_stands_in_and_a_tie_takes_the_earlier() -> None:
    stored = [date(2025, 12, 17), date(2025, 12, 19), date(2025, 12, 22)]
    assert nearest_date(stored, date(2025, 12, 20)) == date(2025, 12, 19)
    assert nearest_date(stored, date(2025, 12, 21)) == date(2025, 12, 22)
    assert nearest_date(stored, date(2025, 12, 18)) == date(2025, 12, 17)  # a tie
    assert nearest_date(stored, date(2020, 1, 1)) == date(2025, 12, 17)
    assert nearest_date([], date(2025, 12, 20)) is None
