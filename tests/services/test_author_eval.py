"""Synthetic merges of real authors, and B-cubed scores of how a name is split."""

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from app.services.author_eval import (
    Authored,
    authored,
    bcubed,
    draw,
    evaluate,
    methods,
    works_of,
)
from ranking.trending.data import load_corpus, load_embeddings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "people"
CORPUS_PATH = FIXTURES / "authors.jsonl.gz"
EMBEDDINGS_PATH = FIXTURES / "authors.f16.npy"


@pytest.fixture(scope="module")
def corpus() -> Authored:
    return authored(load_corpus(CORPUS_PATH), load_embeddings(EMBEDDINGS_PATH))


def test_bcubed_of_a_perfect_split_a_lumped_name_and_singletons() -> None:
    truth = [0, 0, 1, 1]
    assert bcubed([5, 5, 7, 7], truth)["bcubed_f1"] == 1.0
    lumped = bcubed([0, 0, 0, 0], truth)
    assert (lumped["bcubed_precision"], lumped["bcubed_recall"]) == (0.5, 1.0)
    assert lumped["bcubed_f1"] == pytest.approx(2 / 3)
    alone = bcubed([0, 1, 2, 3], truth)
    assert (alone["bcubed_precision"], alone["bcubed_recall"]) == (1.0, 0.5)


def test_merged_names_are_distinct_authors_who_never_wrote_together(corpus: Authored) -> None:
    merged = draw(corpus, {"pair": 8, "triple": 3, "hard": 1}, seed=0)
    assert sorted(name.kind for name in merged) == ["hard"] + ["pair"] * 8 + ["triple"] * 3
    assert len({tuple(sorted(name.authors)) for name in merged}) == len(merged)
    for name in merged:
        assert len(set(name.authors)) == len(name.authors)
        for one, other in combinations(name.authors, 2):
            assert len(corpus.papers[one]) >= 3 and len(corpus.papers[other]) >= 3
            ids = {p.arxiv_id for p in corpus.papers[one]}
            assert ids.isdisjoint(p.arxiv_id for p in corpus.papers[other])


def test_a_hard_pair_shares_a_main_category_and_a_coauthor_name(corpus: Authored) -> None:
    (hard,) = draw(corpus, {"hard": 1}, seed=3)
    first, second = hard.authors
    coauthors = [
        {key for p in corpus.papers[author] for key in corpus.keys(p)} - {author}
        for author in (first, second)
    ]
    assert coauthors[0] & coauthors[1]
    mains = {
        Counter(p.primary_category for p in corpus.papers[a]).most_common(1)[0][0]
        for a in (first, second)
    }
    assert len(mains) == 1


def test_the_truth_of_a_merged_name_is_who_wrote_each_paper(corpus: Authored) -> None:
    (name,) = draw(corpus, {"pair": 1}, seed=1)
    papers, truth = works_of(corpus, name.authors)
    for paper, author in zip(papers, truth, strict=True):
        assert name.authors[author] in corpus.keys(paper)


def test_results_score_every_method_on_every_name_and_single_author(corpus: Authored) -> None:
    merged = draw(corpus, {"pair": 6, "triple": 2, "hard": 1}, seed=0)
    results = evaluate(corpus, merged, methods())
    assert results["names"] == 9 and results["hard_share"] == pytest.approx(1 / 9)
    assert results["single_authors"] == len({a for name in merged for a in name.authors})
    for method in ("paperboy", "one_per_name", "by_category"):
        summary = results["summary"][method]
        low, high = summary["bcubed_f1"]["ci95"]
        assert 0 < low <= summary["bcubed_f1"]["mean"] <= high <= 1
    # One person per name never splits a single author and always recalls everything.
    assert results["summary"]["one_per_name"]["oversplit"]["mean"] == 0.0
    assert results["summary"]["one_per_name"]["bcubed_recall"]["mean"] == 1.0
    assert set(results["by_kind"]) == {"pair", "triple", "hard"}
