import re
from collections.abc import Iterator
from datetime import date
from html import unescape

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.core.config import Settings
from app.core.explanations import chance_words, given_words, part_words
from app.core.tex import tex_text
from app.web.page_views import PAPERS_PER_PAGE
from tests.ranking.explaining import AUTHORS, QUIET, UPVOTES
from tests.web.conftest import HF_PAPER, HF_SUBMITTER, HOSTILE_ID, LAST_DAY, OLD_STYLE_ID
from tests.web.explained import PLAIN, RARE, RARE_WORDS, TOP, TOP_WORDS, explained_site
from tests.web.helpers import a_topic_of, edition_ids, whole_edition

PAPER_LINK = re.compile(r'<h[2-4] class="title"><a href="/papers/([^"]+)"')
DETAILS = re.compile(r"<details.*?</details>", re.S)
REASONS = re.compile(r'<ul class="reasons">(.*?)</ul>', re.S)
# A number after "score": what a card showed before it said the chance in words.
BARE_SCORE = re.compile(r"score\s*[-\u2212+]?\d", re.I)


def listed(html: str) -> list[str]:
    return PAPER_LINK.findall(html)


def card_of(html: str, arxiv_id: str) -> str:
    start = html.index(f'<li class="paper" id="p-{arxiv_id}"')
    return html[start : html.index("</article>", start)]


def visible(html: str) -> str:
    """What a reader sees before opening anything: the page without its <details>."""
    return DETAILS.sub("", html)


def reasons_listed(card: str) -> list[str]:
    return [
        unescape(text) for text in re.findall(r"<li>(.*?)</li>", "".join(REASONS.findall(card)))
    ]


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with explained_site(tmp_path_factory.mktemp("explained")) as client:
        yield client


def test_the_home_page_is_the_latest_daily_edition_in_rank_order(
    client: TestClient, site_settings: Settings
) -> None:
    response = client.get("/")
    assert response.status_code == 200
    ids = edition_ids(site_settings, "day", LAST_DAY)
    assert listed(response.text) == ids[:PAPERS_PER_PAGE]
    assert listed(whole_edition(client, "/")) == ids
    assert "2025-12-19" in response.text
    assert 'href="/subscribe"' in response.text and 'href="/privacy"' in response.text


def test_each_item_shows_authors_categories_topic_links_and_why(client: TestClient) -> None:
    html = client.get("/").text
    first = card_of(html, listed(html)[0])
    assert 'href="/authors/' in first
    assert 'class="chip"' in first and 'href="/topics/' in first
    assert "https://arxiv.org/abs/" in first and "https://arxiv.org/pdf/" in first
    assert '<details class="why">' not in first  # the numbers wait on the paper's page
    top = client.get("/api/daily_papers", params={"limit": 1}).json()[0]
    page = client.get(f"/papers/{listed(html)[0]}").text
    assert '<details class="why">' in page
    # The parts in words, not their stored names.
    assert all(f"<td>{escape(part_words(name))}</td>" in page for name in top["score_components"])


def test_community_signals_and_code_links_are_shown(client: TestClient) -> None:
    html = client.get("/?date=2025-12-18").text
    if HF_PAPER in listed(html):
        assert "Featured on Hugging Face, ▲ 42 upvotes" in html
    page = client.get(f"/papers/{HF_PAPER}").text
    assert "42 upvotes on Hugging Face" in page
    assert 'href="https://github.com/example/animamimic"' in page


def test_week_and_month_tabs_show_their_own_editions(
    client: TestClient, site_settings: Settings
) -> None:
    week = whole_edition(client, "/?period=week")
    assert listed(week) == edition_ids(site_settings, "week", date(2025, 12, 15))
    assert "Week of 15 Dec 2025" in week
    month = whole_edition(client, "/?period=month&date=2025-12-19")
    assert listed(month) == edition_ids(site_settings, "month", date(2025, 12, 1))
    assert "December 2025" in month


def test_day_navigation_links_the_previous_and_next_announcement_days(client: TestClient) -> None:
    middle = client.get("/?date=2025-12-18").text
    assert 'href="/?period=day&amp;date=2025-12-17" rel="prev"' in middle
    assert 'href="/?period=day&amp;date=2025-12-19" rel="next"' in middle
    assert "Next day" not in client.get("/").text


def test_a_category_filter_keeps_only_papers_in_that_category(client: TestClient) -> None:
    html = client.get("/?category=cs.CV").text
    ids = listed(html)
    assert ids
    for arxiv_id in ids:
        assert "cs.CV" in client.get(f"/api/papers/{arxiv_id}").json()["categories"]


