"""Identifiers and weeks at and past what a URL may name get the answer a malformed one gets,
never a server error: a version too long for ``int()``, the last ISO week of 9999 (which ends
after the calendar's last day), the first week of year one."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.extremes import HUGE
from tests.web.conftest import HF_PAPER, OLD_STYLE_ID

WEEKLY_PAGES = ("/under-the-radar", "/week-in-review", "/emerging")


@pytest.mark.parametrize(
    ("template", "status"),
    [
        ("/papers/{}", 404),
        ("/previews/papers/{}.png", 404),
        ("/api/papers/{}", 400),
    ],
)
@pytest.mark.parametrize("paper", [HF_PAPER, OLD_STYLE_ID])
def test_a_version_longer_than_int_reads_is_not_an_arxiv_identifier(
    client: TestClient, template: str, status: int, paper: str
) -> None:
    response = client.get(template.format(f"{paper}v{HUGE}"))
    assert response.status_code == status
    assert "not an arXiv identifier" in response.text
    assert HUGE not in response.text  # an error quotes the start of an id, not all of it


def test_a_version_of_four_digits_is_still_read(client: TestClient) -> None:
    response = client.get(f"/api/papers/{HF_PAPER}v9999")
    assert response.status_code == 200 and response.json()["id"] == HF_PAPER


@pytest.mark.parametrize("page", WEEKLY_PAGES)
def test_the_last_week_of_9999_is_refused_as_it_ends_past_the_calendar(
    client: TestClient, page: str
) -> None:
    response = client.get(page, params={"week": "9999-W52"})
    assert response.status_code == 400
    assert "week must end by 9999-12-31" in response.text


@pytest.mark.parametrize("page", ("/under-the-radar", "/week-in-review"))
def test_the_weeks_at_the_calendars_ends_are_shown_as_weeks_without_a_write_up(
    client: TestClient, page: str
) -> None:
    for week in ("0001-W01", "9999-W51"):
        assert client.get(page, params={"week": week}).status_code == 200


@pytest.mark.parametrize(
    "params",
    [
        {"week": "9999-W52"},
        {"month": "9999-12"},
        {"date": "9999-12-31", "period": "week"},
        {"date": "9999-12-31", "period": "month"},
        {"date": "0001-01-01", "period": "week"},
    ],
)
def test_an_edition_at_the_calendars_ends_is_refused_or_not_found(
    client: TestClient, params: dict[str, str]
) -> None:
    assert client.get("/api/daily_papers", params=params).status_code in (400, 404)
    assert client.get("/", params=params).status_code in (200, 400, 404)


@pytest.mark.parametrize("topic", [HUGE, "²", "0", str(2**31)])
def test_a_topic_filter_past_any_id_is_refused_in_words(client: TestClient, topic: str) -> None:
    response = client.get("/", params={"topic": topic})
    assert response.status_code == 400
    assert "topic" in response.text  # the parameter named, whichever rule refused it


def test_a_list_field_past_any_id_is_refused_before_anything_is_filed(
    client: TestClient,
) -> None:
    # Read before the reader or the form's pair is checked: no sign-in is needed to reach it.
    response = client.post(f"/papers/{HF_PAPER}/file", data={"list": HUGE})
    assert response.status_code == 422
    assert "list is one of your lists" in response.text
