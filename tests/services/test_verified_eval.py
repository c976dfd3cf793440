"""``eval-authors --method verified``: the claim each merged name gets, and its scores over
the papers the claim does not list."""

from datetime import date

import numpy as np
import pytest

from app.services.author_eval import Authored, Merged, works_of
from app.services.verified_eval import (
    claim_of,
    evaluate_verified,
    midpoint,
    score_claim,
    verified_methods,
)
from ranking.scoring import Candidate

MIDDLE = date(2025, 6, 1)


def _paper(arxiv_id: str, author: str, day: date) -> Candidate:
    return Candidate(
        arxiv_id=arxiv_id,
        title=f"Paper {arxiv_id}",
        abstract="",
        authors=(author.replace("-", " ").title(), f"Co {arxiv_id}"),
        categories=("cs.CV",),
        primary_category="cs.CV",
        comment=None,
        announced_on=day,
    )


BEFORE, AFTER = date(2025, 3, 1), date(2025, 9, 1)
# Ana has the most papers, two on each side of the middle; Cy has the most of his name, all
# before it; Bo and Dee have fewer.
WRITTEN = {
    "ana": [BEFORE, BEFORE, AFTER, AFTER],
    "bo": [BEFORE, AFTER],
    "cy": [BEFORE, BEFORE, BEFORE],
    "dee": [AFTER],
}


@pytest.fixture
def corpus() -> Authored:
    papers = {
        key: [_paper(f"{key}.{n}", key, day) for n, day in enumerate(days)]
        for key, days in WRITTEN.items()
    }
    vectors = {p.arxiv_id: np.ones(4, dtype=np.float32) for ps in papers.values() for p in ps}
    return Authored(papers, vectors)


def test_the_author_with_most_papers_lists_those_before_the_middle(corpus: Authored) -> None:
    assert midpoint(date(2025, 1, 1), date(2025, 12, 31)) == date(2025, 7, 2)
    claim = claim_of(corpus, Merged("pair", ("bo", "ana")), MIDDLE)
    assert claim is not None
    papers, _ = works_of(corpus, ("bo", "ana"))
    assert [papers[i].arxiv_id for i in sorted(claim.listed)] == ["ana.0", "ana.1"]
    assert [papers[i].arxiv_id for i in claim.later] == ["ana.2", "ana.3"]
    assert claim_of(corpus, Merged("pair", ("cy", "dee")), MIDDLE) is None


def test_scores_count_the_unlisted_papers_only(corpus: Authored) -> None:
    claim = claim_of(corpus, Merged("pair", ("ana", "bo")), MIDDLE)
    assert claim is not None
    # Ana's four papers, then Bo's two; the listed ones are the first two.
    apart = score_claim([0, 0, 1, 1, 2, 2], claim)
    assert apart["bcubed_f1"] == 1.0 and apart["split_off"] == 1.0
    assert score_claim([0, 0, 0, 0, 1, 1], claim) == apart | {"split_off": 0.0}
    # Every paper one person: precision 1/2 on the four unlisted papers (it would be 5/9
    # over all six), recall 1.
    lumped = score_claim([0] * 6, claim)
    assert lumped["bcubed_precision"] == pytest.approx(0.5)
    assert lumped["bcubed_f1"] == pytest.approx(2 / 3)


def test_names_without_papers_on_both_sides_are_skipped_and_counted(corpus: Authored) -> None:
    merged = [Merged("pair", ("ana", "bo")), Merged("pair", ("cy", "dee"))]
    results = evaluate_verified(corpus, merged, MIDDLE, verified_methods())
    assert (results["names"], results["skipped"]) == (1, 1)
    assert [row["authors"] for row in results["rows"]] == [["ana", "bo"]]
    assert results["rows"][0]["listed"] == 2
    assert set(results["summary"]) == {"verified", "paperboy", "one_per_name"}
    lumped = results["rows"][0]["methods"]["one_per_name"]
    assert lumped["bcubed_f1"] == pytest.approx(2 / 3) and lumped["split_off"] == 0.0


def test_the_split_knows_which_papers_came_before_the_feed_was_read(corpus: Authored) -> None:
    claim = claim_of(corpus, Merged("pair", ("ana", "bo")), MIDDLE)
    assert claim is not None
    papers, _ = works_of(corpus, ("ana", "bo"))
    assert [papers[i].arxiv_id for i in sorted(claim.older)] == ["ana.0", "ana.1", "bo.0"]


def test_a_feed_listing_a_share_of_the_papers_leaves_the_rest_to_be_scored() -> None:
    days = [BEFORE] * 40 + [AFTER] * 2
    ana = [_paper(f"ana.{n}", "ana", day) for n, day in enumerate(days)]
    bo = [_paper("bo.0", "bo", BEFORE), _paper("bo.1", "bo", AFTER)]
    vectors = {p.arxiv_id: np.ones(4, dtype=np.float32) for p in [*ana, *bo]}
    corpus = Authored({"ana": ana, "bo": bo}, vectors)
    whole = claim_of(corpus, Merged("pair", ("ana", "bo")), MIDDLE)
    part = claim_of(corpus, Merged("pair", ("ana", "bo")), MIDDLE, feed_share=0.5)
    assert whole is not None and part is not None
    assert len(whole.listed) == 40 and 5 < len(part.listed) < 35
    assert part.listed < whole.listed and part.later == whole.later
    # The same papers in every run.
    assert claim_of(corpus, Merged("pair", ("ana", "bo")), MIDDLE, feed_share=0.5) == part
