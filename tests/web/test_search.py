import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.web.conftest import HF_PAPER, OLD_STYLE_ID
from tests.web.test_pages import listed


def test_an_arxiv_id_goes_straight_to_its_paper(client: TestClient) -> None:
    for query in (
        HF_PAPER,
        f"arXiv:{HF_PAPER}v1",
        f"https://arxiv.org/abs/{HF_PAPER}",
        OLD_STYLE_ID,
    ):
        response = client.get("/search", params={"q": query}, follow_redirects=False)
        assert response.status_code == 303, query
        assert response.headers["location"] in (f"/papers/{HF_PAPER}", f"/papers/{OLD_STYLE_ID}")


def test_an_author_name_goes_straight_to_the_author_page(client: TestClient) -> None:
    response = client.get("/search", params={"q": "JOSÉ  pérez"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/authors/jose-perez"


def test_keywords_find_papers_by_title_abstract_and_author(client: TestClient) -> None:
    by_title = listed(client.get("/search", params={"q": "AnimaMimic"}).text)
    assert by_title[0] == HF_PAPER
    by_author = listed(client.get("/search", params={"q": "Terzopoulos animation"}).text)
    assert HF_PAPER in by_author[:3]
    assert listed(client.get("/search", params={"q": "zzzqqqxxy"}).text) == []


def test_search_filters_by_category_and_date_range(client: TestClient) -> None:
    graphics = client.get("/api/papers/search", params={"q": "animation video"}).json()
    assert HF_PAPER in [item["paper"]["id"] for item in graphics]
    only = client.get("/search", params={"q": "animation video", "category": "cs.GR"}).text
    assert listed(only) and HF_PAPER in listed(only)
    for arxiv_id in listed(only):
        assert "cs.GR" in client.get(f"/api/papers/{arxiv_id}").json()["categories"]
    later = client.get(
        "/search", params={"q": "animation video", "since": "2025-12-18", "until": "2025-12-19"}
    ).text
    for arxiv_id in listed(later):
        assert client.get(f"/api/papers/{arxiv_id}").json()["announcedOn"] >= "2025-12-18"
    api = client.get("/api/papers/search", params={"q": "animation video", "category": "cs.GR"})
    assert all("cs.GR" in item["paper"]["categories"] for item in api.json())
    bad = client.get("/search", params={"q": "video", "since": "last week"})
    assert bad.status_code == 400 and "since must be a date" in bad.text


@pytest.mark.model
def test_semantic_search_finds_papers_by_meaning_with_the_real_model(
    site_settings: Settings,
) -> None:
    semantic = site_settings.model_copy(update={"search_semantic": True})
    with TestClient(create_app(semantic)) as client:
        # No title or abstract holds these words; the meaning is AnimaMimic's.
        query = "bring a still 3D character model to life using motion from generated clips"
        answer = client.get("/api/papers/search", params={"q": query}).json()
        found = [item["paper"]["id"] for item in answer]
    assert HF_PAPER in found[:5]