def test_a_topic_filter_keeps_only_papers_of_that_topic(
    client: TestClient, site_settings: Settings
) -> None:
    topic_id, members = a_topic_of(site_settings, LAST_DAY)
    ids = listed(client.get(f"/?topic={topic_id}").text)
    assert ids and set(ids) <= set(members)


def test_bad_page_parameters_are_explained(client: TestClient) -> None:
    bad = client.get("/?date=2025-13-45")
    assert bad.status_code == 400 and "YYYY-MM-DD" in bad.text
    assert client.get("/?period=year").status_code == 400
    assert client.get("/?category=<x>").status_code == 400


def test_a_day_without_an_edition_opens_the_nearest_and_says_so(
    client: TestClient, site_settings: Settings
) -> None:
    weekend = client.get("/?date=2025-12-21")  # a Sunday after the last ranked day
    assert weekend.status_code == 200
    assert "No day edition for 21 Dec 2025: this is the nearest, 19 Dec 2025." in weekend.text
    assert listed(weekend.text) == listed(client.get("/?date=2025-12-19").text)
    long_before = client.get("/?date=2024-01-02")
    assert long_before.status_code == 200 and "No day edition for 2 Jan 2024" in long_before.text
    week = client.get("/?period=week&date=2025-12-19")
    assert 'Trending papers <span class="muted">· Week of 15 Dec 2025</span>' in week.text


def test_a_paper_page_shows_its_abstract_authors_categories_and_edition_scores(
    client: TestClient, site_settings: Settings
) -> None:
    arxiv_id = edition_ids(site_settings, "day", LAST_DAY)[0]
    response = client.get(f"/papers/{arxiv_id}")
    assert response.status_code == 200
    body = client.get(f"/api/papers/{arxiv_id}").json()
    assert body["title"].split()[0] in response.text
    assert 'href="/authors/' in response.text
    assert "19 Dec 2025" in response.text
    components = body["editions"][0]["score_components"]
    assert components and all(escape(part_words(name)) in response.text for name in components)
    assert "Similar papers" in response.text and len(listed(response.text)) == 6


def test_an_old_style_identifier_with_a_slash_has_its_page(client: TestClient) -> None:
    response = client.get(f"/papers/{OLD_STYLE_ID}")
    assert response.status_code == 200
    assert "Old-style identifiers still work" in response.text
    assert 'href="/authors/ada-lovelace"' in response.text


def test_a_versioned_or_prefixed_id_redirects_to_the_canonical_page(client: TestClient) -> None:
    for spelling in (f"{HF_PAPER}v2", f"arXiv:{HF_PAPER}"):
        response = client.get(f"/papers/{spelling}", follow_redirects=False)
        assert response.status_code == 308
        assert response.headers["location"] == f"/papers/{HF_PAPER}"


def test_unknown_or_malformed_papers_are_not_found(client: TestClient) -> None:
    assert client.get("/papers/2512.00000").status_code == 404
    assert client.get("/papers/not-an-id").status_code == 404
    assert client.get("/papers/../../etc/passwd").status_code == 404


def test_every_asset_is_served_by_paperboy(client: TestClient) -> None:
    for page in ("/", f"/papers/{HF_PAPER}", "/search?q=graph"):
        assets = re.findall(
            r'(?:src|href)="([^"]+\.(?:css|js)(?:\?v=[0-9a-f]+)?)"', client.get(page).text
        )
        assert assets and all(url.startswith("/static/") for url in assets)
        for url in assets:
            assert client.get(url).status_code == 200, url


