from datetime import date

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.web.conftest import HF_PAPER, HF_SUBMITTER, HOSTILE_ID, LAST_DAY, OLD_STYLE_ID
from tests.web.helpers import edition_ids


def test_daily_papers_come_in_hugging_faces_shape_with_paperboys_score(
    client: TestClient, site_settings: Settings
) -> None:
    response = client.get("/api/daily_papers", params={"date": "2025-12-19", "sort": "trending"})
    assert response.status_code == 200
    items = response.json()
    assert [item["paper"]["id"] for item in items] == edition_ids(site_settings, "day", LAST_DAY)[
        :50
    ]
    first = items[0]
    assert set(first["paper"]) >= {
        "id",
        "title",
        "summary",
        "authors",
        "publishedAt",
        "upvotes",
        "ai_keywords",
        "paperboyVotes",
        "primaryCategory",
        "version",
        "announcedOn",
    }
    assert set(first) >= {"publishedAt", "title", "summary", "numComments", "score", "topic"}
    assert all("name" in author for author in first["paper"]["authors"])
    assert first["score"] == pytest.approx(sum(first["score_components"].values()), abs=1e-6)
    assert [item["score"] for item in items] == sorted((i["score"] for i in items), reverse=True)


def test_without_sort_the_order_is_hugging_faces_most_upvotes_first(
    client: TestClient, site_settings: Settings
) -> None:
    """HF's recorded answers (tests/fixtures/hf_daily) come most upvoted first; ties keep
    Paperboy's trending order."""
    trending = edition_ids(site_settings, "week", date(2025, 12, 15))
    items = client.get("/api/daily_papers", params={"week": "2025-W51", "limit": 100}).json()
    ids = [item["paper"]["id"] for item in items]
    assert ids[0] == HF_PAPER and items[0]["paper"]["upvotes"] == 42
    assert ids[1:] == [i for i in trending if i != HF_PAPER][:99]


def test_hugging_face_fields_are_filled_from_its_signals(client: TestClient) -> None:
    items = client.get("/api/daily_papers", params={"week": "2025-W51", "limit": 100}).json()
    item = next(item for item in items if item["paper"]["id"] == HF_PAPER)
    paper = item["paper"]
    assert paper["upvotes"] == 42 and item["numComments"] == 3
    assert paper["ai_keywords"] == ["3D animation", "video diffusion"]
    assert paper["githubRepo"] == "https://github.com/example/animamimic"
    assert paper["githubStars"] == 10
    assert paper["projectPage"] == "https://animamimic.github.io/"
    assert paper["submittedOnDailyAt"] == "2025-12-18T00:17:01.674Z"
    assert paper["submittedOnDailyBy"] == {
        "user": HF_SUBMITTER,
        "name": HF_SUBMITTER,
        "type": "user",
    }
    assert item["submittedBy"] == paper["submittedOnDailyBy"]
    assert (
        paper["organization"]
        == item["organization"]
        == {"name": "ByteDance-Seed", "fullname": "ByteDance Seed"}
    )
    # Hugging Face's publishedAt is arXiv's submission time, which its signal carries.
    assert paper["publishedAt"] == item["publishedAt"] == "2025-12-16T17:51:38.000Z"
    assert paper["paperboyVotes"] == 0
    detail = client.get(f"/api/papers/{HF_PAPER}").json()
    assert {key: detail[key] for key in ("upvotes", "githubStars", "projectPage")} == {
        "upvotes": 42,
        "githubStars": 10,
        "projectPage": "https://animamimic.github.io/",
    }
    assert detail["numComments"] == 3


def test_a_paper_hugging_face_never_had_leaves_its_keys_out_not_null(
    client: TestClient, site_settings: Settings
) -> None:
    others = [i for i in edition_ids(site_settings, "day", LAST_DAY) if i != HF_PAPER][:5]
    for arxiv_id in others:
        body = client.get(f"/api/papers/{arxiv_id}").json()
        absent = {"githubStars", "submittedOnDailyAt", "submittedOnDailyBy", "organization"}
        assert not absent & set(body), arxiv_id
        assert body["upvotes"] == 0 and body["numComments"] == 0
        # Paperboy's own key phrases stand in for HF's ai_keywords: words of the paper.
        assert body["ai_keywords"], arxiv_id
        text = f"{body['title']} {body['summary']}".lower()
        assert all(phrase.split()[0] in text for phrase in body["ai_keywords"])
        assert all(value is not None for key, value in body.items() if key.startswith("github"))


