"""An author page as the profile pages promise it: what the ranking knows in words, their
Hugging Face organizations, topics over time, followers, the claim, and a drawn graph."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from fastapi.testclient import TestClient

from accounts import reader
from accounts.subscriptions import delete_everything
from app.core.config import Settings
from tests.web.conftest import HF_PAPER, HOSTILE_AUTHOR
from tests.web.test_reader import SignedIn, _session

SVG = "{http://www.w3.org/2000/svg}"
FEATURED = "tianyi-xie"  # an author of the paper the fixture's Hugging Face record features


def _facts(page: str) -> list[str]:
    found = re.search(r'<ul class="facts">(.*?)</ul>', page, re.S)
    assert found is not None
    return [html.unescape(one) for one in re.findall(r"<li>(.*?)</li>", found.group(1))]


def test_the_page_says_in_words_how_hugging_face_and_paperboy_saw_their_work(
    client: TestClient,
) -> None:
    page = client.get(f"/authors/{FEATURED}").text
    said = _facts(page)
    assert said[0] == "Hugging Face featured 1 paper by Tianyi Xie, with a median of 42 upvotes."
    assert re.fullmatch(
        r"Paperboy's estimate at announcement for their latest ranked paper \(\d\d \w{3} 2025\): "
        r"(\d+%|under 1%) chance to be featured on Hugging Face\.",
        said[1],
    )
    assert '<a href="/organizations/ByteDance-Seed" class="bidi">ByteDance Seed</a> (1)' in page
    body = client.get(f"/api/authors/{FEATURED}").json()
    assert body["facts"] == said  # the API says the same
    assert body["organizations"] == [
        {"slug": "ByteDance-Seed", "name": "ByteDance Seed", "papers": 1}
    ]
    assert "<h2>Topics over time</h2>" in page and "December 2025" in page
    # Each work says the chance its day gave it, after the outcome it has since had.
    card = re.search(rf'<li class="paper" id="p-{HF_PAPER}".*?</li>', page, re.S)
    assert card is not None
    assert re.search(
        r"Featured on Hugging Face.*Paperboy gave it (\d+%|under 1%) at", card.group(0), re.S
    )


def test_an_author_never_featured_is_told_so_without_an_organization(client: TestClient) -> None:
    body = client.get("/api/authors/jose-perez").json()
    name = body["name"]
    assert (
        body["facts"][0] == f"Hugging Face has not featured a paper by {name} that Paperboy holds."
    )
    assert body["organizations"] == [] and body["followers"] == 0 and body["claimed"] is False


def _graph(page: str) -> ET.Element:
    found = re.search(r'<svg class="graph".*?</svg>', page, re.S)
    assert found is not None
    return ET.fromstring(found.group(0).replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))


def test_the_collaboration_graph_is_a_picture_beside_the_same_facts_as_a_table(
    client: TestClient,
) -> None:
    page = client.get(f"/authors/{FEATURED}").text
    graph = _graph(page)
    assert graph.get("role") == "img" and graph.find(f"{SVG}title") is not None
    body = client.get(f"/api/authors/{FEATURED}").json()
    shown = body["collaborators"]
    lines = graph.findall(f"{SVG}line")
    assert len(lines) == len(shown) and len(graph.findall(f"{SVG}circle")) == len(shown) + 1
    for line, one in zip(lines, shown, strict=True):
        title = line.find(f"{SVG}title")
        assert title is not None and title.text == (
            f"Tianyi Xie and {one['name']}: 1 paper, mostly on {one['topic']}"
        )
        assert f'<a href="/authors/{one["key"]}" class="bidi">' in page  # the table beside it
    labels = [text.text for text in graph.findall(f"{SVG}text")]
    assert labels[-1] == "Tianyi Xie"


def test_a_hostile_coauthor_name_stays_text_in_the_graph(client: TestClient) -> None:
    page = client.get("/authors/jose-perez").text
    assert "<img src=x" not in page
    labels = [text.text or "" for text in _graph(page).findall(f"{SVG}text")]
    assert any(HOSTILE_AUTHOR.startswith(label.rstrip("…")) for label in labels[:-1])


def test_followers_and_the_claim_are_counted_never_named(
    client: TestClient, site_settings: Settings
) -> None:
    ada = SignedIn(site_settings, "author-page-reader@example.org")
    try:
        for path in (f"/authors/{FEATURED}/follow", f"/authors/{FEATURED}/claim"):
            answer = client.post(path, headers=ada.headers, follow_redirects=False)
            assert answer.status_code == 303
        # Unverified, a claim is the reader's own: nothing public says it.
        page = client.get(f"/authors/{FEATURED}").text
        assert "1 reader follows this name · unclaimed" in _flat(page)
        assert client.get(f"/api/authors/{FEATURED}").json()["claimed"] is False
        with _session(site_settings) as session:
            found = reader.find(session, ada.address)
            assert found is not None
            found.claim_verified_at = datetime.now(UTC)
            found.claim_verified_by = "moderator:mod@example.org"
        page = client.get(f"/authors/{FEATURED}").text
        assert "1 reader follows this name · claimed by its researcher (verified)" in _flat(page)
        assert ada.address not in page
        body = client.get(f"/api/authors/{FEATURED}").json()
        assert (body["followers"], body["claimed"]) == (1, True)
    finally:
        with _session(site_settings) as session:
            found = reader.find(session, ada.address)
            if found is not None:
                delete_everything(session, found)
    assert "0 readers follow this name · unclaimed" in _flat(
        client.get(f"/authors/{FEATURED}").text
    )


def _flat(page: str) -> str:
    """The page's text on one line, its tags left out (the count is a script's to update)."""
    return " ".join(re.sub(r"<[^>]+>", "", page).split())
