"""One truth per number: a paper's chance reads the same wherever it appears for the same
meaning (the model's, or the content-only one the radar ranks by), a known outcome leads its
chance, and figures on too small a sample say so."""

from __future__ import annotations

import re
from datetime import date
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.core.explanations import content_chance_words, given_words, percent_words
from app.web.accuracy import bin_rows
from app.web.view_models import PaperFacts, Signals, card
from ranking.scorecard import Bin
from tests.web.conftest import HF_PAPER, LAST_DAY
from tests.web.helpers import a_topic_of, whole_edition

PERCENT = re.compile(r"under 1%|over 99%|\d+%")
# (paper, meaning) -> the percent a reader reads
Said = dict[tuple[str, str], set[str]]


class ChanceReader(HTMLParser):
    """Every chance a page shows, by the paper and the meaning it names (data-chance)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []
        self._open: tuple[str, str] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if named.get("data-chance"):
            self._open, self._text = (named["data-paper"] or "", named["data-chance"] or ""), ""

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag in ("span", "strong"):
            number = PERCENT.search(self._text)
            assert number is not None, self._text
            self.found.append((*self._open, number.group(0)))
            self._open = None


def chances(html: str) -> list[tuple[str, str, str]]:
    reader = ChanceReader()
    reader.feed(html)
    return reader.found


def one_number_each(pages: list[str], said: Said | None = None) -> Said:
    said = {} if said is None else said
    for html in pages:
        for paper, meaning, percent in chances(html):
            said.setdefault((paper, meaning), set()).add(percent)
    disagreeing = {key: found for key, found in said.items() if len(found) > 1}
    assert not disagreeing
    return said


def assert_checked_against(page: str, everywhere: Said) -> None:
    """The page's cards show chances of papers whose outcome is still open (the sample's
    Hugging Face records judge none of its days), the day pages show the same papers' chances,
    and each reads the same: a page whose chance differed would fail here."""
    shown = chances(page)
    open_ = [(paper, percent) for paper, meaning, percent in shown if meaning == "model"]
    assert open_, "the page shows no chance to check"
    assert any((paper, "model") in everywhere for paper, _ in open_)
    one_number_each([page], dict(everywhere))


def model_chances(client: TestClient, day: str) -> dict[str, str]:
    items = client.get("/api/daily_papers", params={"date": day, "limit": 100}).json()
    return {
        item["paper"]["id"]: percent_words(item["chance"])
        for item in items
        if item["chance"] is not None
    }


@pytest.fixture(scope="module")
def everywhere(client: TestClient) -> Said:
    """The chances of the day pages, the base every other page is checked against."""
    days = ["2025-12-17", "2025-12-18", LAST_DAY.isoformat()]
    said = one_number_each([whole_edition(client, f"/?date={day}") for day in days])
    for day in days:
        for paper, percent in model_chances(client, day).items():
            assert said.get((paper, "model"), {percent}) == {percent}
    return said


def test_the_front_page_shows_one_chance_per_paper_the_apis(
    client: TestClient, everywhere: Said
) -> None:
    shown = chances(whole_edition(client, "/"))
    assert shown and all(meaning == "model" for _, meaning, _ in shown)
    api = model_chances(client, LAST_DAY.isoformat())
    assert all(api[paper] == percent for paper, _, percent in shown)


def test_a_topic_page_agrees_with_the_front_page(
    client: TestClient, site_settings: Settings, everywhere: Said
) -> None:
    topic, _ = a_topic_of(site_settings, LAST_DAY)
    page = client.get(f"/topics/{topic}").text
    assert_checked_against(page, everywhere)


def test_a_paper_page_agrees_with_its_cards(client: TestClient, everywhere: Said) -> None:
    pages = [client.get(f"/papers/{paper}").text for paper, _ in list(everywhere)[:5]]
    pages.append(client.get(f"/papers/{HF_PAPER}").text)
    one_number_each(pages, dict(everywhere))
    assert (HF_PAPER, "model") in everywhere


def test_under_the_radar_names_its_content_only_chance(
    client: TestClient, everywhere: Said
) -> None:
    page = client.get("/under-the-radar").text
    said = one_number_each([page], dict(everywhere))
    assert all(meaning == "content" for (_, meaning) in set(said) - set(everywhere))
    assert content_chance_words(0.18) == "18% chance from its text and topic alone"


def test_the_week_review_agrees_with_the_day_pages(client: TestClient, everywhere: Said) -> None:
    page = client.get("/week-in-review").text
    shown = chances(page)
    assert shown  # its predictions name their chance
    one_number_each([page], dict(everywhere))


def test_search_results_agree_with_the_day_pages(client: TestClient, everywhere: Said) -> None:
    pages = [client.get("/search", params={"q": q}).text for q in ("animation", "diffusion")]
    for page in pages:
        assert_checked_against(page, everywhere)


def test_a_featured_paper_says_so_before_the_chance_it_was_given(client: TestClient) -> None:
    html = whole_edition(client, "/?date=2025-12-17")
    start = html.index(f'id="p-{HF_PAPER}"')
    community = html[start : html.index("</article>", start)]
    outcome = community.index("Featured on Hugging Face, ▲ 42 upvotes")
    given = re.search(r"Paperboy gave it (under 1%|\d+%) at announcement", community)
    assert given is not None and given.start() > outcome
    assert "chance to be featured" not in community


def _facts(announced: date) -> PaperFacts:
    return PaperFacts(
        arxiv_id="2512.00001",
        title="T",
        abstract="A.",
        authors=("Ada",),
        categories=("cs.LG",),
        primary_category="cs.LG",
        comment=None,
        announced_on=announced,
        version=1,
    )


def test_a_closed_window_reads_as_passed_over_and_an_open_one_as_a_chance() -> None:
    closed = card(1, _facts(date(2025, 12, 1)), None, None, Signals(), date(2025, 12, 5))
    open_ = card(1, _facts(date(2025, 12, 9)), None, None, Signals(), date(2025, 12, 5))
    featured = card(1, _facts(date(2025, 12, 9)), None, None, Signals(on_hugging_face=True))
    assert closed.passed_over and closed.outcome_known
    assert not open_.passed_over and not open_.outcome_known
    assert featured.outcome_known and not featured.passed_over
    assert given_words(0.14) == "Paperboy gave it 14% at announcement"


def _bin(low: float, high: float, mean_chance: float, featured_share: float, papers: int) -> Bin:
    return Bin(
        low=low, high=high, mean_chance=mean_chance, featured_share=featured_share, papers=papers
    )


def test_calibration_bins_never_read_the_same_at_both_ends() -> None:
    bins = [
        _bin(0.0001, 0.001, 0.0005, 0.0, 10),
        _bin(0.0018, 0.0021, 0.002, 0.0, 10),
        _bin(0.0021, 0.0024, 0.0022, 0.0, 10),
        _bin(0.0024, 0.007, 0.005, 0.1, 10),
        _bin(0.0072, 0.0074, 0.0073, 0.0, 10),
    ]
    rows = bin_rows(bins)
    labels = [row.label for row in rows]
    # Alike ends merge forward; a last bin alike at both ends joins the one before.
    assert labels == ["0.0% to 0.1%", "0.2% to 0.7%"]
    assert sum(row.papers for row in rows) == 50
    assert rows[1].featured_share == pytest.approx(0.1 / 4)


def test_a_week_review_without_its_four_weeks_says_so(client: TestClient) -> None:
    page = client.get("/week-in-review").text
    assert "<strong>Too few weeks to judge</strong>" in page
    assert "<code>docs/benchmarks.md#f-week-review</code>" in page and 'href="/accuracy"' in page
