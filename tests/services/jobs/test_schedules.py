"""The job table walked with a frozen clock: which jobs fire when, across a weekend, a US
holiday and a daylight-saving change (no sleeping: triggers are asked for their next time)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from app.core.config import get_settings
from app.services.jobs.table import SCHEDULES, announcement_trigger, fire_times
from ingest.calendar import EASTERN, announces, expected_listing_days, shipped_holidays


def eastern(day: date, hour: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=EASTERN)


def test_the_daily_job_follows_announcements_across_a_weekend_a_holiday_and_the_dst_change() -> (
    None
):
    # Daylight saving ends at 02:00 on Sunday 1 November 2026; 3 November is added as a holiday.
    settings = get_settings(arxiv_holidays="2026-11-03")
    start, end = eastern(date(2026, 10, 29)), eastern(date(2026, 11, 6))
    fired = fire_times(announcement_trigger(settings), start, end)
    local = [moment.astimezone(EASTERN).strftime("%a %d %H:%M") for moment in fired]
    assert local == ["Thu 29 20:30", "Sun 01 20:30", "Mon 02 20:30", "Wed 04 20:30", "Thu 05 20:30"]
    in_utc = [moment.astimezone(UTC).strftime("%d %H:%M") for moment in fired]
    assert in_utc == ["30 00:30", "02 01:30", "03 01:30", "05 01:30", "06 01:30"]


def test_no_daily_run_on_thanksgiving_or_friday_and_saturday() -> None:
    settings = get_settings()
    start, end = eastern(date(2026, 11, 22)), eastern(date(2026, 11, 29))
    fired = fire_times(announcement_trigger(settings), start, end)
    assert [moment.astimezone(EASTERN).strftime("%a") for moment in fired] == [
        "Sun",
        "Mon",
        "Tue",
        "Wed",
    ]


def test_every_job_fires_as_scheduled_through_the_dst_week() -> None:
    settings = get_settings(announcement_margin_minutes=45)
    start, end = eastern(date(2026, 10, 29)), eastern(date(2026, 11, 5))
    fired = {s.name: fire_times(s.trigger(settings), start, end) for s in SCHEDULES}
    # Schedules in UTC keep their count when local clocks change: the week has 169 hours.
    assert len(fired["digests"]) == 169
    assert all(moment.minute == 5 for moment in fired["digests"])
    assert len(fired["signals"]) == 4 * 7
    # Once a day at 04:45 UTC: the 169 hours from 04:00 UTC on the Thursday hold eight.
    assert [m.strftime("%d %H:%M") for m in fired["prune"]] == [
        f"{day:02d} 04:45" for day in (29, 30, 31, 1, 2, 3, 4, 5)
    ]
    assert [m.astimezone(EASTERN).strftime("%a %H:%M") for m in fired["daily"]] == [
        "Thu 20:45",
        "Sun 20:45",
        "Mon 20:45",
        "Tue 20:45",
        "Wed 20:45",
    ]


def test_a_scheduler_asked_mid_evening_waits_for_the_next_announcement() -> None:
    trigger = announcement_trigger(get_settings())
    just_after = eastern(date(2026, 11, 2), 21)
    following = trigger.get_next_fire_time(None, just_after)
    assert following == datetime(2026, 11, 3, 20, 30, tzinfo=EASTERN)
    after_thursday = trigger.get_next_fire_time(following, eastern(date(2026, 11, 6), 9))
    assert after_thursday == datetime(2026, 11, 8, 20, 30, tzinfo=EASTERN)


def test_the_shipped_holiday_list_reads_as_dates_and_skips_christmas_2025() -> None:
    closed = shipped_holidays()
    assert date(2025, 12, 25) in closed
    assert not announces(date(2025, 12, 25), closed)
    assert announces(date(2025, 12, 24), closed)
    assert not announces(date(2025, 12, 26), closed)  # a Friday


def test_the_expected_listing_days_are_the_mornings_after_the_last_fetched_announcements() -> None:
    closed, margin = shipped_holidays(), timedelta(minutes=30)
    friday_noon = eastern(date(2025, 12, 19), 12)
    assert expected_listing_days(friday_noon, closed, margin, 2) == [
        date(2025, 12, 19),
        date(2025, 12, 18),
    ]
    monday_noon = eastern(date(2025, 12, 22), 12)
    assert expected_listing_days(monday_noon, closed, margin, 2) == [
        date(2025, 12, 22),
        date(2025, 12, 19),
    ]


def test_no_listing_is_expected_the_morning_after_a_holiday() -> None:
    # Christmas 2025 is a Thursday: no announcement that evening, no listing dated the 26th.
    saturday = eastern(date(2025, 12, 27), 12)
    days = expected_listing_days(saturday, shipped_holidays(), timedelta(minutes=30), 2)
    assert days == [date(2025, 12, 25), date(2025, 12, 24)]


def test_an_announcement_is_expected_only_once_its_fetch_time_has_come() -> None:
    just_after_announcing = eastern(date(2025, 12, 18), 20) + timedelta(minutes=10)
    days = expected_listing_days(just_after_announcing, frozenset(), timedelta(minutes=30), 1)
    assert days == [date(2025, 12, 18)]
