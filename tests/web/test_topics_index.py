import re
from datetime import date
from html import unescape

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.core.models import TopicDay
from tests.web.conftest import DAYS

DAY_HEADING = re.compile(r"<h2>(\d{4}-\d{2}-\d{2}) ")
TOPIC_LINK = re.compile(
    r'<li><a href="/topics/(\d+)">(.*?)</a> <span class="muted">· (\d+) papers? · ', re.S
)


def stored_topic_days(settings: Settings) -> dict[date, list[tuple[int, str, int]]]:
    engine = make_engine(settings)
    try:
        with make_session_factory(engine)() as session:
            rows = session.scalars(select(TopicDay))
            stored: dict[date, list[tuple[int, str, int]]] = {}
            for row in rows:
                stored.setdefault(row.day, []).append((row.topic_id, row.label, row.size))
            return stored
    finally:
        engine.dispose()


def sections(html: str) -> dict[str, list[tuple[int, str, int]]]:
    """Each day heading of the index and the (id, label, size) of the topics listed under it."""
    parts = DAY_HEADING.split(html)[1:]
    return {
        day: [(int(i), unescape(label), int(size)) for i, label, size in TOPIC_LINK.findall(body)]
        for day, body in zip(parts[::2], parts[1::2], strict=True)
    }


def test_the_index_lists_every_topic_of_each_edition_day_newest_day_first(
    client: TestClient, site_settings: Settings
) -> None:
    response = client.get("/topics")
    assert response.status_code == 200
    listed = sections(response.text)
    assert list(listed) == sorted(DAYS, reverse=True)
    stored = stored_topic_days(site_settings)
    for day, topics in listed.items():
        assert sorted(topics) == sorted(stored[date.fromisoformat(day)])


def test_within_a_day_the_largest_topics_come_first(client: TestClient) -> None:
    for topics in sections(client.get("/topics").text).values():
        sizes = [size for _, _, size in topics]
        assert sizes == sorted(sizes, reverse=True)


def test_each_listed_topic_links_to_its_own_page(client: TestClient) -> None:
    day = sections(client.get("/topics").text)[DAYS[-1]]
    topic_id, label, _ = day[0]
    page = client.get(f"/topics/{topic_id}")
    assert page.status_code == 200
    assert f"<h1>{label}</h1>" in unescape(page.text)


def test_every_page_links_to_the_index_in_its_navigation(client: TestClient) -> None:
    nav = re.search(r'<nav aria-label="Main">(.*?)</nav>', client.get("/").text, re.S)
    assert nav is not None and '<a href="/topics">Topics</a>' in nav.group(1)
