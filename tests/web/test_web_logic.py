from contextvars import copy_context
from datetime import date

import numpy as np
import pytest

from app.web.forms import BadInputError, edition_key, key_label, parse_week
from app.web.limits import RateLimiter
from app.web.read_routing import Memo, built_afresh, reading_standbys
from app.web.view_models import Coauthor, PaperFacts, Signals, code_url, collaborators, project_page
from search.query import best_rows


def test_best_rows_keeps_only_allowed_matches_best_first() -> None:
    scores = np.array([0.1, 0.9, -np.inf, 0.5, 0.7])
    allowed = np.array([True, True, True, True, False])
    assert best_rows(scores, allowed, 10) == [1, 3, 0]
    assert best_rows(scores, allowed, 1) == [1]


def test_a_bucket_refills_at_the_configured_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=60, burst=2, clock=lambda: now[0])
    assert [limiter.retry_after("a") for _ in range(3)] == [None, None, 1]
    assert limiter.retry_after("b") is None  # per client
    now[0] = 1.0
    assert limiter.retry_after("a") is None
    assert RateLimiter(per_minute=0, burst=1).retry_after("a") is None


def test_weeks_and_months_name_their_first_day() -> None:
    assert parse_week("2025-W51") == date(2025, 12, 15)
    assert edition_key(None, None, "2025-12") == ("month", date(2025, 12, 1))
    assert edition_key(None, None, None) == ("day", None)
    assert key_label("week", date(2025, 12, 15)) == "2025-W51"
    with pytest.raises(BadInputError, match="YYYY-Www"):
        parse_week("2025-W00")


def test_the_code_link_is_hugging_faces_or_the_first_repository_in_the_text() -> None:
    paper = PaperFacts(
        arxiv_id="2501.00001",
        title="T",
        abstract="See https://github.com/a/b. Also https://gitlab.com/c/d",
        authors=(),
        categories=(),
        primary_category=None,
        comment=None,
        announced_on=None,
        version=None,
    )
    assert code_url(paper, Signals()) == "https://github.com/a/b"
    assert (
        code_url(paper, Signals(github_repo="https://github.com/x/y")) == "https://github.com/x/y"
    )
    assert code_url(paper, Signals(github_repo="javascript:alert(1)")) == "https://github.com/a/b"


def test_the_project_page_is_named_in_the_comment_or_abstract_else_none() -> None:
    def paper(abstract: str, comment: str | None = None) -> PaperFacts:
        return PaperFacts(
            arxiv_id="2501.00001",
            title="T",
            abstract=abstract,
            authors=(),
            categories=(),
            primary_category=None,
            comment=comment,
            announced_on=None,
            version=None,
        )

    named = paper("We release code.", comment="Project page: https://example.org/p.")
    assert project_page(named, Signals()) == "https://example.org/p"
    assert project_page(paper("Demo at https://lab.github.io/x"), Signals()) == (
        "https://lab.github.io/x"
    )
    assert project_page(paper("Our project page is not linked."), Signals()) is None
    assert code_url(paper("Code is on github.com/a/b, no link."), Signals()) is None


def test_collaborators_rank_by_shared_papers_then_name() -> None:
    ranked = collaborators(
        [Coauthor("b", "Bea", 2), Coauthor("a", "Al", 2), Coauthor("c", "Cy", 5)]
    )
    assert [(one.author.key, one.shared_papers) for one in ranked] == [("c", 5), ("a", 2), ("b", 2)]


def test_a_kept_response_is_rebuilt_after_its_time_to_live() -> None:
    now = [0.0]
    built: list[int] = []
    memo = Memo(ttl_seconds=60, max_entries=2, clock=lambda: now[0])

    def build() -> int:
        built.append(1)
        return len(built)

    assert [memo.get("a", build), memo.get("a", build)] == [1, 1]
    now[0] = 61.0
    assert memo.get("a", build) == 2
    memo.get("b", build), memo.get("c", build)
    assert memo.get("a", build) == 5  # the oldest entry was dropped past max_entries


def test_a_kept_none_is_kept_like_any_value() -> None:
    # An edition that is not stored is looked up once per time-to-live, not on every request.
    built: list[None] = []
    memo = Memo(ttl_seconds=60)

    def build() -> None:
        built.append(None)

    memo.get("no such edition", build)
    memo.get("no such edition", build)
    assert len(built) == 1
    assert memo.peek("no such edition") is None and memo.peek("never asked") is None


def test_a_revalidation_rebuilds_what_a_standby_may_have_built_and_keeps_the_newer() -> None:
    built: list[int] = []
    memo = Memo(ttl_seconds=60)

    def build() -> int:
        built.append(1)
        return len(built)

    with reading_standbys():
        assert memo.get("a", build) == 1
    with built_afresh():
        assert memo.get("a", build) == 2
        # Built from the primary now: the next revalidation (its threads too) is served it.
        assert copy_context().run(memo.get, "a", build) == 2
    assert memo.get("a", build) == 2
    with reading_standbys():
        assert memo.get("a", build) == 2  # the newer value is kept for every reader
    drawn_from_the_primary = Memo(ttl_seconds=60, afresh_on_revalidation=False)
    with reading_standbys():
        assert drawn_from_the_primary.get("a", build) == 3
    with built_afresh():
        assert drawn_from_the_primary.get("a", build) == 3
