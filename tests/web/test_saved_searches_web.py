"""Following a search from its page: "Follow in my digest", the list on "For you" with each
search's feeds, its section among the picks, and the limits said in words."""

from __future__ import annotations

import html
import re

from fastapi.testclient import TestClient

from accounts.saved_searches import MAX_SAVED
from app.core.config import Settings
from tests.web.conftest import LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_reader import SignedIn, _for_you, _post, ada

__all__ = ["ada"]  # the signed-in reader fixture, used by name below

QUERY = "AnimaMimic"


def _saved(page: str) -> list[str]:
    part = page[page.index('id="searches"') : page.index("Your private feed")]
    return [html.unescape(label) for label in re.findall(r'class="bidi">([^<]+)</a>', part)]


def test_a_search_followed_from_its_page_is_listed_with_its_feeds_and_can_be_dropped(
    client: TestClient, ada: SignedIn
) -> None:
    page = client.get("/search", params={"q": QUERY, "category": "cs.GR"}).text
    assert 'action="/searches/save"' in page and f'name="q" value="{QUERY}"' in page
    _post(client, ada, "/searches/save", q=QUERY, category="cs.GR")
    _post(client, ada, "/searches/save", q=QUERY, category="cs.GR")  # once is enough
    mine = _for_you(client, ada)
    assert _saved(mine) == [f"{QUERY} (in cs.GR)"]
    for fmt in ("rss", "atom", "json"):
        link = f"/search/feed.{fmt}?q={QUERY}&amp;category=cs.GR"
        assert link in mine
        assert client.get(html.unescape(link)).status_code == 200
    [ident] = re.findall(r'action="/searches/(\d+)/delete"', mine)
    _post(client, ada, f"/searches/{ident}/delete")
    assert _saved(_for_you(client, ada)) == []


def test_a_followed_search_is_a_section_of_for_you_with_why(
    client: TestClient, ada: SignedIn, site_settings: Settings
) -> None:
    # A paper of the day's edition below the picks a reader with no taste gets.
    arxiv_id = next(
        i
        for i in edition_ids(site_settings, "day", LAST_DAY)[20:]
        if "<" not in client.get(f"/api/papers/{i}").json()["title"]
    )
    words = " ".join(client.get(f"/api/papers/{arxiv_id}").json()["title"].split()[:5])
    _post(client, ada, "/searches/save", q=words)
    page = html.unescape(_for_you(client, ada))
    heading = f"New for “{words}”"
    assert f'<h2 class="section-heading">{heading}</h2>' in page
    section = page[page.index(heading) : page.index('<h2 class="section-heading">Picked for you')]
    assert f'id="p-{arxiv_id.replace("/", "-")}"' in section
    assert f"matches your search “{words}”" in section


def test_a_search_saved_again_in_other_case_is_already_saved_and_one_that_shows_nothing_refused(
    client: TestClient, ada: SignedIn
) -> None:
    _post(client, ada, "/searches/save", q="graph neural networks")
    _post(client, ada, "/searches/save", q="GRAPH neural networks")
    _post(client, ada, "/searches/save", q="graph\u200b neural\u202e networks")
    for query in ("\u200b", "\u2066\u2069 \u200e", "\ufffd -graph"):
        answer = client.post(
            "/searches/save", data={"q": query}, headers=ada.headers, follow_redirects=False
        )
        assert answer.status_code == 400 and "needs a word that shows" in answer.text
    assert _saved(_for_you(client, ada)) == ["graph neural networks"]


def test_what_cannot_be_saved_is_a_clear_400_and_keeps_what_was_saved(
    client: TestClient, ada: SignedIn
) -> None:
    for n in range(MAX_SAVED):
        _post(client, ada, "/searches/save", q=f"graph {n}")
    refusals = {
        "x" * 201: "at most 200 characters",
        "one more": "you follow 20 searches",
        "<script>alert(1)</script> -a -b": "you follow 20 searches",
    }
    for query, said in refusals.items():
        answer = client.post(
            "/searches/save", data={"q": query}, headers=ada.headers, follow_redirects=False
        )
        assert answer.status_code == 400 and said in answer.text
        assert "<script>alert" not in answer.text
    bad_category = client.post(
        "/searches/save",
        data={"q": "graph 0", "category": "<b>"},
        headers=ada.headers,
        follow_redirects=False,
    )
    assert bad_category.status_code == 400 and "is not an arXiv category" in bad_category.text
    assert len(_saved(_for_you(client, ada))) == MAX_SAVED


def test_following_a_search_needs_a_signed_in_reader_of_this_site(
    client: TestClient, ada: SignedIn
) -> None:
    anonymous = client.post("/searches/save", data={"q": QUERY}, follow_redirects=False)
    assert (anonymous.status_code, anonymous.headers["location"]) == (303, "/signin")
    elsewhere = ada.headers | {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
    assert client.post("/searches/save", data={"q": QUERY}, headers=elsewhere).status_code == 403
    assert _saved(_for_you(client, ada)) == []