def test_published_at_is_the_submission_time_else_the_announcement_evening(
    client: TestClient, site_settings: Settings
) -> None:
    hostile = client.get(f"/api/papers/{HOSTILE_ID}").json()
    assert hostile["publishedAt"] == "2025-12-17T15:30:05.000Z"
    listing_only = next(
        i for i in edition_ids(site_settings, "day", LAST_DAY) if i not in {HF_PAPER, HOSTILE_ID}
    )
    body = client.get(f"/api/papers/{listing_only}").json()
    # Listed on Friday 19 December: announced Thursday 20:00 US/Eastern (EST, UTC-5).
    assert body["announcedOn"] == "2025-12-19"
    assert body["publishedAt"] == "2025-12-19T01:00:00.000Z"
    assert body["primaryCategory"] is None and body["version"] is None  # listing-only


def test_the_submitter_filter_keeps_only_that_users_papers(client: TestClient) -> None:
    params: dict[str, str | int] = {"week": "2025-W51", "limit": 100}
    mine = client.get("/api/daily_papers", params={**params, "submitter": HF_SUBMITTER}).json()
    assert [item["paper"]["id"] for item in mine] == [HF_PAPER]
    upper = client.get("/api/daily_papers", params={**params, "submitter": "TAESIRI"}).json()
    assert upper == mine
    assert client.get("/api/daily_papers", params={**params, "submitter": "nobody"}).json() == []


def test_weeks_months_pages_and_sorting_select_what_is_asked(
    client: TestClient, site_settings: Settings
) -> None:
    week = edition_ids(site_settings, "week", date(2025, 12, 15))
    params: dict[str, str | int] = {"week": "2025-W51", "p": 1, "limit": 10, "sort": "trending"}
    page = client.get("/api/daily_papers", params=params)
    assert [item["paper"]["id"] for item in page.json()] == week[10:20]
    month = client.get("/api/daily_papers", params={"month": "2025-12", "limit": 100}).json()
    assert len(month) == 100
    newest = client.get(
        "/api/daily_papers", params={"month": "2025-12", "sort": "publishedAt", "limit": 100}
    ).json()
    dates = [item["publishedAt"] for item in newest]
    assert dates == sorted(dates, reverse=True)


def test_sorting_by_published_at_breaks_ties_by_rank(client: TestClient) -> None:
    params: dict[str, str | int] = {"month": "2025-12", "sort": "publishedAt", "limit": 100}
    newest = client.get("/api/daily_papers", params=params).json()
    keys = [(item["publishedAt"], item["rank"]) for item in newest]
    assert len({moment for moment, _ in keys}) < len(keys)  # papers announced together tie
    assert keys == sorted(keys, key=lambda key: (key[0], -key[1]), reverse=True)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"date": "2025-02-30"}, "YYYY-MM-DD"),
        ({"date": "yesterday"}, "YYYY-MM-DD"),
        ({"week": "2025-W60"}, "YYYY-Www"),
        ({"month": "2025-13"}, "YYYY-MM"),
        ({"date": "2025-12-19", "week": "2025-W51"}, "at most one"),
        ({"limit": 101}, "limit"),
        ({"limit": 0}, "limit"),
        ({"p": -1}, "p"),
        ({"sort": "random"}, "sort"),
    ],
)
def test_bad_daily_papers_parameters_get_a_clear_400(
    client: TestClient, params: dict[str, str | int], message: str
) -> None:
    response = client.get("/api/daily_papers", params=params)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    assert message in response.json()["error"]["message"]


def test_an_edition_that_does_not_exist_is_a_404_json_error(client: TestClient) -> None:
    response = client.get("/api/daily_papers", params={"date": "2020-01-01"})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no day edition for 2020-01-01"


