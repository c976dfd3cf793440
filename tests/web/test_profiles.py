import re

from fastapi.testclient import TestClient

from tests.web.conftest import HOSTILE_ID
from tests.web.test_pages import listed


def test_an_author_page_lists_works_newest_first_with_counts(client: TestClient) -> None:
    body = client.get("/api/authors/chenfanfu-jiang").json()
    dates = [paper["publishedAt"] for paper in body["papers"]]
    assert dates == sorted(dates, reverse=True)
    assert body["paperCount"] == len(body["papers"]) >= 1
    html = client.get("/authors/chenfanfu-jiang").text
    assert listed(html) == [paper["id"] for paper in body["papers"]]


def test_close_collaborators_are_ranked_by_shared_papers(client: TestClient) -> None:
    body = client.get("/api/authors/chenfanfu-jiang").json()
    shared = [c["sharedPapers"] for c in body["collaborators"]]
    assert shared and shared == sorted(shared, reverse=True)
    assert "ying-jiang" in [c["key"] for c in body["collaborators"]]


def test_an_author_page_is_honest_that_one_name_may_be_several_people(client: TestClient) -> None:
    html = client.get("/authors/jose-perez").text
    assert "two people who share a name share this page" in html
    assert '<q class="bidi">José Pérez</q>' in html and '<q class="bidi">Jose Perez</q>' in html
    assert listed(html) == [HOSTILE_ID]
    assert client.get("/authors/nobody-known").status_code == 404


def test_a_topic_page_shows_phrases_size_chart_papers_and_related_topics(
    client: TestClient,
) -> None:
    topics = client.get("/api/topics").json()
    chosen = topics[0]
    html = client.get(f"/topics/{chosen['id']}").text
    body = client.get(f"/api/topics/{chosen['id']}").json()
    assert len(re.findall(r"<rect ", html)) == len(body["sizes"])
    for phrase in body["keyPhrases"]:
        assert phrase in html
    shown = set(listed(html))
    assert shown == {i for day in body["papersByDay"] for i in day["papers"]}
    assert body["related"] and f'href="/topics/{body["related"][0]["id"]}"' in html
    assert client.get("/topics/999999").status_code == 404
    assert client.get("/topics/abc").status_code == 400
