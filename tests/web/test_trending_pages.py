"""The trending page in pages: a light first page, every paper of the edition a link away
(without JavaScript), and what a reader sees first on a card and on a paper's page."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.page_views import PAPERS_PER_PAGE
from benchmarks.page_weight import ElementCount
from tests.web.conftest import HF_PAPER, LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_pages import card_of, listed

NEXT = re.compile(r'<a href="([^"]+)" rel="next">Papers')
# What the page may hold at most: the first screen's budget, whatever the edition's size.
MAX_ELEMENTS = 1_500


def elements(html: str) -> int:
    """The elements a page opens, counted as benchmarks/page_weight.py counts them."""
    counter = ElementCount()
    counter.feed(html)
    return counter.elements


def test_the_first_page_lists_the_editions_first_papers_and_stays_light(
    client: TestClient, site_settings: Settings
) -> None:
    ids = edition_ids(site_settings, "day", LAST_DAY)
    assert len(ids) > PAPERS_PER_PAGE  # else this proves nothing about paging
    html = client.get("/").text
    assert listed(html) == ids[:PAPERS_PER_PAGE]
    assert f"{len(ids)} papers, chosen from" in html
    assert elements(html) <= MAX_ELEMENTS


def test_following_next_reaches_every_paper_of_the_edition_once_in_order(
    client: TestClient, site_settings: Settings
) -> None:
    seen: list[str] = []
    href: str | None = "/"
    while href is not None:
        html = client.get(href.replace("&amp;", "&")).text
        seen += listed(html)
        found = NEXT.search(html)
        href = found.group(1) if found else None
    assert seen == edition_ids(site_settings, "day", LAST_DAY)


def test_the_pages_links_keep_the_edition_and_its_filters(client: TestClient) -> None:
    html = client.get("/?period=week&date=2025-12-19&category=cs.CV").text
    found = NEXT.search(html)
    if found is None:  # the filter left a single page: nothing to follow
        assert "Page 1 of" not in html
        return
    query = parse_qs(urlsplit(found.group(1).replace("&amp;", "&")).query)
    assert query["period"] == ["week"] and query["category"] == ["cs.CV"]
    assert query["page"] == ["2"] and query["date"]


def test_a_page_past_the_last_is_not_found_and_says_how_many_there_are(
    client: TestClient,
) -> None:
    response = client.get("/?page=99")
    assert response.status_code == 404
    assert "page 99 does not exist" in response.text


def test_a_paper_with_upvotes_leads_with_them_and_the_chance_follows(client: TestClient) -> None:
    editions = client.get(f"/api/papers/{HF_PAPER}").json()["editions"]
    place = next(edition for edition in editions if edition["period"] == "day")
    page = (place["rank"] - 1) // PAPERS_PER_PAGE + 1
    html = client.get("/", params={"date": place["date"], "page": page}).text
    byline, community = card_of(html, HF_PAPER).split('class="meta community"', 1)
    # The upvotes lead the card's byline; folded, the outcome leads, then the chance given.
    assert '<strong title="Hugging Face upvotes">▲ 42 HF upvotes</strong>' in byline
    lead = (
        '<strong class="outcome" title="Hugging Face upvotes">'
        "Featured on Hugging Face, ▲ 42 upvotes"
    )
    assert lead in community and '<strong class="chance"' not in byline + community
    chance = community.find("Paperboy gave it ")
    assert chance == -1 or chance > community.index(lead)


def test_the_filter_forms_empty_topic_means_every_topic(client: TestClient) -> None:
    # What the form sends with "All topics" chosen: an empty topic beside the others.
    response = client.get("/?period=day&date=2025-12-19&category=cs.CV&topic=")
    assert response.status_code == 200
    assert listed(response.text) == listed(client.get("/?category=cs.CV").text)
    for bad in ("abc", "0", "99999999999"):
        assert client.get(f"/?topic={bad}").status_code == 400


def test_a_card_shows_who_what_and_why_and_folds_the_rest(client: TestClient) -> None:
    html = client.get("/").text
    first = listed(html)[0]
    card = card_of(html, first)
    shown, folded = card.split('<details class="card-more">', 1)
    assert f'href="/papers/{first}"' in shown and 'class="authors"' in shown
    assert 'href="/topics/' in shown and 'class="vote"' in shown
    assert '<span class="why-line">' in folded.split("</summary>", 1)[0]  # the line that opens it
    for rest in ('class="summary math"', "https://arxiv.org/pdf/", 'data-reader="save"'):
        assert rest in folded and rest not in shown


def test_a_paper_page_leads_with_its_links_the_project_page_among_them(
    client: TestClient,
) -> None:
    page = client.get(f"/papers/{HF_PAPER}").text
    links = page[
        page.index('<p class="links">') : page.index("</p>", page.index('<p class="links">'))
    ]
    assert 'href="https://animamimic.github.io/"' in links and ">Project page</a>" in links
    assert 'href="https://github.com/example/animamimic"' in links
    assert page.index('<p class="links">') < page.index("<h2>Abstract</h2>")