def test_an_unchanged_edition_answers_304_to_its_etag(client: TestClient) -> None:
    first = client.get("/api/daily_papers")
    assert first.headers["cache-control"].startswith("public")
    # No Last-Modified: the body carries upvotes and votes that change after publication, so
    # only the ETag (a hash of the body) can say it is unchanged.
    assert "last-modified" not in first.headers
    again = client.get("/api/daily_papers", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    since = client.get(
        "/api/daily_papers", headers={"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"}
    )
    assert since.status_code == 200
    other = client.get("/api/daily_papers", headers={"If-None-Match": '"something-else"'})
    assert other.status_code == 200


def test_the_api_answers_cross_origin_reads(client: TestClient) -> None:
    origin = {"Origin": "https://reader.example"}
    response = client.get("/api/daily_papers", headers=origin)
    assert response.headers["access-control-allow-origin"] == "*"
    preflight = client.options(
        "/api/papers/search",
        headers={**origin, "Access-Control-Request-Method": "GET"},
    )
    assert preflight.status_code == 200
    assert "GET" in preflight.headers["access-control-allow-methods"]
    assert "POST" not in preflight.headers["access-control-allow-methods"]


def test_a_paper_by_id_includes_its_topic_and_editions(
    client: TestClient, site_settings: Settings
) -> None:
    arxiv_id = edition_ids(site_settings, "day", LAST_DAY)[0]
    body = client.get(f"/api/papers/{arxiv_id}").json()
    assert body["id"] == arxiv_id
    assert {"period": "day", "date": "2025-12-19", "rank": 1}.items() <= body["editions"][0].items()
    old = client.get(f"/api/papers/{OLD_STYLE_ID}v2").json()
    assert old["id"] == OLD_STYLE_ID and old["editions"] == []


def test_unknown_and_malformed_paper_ids_get_json_errors(client: TestClient) -> None:
    assert client.get("/api/papers/2512.00001").status_code == 404
    bad = client.get("/api/papers/robert'); DROP TABLE papers;--")
    assert bad.status_code == 400 and "not an arXiv identifier" in bad.json()["error"]["message"]
    assert client.get(f"/api/papers/{HF_PAPER}").status_code == 200


def test_topics_and_authors_are_served_as_json(client: TestClient) -> None:
    topics = client.get("/api/topics").json()
    assert topics and {"id", "label", "size", "status", "day"} <= set(topics[0])
    one = client.get(f"/api/topics/{topics[0]['id']}").json()
    assert one["label"] == topics[0]["label"] and one["sizes"] and one["papersByDay"]
    assert client.get("/api/topics/999999").status_code == 404
    # An id written with a stray character names nothing, though int() would read it.
    for stray in ("%0D", "%20", "+"):
        assert client.get(f"/api/topics/{stray}{topics[0]['id']}").status_code == 404, stray
        assert client.get(f"/topics/{stray}{topics[0]['id']}").status_code == 404, stray
    author = client.get("/api/authors/jose-perez").json()
    assert author["spellings"] == ["Jose Perez", "José Pérez"]
    assert client.get("/api/authors/nobody-at-all").status_code == 404


def test_the_version_endpoint_answers_without_the_database(client: TestClient) -> None:
    assert client.get("/api/version").json() == {"name": "paperboy", "version": "0.1.0"}


def test_the_api_is_documented_in_openapi(client: TestClient) -> None:
    paths = client.get("/api/openapi.json").json()["paths"]
    assert {"/api/daily_papers", "/api/papers/{arxiv_id}", "/api/papers/search"} <= set(paths)
    assert {"/api/topics", "/api/topics/{topic_id}", "/api/authors/{key}"} <= set(paths)


def test_a_client_past_the_rate_limit_gets_429_with_retry_after(site_settings: Settings) -> None:
    limited = site_settings.model_copy(
        update={"api_rate_limit_per_minute": 6, "api_rate_limit_burst": 2}
    )
    with TestClient(create_app(limited)) as client:
        codes = [client.get("/api/topics").status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        response = client.get("/api/topics")
        assert response.status_code == 429 and int(response.headers["retry-after"]) >= 1
        assert client.get("/").status_code == 200  # pages are not rate-limited