def test_the_trending_page_answers_304_to_its_etag(client: TestClient) -> None:
    first = client.get("/?period=week")
    again = client.get("/?period=week", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    filtered = client.get("/?period=week&category=cs.CV")
    assert filtered.headers["etag"] != first.headers["etag"]


def test_a_day_edition_shows_the_chance_the_counts_beside_it_and_the_reasons_that_helped(
    explained: TestClient,
) -> None:
    top = card_of(explained.get("/").text, TOP)
    community = top[top.index('<div class="meta community">') :]
    # Featured: the outcome leads, and the chance given at announcement follows, as said.
    assert community.index("Featured on Hugging Face, ▲ 42 upvotes") < (
        community.index("Paperboy gave it 12% at announcement")
    )
    assert TOP_WORDS not in community and '<strong class="chance"' not in community
    # The upvotes also lead the card's byline, on its first screen.
    assert top.index('<strong title="Hugging Face upvotes">▲ 42 HF upvotes') < (
        top.index('<div class="meta community">')
    )
    assert '<span class="vote-count">1</span> Paperboy votes' in community
    assert "★ 10 GitHub stars" in community
    assert reasons_listed(top) == [AUTHORS, UPVOTES]  # biggest first; not what held it back
    assert QUIET not in visible(top)
    assert not BARE_SCORE.search(visible(top))


def test_the_numbers_behind_the_words_wait_in_a_closed_details(explained: TestClient) -> None:
    assert '<details class="why">' not in card_of(explained.get("/").text, TOP)
    page = explained.get(f"/papers/{TOP}").text
    numbers = DETAILS.findall(page[page.index('<table class="editions">') :])[0]
    assert numbers.startswith('<details class="why">')  # closed: no `open` attribute
    # One table, in words: the parts known at announcement add up to the score the chance is
    # read from, and the rest to the score that orders the edition.
    assert numbers.count("<table>") == 1 and "_" not in re.sub(r"<[^>]*>", "", numbers)
    assert f'<td>{escape(part_words("prior"))}</td><td></td><td class="num">+2.000</td>' in numbers
    announced = re.search(
        r"<th>At announcement</th><td>(.*?)</td><td class=\"num\">(.*?)</td>", numbers
    )
    assert announced is not None and announced.groups() == (
        f"read as {chance_words(0.123456)}",
        "+2.000",
    )
    assert '<th>Score that orders the edition</th><td></td><td class="num">+2.000</td>' in numbers


def test_a_paper_without_a_chance_or_reasons_says_nothing_of_them(explained: TestClient) -> None:
    html = explained.get("/").text
    assert RARE_WORDS in card_of(html, RARE)
    plain = card_of(html, PLAIN)
    assert "chance to be featured" not in plain and 'class="reasons"' not in plain


def test_a_week_edition_shows_rank_counts_and_reasons_but_no_chance(
    explained: TestClient,
) -> None:
    week = explained.get("/?period=week").text
    assert listed(week) == [TOP, RARE, PLAIN]
    assert "chance to be featured" not in week
    top = card_of(week, TOP)
    assert "Featured on Hugging Face, ▲ 42 upvotes" in top
    assert reasons_listed(top) == [AUTHORS, UPVOTES]


def test_the_paper_page_shows_each_editions_chance_and_reasons(explained: TestClient) -> None:
    page = explained.get(f"/papers/{TOP}").text
    rows = page[page.index('<table class="editions">') : page.index("<h2>Similar papers")]
    day, week = rows.split('<td><a href="/?period=')[1:]
    # Featured since: the day's chance is said as given, not as an open bet.
    assert "19 Dec 2025" in day and given_words(0.123456) in day and AUTHORS in visible(day)
    assert "Week of 15 Dec 2025" in week and "chance to be featured" not in week
    assert "★ 10 stars on GitHub" in page and not BARE_SCORE.search(visible(rows))


def test_whatever_the_shipped_scorer_fills_each_card_says_its_chance_and_reasons(
    client: TestClient,
) -> None:
    html = whole_edition(client, "/")
    items = client.get("/api/daily_papers", params={"sort": "trending", "limit": 100}).json()
    for item in items:
        card = card_of(html, item["paper"]["id"])
        chance, featured = item["chance"], item["paper"]["id"] == HF_PAPER
        said = given_words if featured else chance_words
        assert (said(chance) in card) if chance is not None else ('class="chance"' not in card)
        helped = [r["text"] for r in item["explanation"] if r["value"] > 0]
        assert reasons_listed(card) == helped[:3]
        assert not BARE_SCORE.search(visible(card))


SUMMARY = re.compile(r'<div class="summary math">\s*<p>(.*?)</p>(.*?)</div>', re.S)
MORE = re.compile(
    r'<details class="more">\s*<summary>more<span class="visually-hidden"> of the '
    r"abstract</span></summary>\s*<p>(.*?)</p>",
    re.S,
)


def _text_of(fragment: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", fragment))


def test_a_card_shows_the_abstracts_opening_and_keeps_the_rest_behind_more(
    client: TestClient,
) -> None:
    html = whole_edition(client, "/")
    items = client.get("/api/daily_papers", params={"sort": "trending", "limit": 100}).json()
    folded = 0
    for item in items:
        [(lead, after)] = SUMMARY.findall(card_of(html, item["paper"]["id"]))
        # A card shows the abstract with its TeX text commands as HTML ("\\%" as "%").
        whole = " ".join(_text_of(str(tex_text(item["summary"]))).split())
        shown = _text_of(lead)
        assert whole.startswith(shown.removesuffix("…")) and len(shown) <= 301
        rest = MORE.findall(after)
        if rest:
            folded += 1
            assert '<details class="more" open' not in after
            joined = f"{shown.removesuffix('…')} {_text_of(rest[0]).removeprefix('…')}"
            assert " ".join(joined.split()) == whole or shown.endswith("…")
        else:
            assert shown == whole
    assert folded > len(items) / 2  # most abstracts are longer than two sentences


def test_every_page_with_cards_loads_the_maths_renderer_for_titles_and_abstracts(
    client: TestClient, site_settings: Settings
) -> None:
    topic, _ = a_topic_of(site_settings, LAST_DAY)
    for url in ("/", f"/topics/{topic}", "/authors/ada-lovelace", f"/papers/{HF_PAPER}"):
        html = client.get(url).text
        assert re.search(r'<script src="/static/math\.js\?v=[0-9a-f]+" defer></script>', html), url
        assert 'class="bidi math">' in html, url
    assert client.get("/static/math.js").status_code == 200


def attribute(url: str) -> str:
    return url.replace("&", "&amp;")


def test_a_card_links_the_code_and_project_page_the_api_names(client: TestClient) -> None:
    html = whole_edition(client, "/?date=2025-12-18")
    items = client.get(
        "/api/daily_papers", params={"date": "2025-12-18", "sort": "trending", "limit": 100}
    ).json()
    pages = 0
    for item in items:
        card = card_of(html, item["paper"]["id"])
        code, project = item["paper"].get("githubRepo"), item["paper"].get("projectPage")
        assert ("Code</a>" in card) == (code is not None)
        assert ("Project page</a>" in card) == (project is not None)
        if code:
            assert f'<a href="{attribute(code)}" rel="noopener nofollow">Code' in card
        if project:
            pages += 1
            assert f'<a href="{attribute(project)}" rel="noopener nofollow">Project page' in card
    assert pages >= 1


def test_a_card_on_hugging_face_links_its_page_discussion_and_names_who_submitted_it(
    client: TestClient,
) -> None:
    day = next(
        day
        for day in ("2025-12-17", "2025-12-18", "2025-12-19")
        if HF_PAPER
        in [
            item["paper"]["id"]
            for item in client.get("/api/daily_papers", params={"date": day, "limit": 100}).json()
        ]
    )
    html = whole_edition(client, f"/?date={day}")
    items = client.get("/api/daily_papers", params={"date": day, "limit": 100}).json()
    listed = [item for item in items if item["paper"]["upvotes"] or item.get("submittedBy")]
    assert [item["paper"]["id"] for item in listed] == [HF_PAPER]
    card = card_of(html, HF_PAPER)
    assert f'<a href="https://huggingface.co/papers/{HF_PAPER}" rel="noopener">Hugging Face' in card
    assert f'href="https://huggingface.co/papers/{HF_PAPER}#community"' in card
    assert ">3 comments on Hugging Face</a>" in card
    assert '<a href="/organizations/ByteDance-Seed"' in card and ">ByteDance Seed</a>" in card
    assert f"submitted by {HF_SUBMITTER}" in card
    for item in items:
        if item["paper"]["id"] != HF_PAPER:
            other = card_of(html, item["paper"]["id"])
            assert "huggingface.co" not in other and "submitted by" not in other


def test_the_paper_page_links_hugging_face_and_its_discussion(client: TestClient) -> None:
    text = " ".join(unescape(client.get(f"/papers/{HF_PAPER}").text).split())
    assert f'<a href="https://huggingface.co/papers/{HF_PAPER}" rel="noopener">' in text
    assert f'<a href="https://huggingface.co/papers/{HF_PAPER}#community" rel="noopener"' in text
    assert ">3 comments on Hugging Face</a>" in text
    assert (
        'submitted under <a href="/organizations/ByteDance-Seed">ByteDance Seed</a>, put on the'
        f" daily page by {HF_SUBMITTER}." in text
    )
    own = client.get(f"/papers/{HOSTILE_ID}").text.split("<h2>In Paperboy", 1)[0]
    assert "huggingface.co/papers" not in own.split("</head>", 1)[1]


def test_the_rank_is_read_out_as_text_and_no_plain_div_has_an_aria_label(
    client: TestClient,
) -> None:
    html = whole_edition(client, "/")
    first = card_of(html, listed(html)[0])
    assert '<div class="rank"><span class="visually-hidden">Rank </span>1</div>' in first
    assert not re.search(r"<div[^>]*aria-label", html)
    search_free = client.get(f"/papers/{HF_PAPER}").text
    assert '<div class="rank"></div>' in search_free  # similar papers: no rank, nothing to read


def test_a_hostile_abstract_on_a_card_stays_text(client: TestClient) -> None:
    card = card_of(whole_edition(client, "/"), HOSTILE_ID)
    [(lead, _)] = SUMMARY.findall(card)
    assert "&lt;b&gt;bold&lt;/b&gt; {{ config }} &lt;!-- comment" in lead
    assert "$\\frac{1}{ unbalanced" in lead and "<b>" not in card
