import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.conftest import with_int8_query_model
from tests.web.conftest import HF_PAPER, HOSTILE_ID, OLD_STYLE_ID
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


CLOSEST = "No paper has all of"


def test_a_word_no_paper_holds_leaves_the_papers_of_the_others_and_the_page_says_so(
    client: TestClient,
) -> None:
    page = client.get("/search", params={"q": "AnimaMimic Terzopoulos xylophonist"}).text
    assert listed(page)[0] == HF_PAPER
    assert f"{CLOSEST} <q>animamimic terzopoulos xylophonist</q>; closest matches" in page
    every = client.get("/search", params={"q": "AnimaMimic Terzopoulos"}).text
    assert listed(every)[0] == HF_PAPER and CLOSEST not in every
    assert CLOSEST not in client.get("/search", params={"q": "zzzqqqxxy"}).text


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
    semantic: TestClient,
) -> None:
    # No title or abstract holds these words; the meaning is AnimaMimic's.
    query = "bring a still 3D character model to life using motion from generated clips"
    assert HF_PAPER in [item["paper"]["id"] for item in found(semantic, query)][:5]


# Random letters and everyday words that no paper of the sample is about (nor names: "banana"
# is not here, as "Nano Banana" is a model the sample's papers evaluate).
NONSENSE = (
    "xqzvbnm plokij",
    "qwrtzp",
    "zzkv fffgh",
    "mnbvcx lkjhgf",
    "ppqrst uvwyx",
    "jjjkkk lll",
    "hgfdsa poiuyt",
    "wxqv brrmph",
    "kitchen sofa",
    "grandmother birthday",
    "teapot slippers",
    "umbrella raincoat",
    "lemonade picnic",
    "toaster ketchup",
    "laundry bathtub",
    "doorbell mailbox",
    "pancake breakfast",
    "shoelace hairbrush",
    "cousin sunday puppy",
    "carpet pillow sandwich",
)
MOE_QUERY = "mixture of experts sparsity"
MOE_SPARSITY = ["2512.13996", "2512.16248"]  # mixture-of-experts papers about sparsity
MOE_ONLY = ["2512.14757", "2512.16494"]  # SocialNav-MoE, PoseMoE: no word of sparsity
SHAPE_PAPER = "2512.16213"
MOE_WORDS = re.compile(r"\bexperts?\b|\bMoE\b", re.I)


