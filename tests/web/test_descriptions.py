"""Every page tells search engines what it is: one meta description, its own where it can."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from tests.web.conftest import HF_PAPER, LAST_DAY
from tests.web.helpers import a_topic_of

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]+)">')


def description(client: TestClient, path: str) -> str:
    found = DESCRIPTION.findall(client.get(path).text)
    assert len(found) == 1, path
    return unescape(found[0])


@pytest.mark.parametrize("path", ["/search", "/subscribe", "/signin", "/papers/2512.99999"])
def test_a_page_without_its_own_description_says_what_the_site_is(
    client: TestClient, path: str
) -> None:
    assert description(client, path).startswith("The day's trending arXiv papers")


def test_an_edition_is_described_by_its_size_and_name(client: TestClient) -> None:
    assert description(client, "/") == (
        "The 100 arXiv papers trending today (19 Dec 2025), ranked by Paperboy with the "
        "reasons for each place."
    )
    assert description(client, "/?period=week").startswith(
        "The 100 arXiv papers trending this week (Week of 15 Dec 2025)"
    )


def test_a_paper_page_is_described_by_its_abstract_cut_to_160_characters(
    client: TestClient,
) -> None:
    abstract = client.get(f"/api/papers/{HF_PAPER}").json()["summary"]
    text = description(client, f"/papers/{HF_PAPER}")
    assert len(text) <= 160 and text.endswith("…")
    assert abstract.replace("\n", " ").startswith(text[:-1].rstrip())


def test_topic_author_and_status_pages_describe_themselves(
    client: TestClient, site_settings: Settings
) -> None:
    topic, _ = a_topic_of(site_settings, LAST_DAY)
    assert "in the topic" in description(client, f"/topics/{topic}")
    assert re.match(r"1 arXiv paper by .+ in Paperboy,", description(client, "/authors/jose-perez"))
    assert description(client, "/status").startswith("How this Paperboy is doing")
