"""The trending page over every ranked edition: ?week= and ?month=, earlier days, the date
picker and the tabs. On the package's site: the sample's three days ranked, with their week
(2025-W51) and month (2025-12)."""

import re
from datetime import date

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from tests.web.helpers import edition_ids, whole_edition

PAPER_LINK = re.compile(r'<h[2-4] class="title"><a href="/papers/([^"]+)"')
TOPIC_OPTIONS = re.compile(r'<select name="topic".*?</select>', re.S)
WEEK, MONTH = date(2025, 12, 15), date(2025, 12, 1)


def listed(html: str) -> list[str]:
    return PAPER_LINK.findall(html)


def topics_offered(html: str) -> list[str]:
    return re.findall(r'<option value="(\d+)"', TOPIC_OPTIONS.search(html)[0])  # type: ignore[index]


@pytest.mark.parametrize(
    ("url", "period", "key", "label"),
    [
        ("/?week=2025-W51", "week", WEEK, "Week of 15 Dec 2025"),
        ("/?month=2025-12", "month", MONTH, "December 2025"),
    ],
)
def test_a_week_or_month_named_in_the_url_opens_that_edition(
    client: TestClient, site_settings: Settings, url: str, period: str, key: date, label: str
) -> None:
    response = client.get(url)
    assert response.status_code == 200
    assert listed(whole_edition(client, url)) == edition_ids(site_settings, period, key)
    assert label in response.text


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/?week=2025-51", 400),
        ("/?week=2025-W54", 400),
        ("/?month=2025-13", 400),
        ("/?month=2025-12&week=2025-W51", 400),
        ("/?week=2025-W51&date=2025-12-17", 400),
        ("/?week=2024-W01", 200),  # not stored: the nearest week, saying so
        ("/?month=2024-01", 200),
    ],
)
def test_a_malformed_week_or_month_is_refused_and_one_not_stored_opens_the_nearest(
    client: TestClient, url: str, status: int
) -> None:
    assert client.get(url).status_code == status


def test_an_earlier_day_has_its_own_edition_and_links_to_the_next(
    client: TestClient, site_settings: Settings
) -> None:
    first = client.get("/?date=2025-12-17")
    assert first.status_code == 200
    ids = edition_ids(site_settings, "day", date(2025, 12, 17))
    assert listed(whole_edition(client, "/?date=2025-12-17")) == ids
    assert 'href="/?period=day&amp;date=2025-12-18" rel="next"' in first.text
    assert 'rel="prev"' not in first.text


@pytest.mark.parametrize("url", ["/", "/?date=2025-12-18", "/?week=2025-W51", "/?month=2025-12"])
def test_the_date_picker_spans_every_ranked_day_on_every_tab(client: TestClient, url: str) -> None:
    assert 'min="2025-12-17" max="2025-12-19"' in client.get(url).text


def test_the_tabs_keep_the_day_shown(client: TestClient) -> None:
    day = client.get("/?date=2025-12-18").text
    assert 'href="/?period=week&amp;date=2025-12-18"' in day
    assert 'href="/?period=month&amp;date=2025-12-18"' in day
    # From a week, its newest ranked day, which the date picker also shows (its Monday, the
    # 15th, is before the first ranked day and would not submit).
    week = client.get("/?week=2025-W51").text
    assert 'href="/?period=day&amp;date=2025-12-19"' in week
    assert 'name="date" value="2025-12-19"' in week


def test_a_week_offers_the_topics_of_its_papers_and_filters_by_them(client: TestClient) -> None:
    html = client.get("/?week=2025-W51").text
    offered = topics_offered(html)
    assert len(offered) > 1
    narrowed = client.get(f"/?week=2025-W51&topic={offered[0]}").text
    assert 0 < len(listed(narrowed)) < len(listed(html))
    assert narrowed.count(f'href="/topics/{offered[0]}"') >= len(listed(narrowed))