@pytest.fixture(scope="module", params=["torch", "onnx-int8"])
def semantic(
    request: pytest.FixtureRequest,
    site_settings: Settings,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[TestClient]:
    """The site with the real embedding model: search by meaning as served, with each query
    backend (production's int8 model, and torch's)."""
    settings = site_settings.model_copy(update={"search_semantic": True})
    if request.param == "onnx-int8":
        model = request.getfixturevalue("int8_query_model")
        settings = with_int8_query_model(settings, model, tmp_path_factory.mktemp("int8"))
    with TestClient(create_app(settings)) as c:
        yield c


def found(client: TestClient, query: str, **params: Any) -> list[dict[str, Any]]:
    answer = client.get("/api/papers/search", params={"q": query, **params})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()
    return items


@pytest.mark.model
def test_nonsense_finds_nothing_with_the_real_model(semantic: TestClient) -> None:
    assert len(NONSENSE) == 20
    for query in NONSENSE:
        assert found(semantic, query) == [], query
        page = semantic.get("/search", params={"q": query}).text
        assert listed(page) == [] and "No stored paper matches" in page, query


@pytest.mark.model
def test_off_topic_papers_no_longer_ride_along_with_the_real_model(semantic: TestClient) -> None:
    # Before, "Enhanced 3D Shape Analysis via Information Geometry" came 4th (it shares only
    # "sparsity", its meaning is far): reciprocal rank fusion lifted it on ranks alone.
    items = found(semantic, MOE_QUERY, limit=100)
    assert [item["paper"]["id"] for item in items[:2]] == MOE_SPARSITY
    assert SHAPE_PAPER not in [item["paper"]["id"] for item in items]
    for item in items:
        assert MOE_WORDS.search(f"{item['title']} {item['summary']}"), item["title"]
    # Every paper holding all the words a reader typed is found, whatever its meaning score.
    every = {item["paper"]["id"] for item in found(semantic, "mixture of experts", limit=100)}
    assert {*MOE_SPARSITY, *MOE_ONLY} <= every and SHAPE_PAPER not in every


@pytest.mark.model
def test_one_typed_word_no_paper_shares_with_the_others_still_finds_the_closest(
    semantic: TestClient, site_settings: Settings
) -> None:
    # Fourteen papers hold "LLM agents" and six "tool use", none all four words: the papers
    # holding three of them come, and the page says that none holds them all. (PostgreSQL's
    # English stems have a paper hold "tools" and "using" too: there, one holds them all.)
    page = semantic.get("/search", params={"q": "LLM agents tool use"}).text
    assert {"2512.15943", "2512.16214"} & set(listed(page)[:10])
    in_process = not site_settings.database_url.startswith("postgresql")
    assert (CLOSEST in page) == in_process
    assert CLOSEST not in semantic.get("/search", params={"q": "LLM agents"}).text


def test_the_snippet_of_a_hostile_abstract_stays_inert(client: TestClient) -> None:
    page = client.get("/search", params={"q": "unbalanced bold marks"}).text
    assert HOSTILE_ID in listed(page)
    start = page.index('class="why-line snippet')
    passage = page[start : page.index('<span class="more-label">', start)]
    assert "<mark>unbalanced</mark>" in passage and "<mark>marks</mark>" in passage
    assert "&lt;b&gt;<mark>bold</mark>&lt;/b&gt;" in passage
    assert "<b>" not in passage and "<!--" not in passage and "{{ config }}" in passage
    titled = client.get("/search", params={"q": "onerror alert img"}).text
    assert HOSTILE_ID in listed(titled)
    assert "<script>alert(1)" not in titled and "<img src=x" not in titled


def test_pages_walk_through_every_match_with_a_total(client: TestClient) -> None:
    first = client.get("/search", params={"q": "model"}).text
    total = int(re.search(r"1\N{EN DASH}20 of (\d+) papers", first).group(1))  # type: ignore[union-attr]
    assert total > 20 and len(listed(first)) == 20
    assert 'href="/search?q=model&amp;sort=relevance&amp;page=2" rel="next"' in first
    assert 'rel="prev"' not in first
    second = client.get("/search", params={"q": "model", "page": 2}).text
    assert set(listed(second)).isdisjoint(listed(first)) and "21\N{EN DASH}" in second
    assert 'href="/search?q=model&amp;sort=relevance&amp;page=1" rel="prev"' in second
    past = client.get("/search", params={"q": "model", "page": 200}).text
    assert listed(past) == [] and f"has {total}" in past


def test_the_api_pages_and_counts_its_matches(client: TestClient) -> None:
    answer = client.get("/api/papers/search", params={"q": "model", "limit": 5, "page": 2})
    total = int(answer.headers["X-Total-Count"])
    assert total > 10 and [item["rank"] for item in answer.json()] == [6, 7, 8, 9, 10]
    assert 'page=1>; rel="prev"' in answer.headers["Link"]
    assert 'page=3>; rel="next"' in answer.headers["Link"]
    everything = found(client, "model", limit=100)
    assert len(everything) == min(total, 100)
    assert [i["paper"]["id"] for i in answer.json()] == [i["paper"]["id"] for i in everything[5:10]]
    assert found(client, "model", page=200) == []
    assert client.get("/api/papers/search", params={"q": "model", "page": 0}).status_code == 400


def test_newest_first_orders_matches_by_announcement(client: TestClient) -> None:
    items = found(client, "model", sort="newest", limit=100)
    days = [item["paper"]["announcedOn"] or "" for item in items]
    assert days == sorted(days, reverse=True) and len(set(days)) > 1
    page = client.get("/search", params={"q": "model", "sort": "newest"}).text
    assert "newest first" in page and '<option value="newest" selected>' in page
    assert client.get("/api/papers/search", params={"q": "x", "sort": "oldest"}).status_code == 400


def test_without_a_query_the_newest_day_is_listed_and_its_filters_still_checked(
    client: TestClient,
) -> None:
    listed = client.get("/api/papers/search", params={"limit": 5})
    assert listed.status_code == 200 and len(listed.json()) == 5
    assert int(listed.headers["X-Total-Count"]) > 5
    bad = client.get("/api/papers/search", params={"until": "\u0084"})
    assert bad.status_code == 400 and "until" in bad.text
    before = client.get("/api/papers/search", params={"until": "2000-01-01"})
    assert before.status_code == 200 and before.json() == []
