"""eval-personal's pairs, metrics and methods on a real author's day."""

import numpy as np

from app.services.personal_eval import Methods, evaluate, pair_metrics, ratio, reciprocal_rank
from app.services.personal_inputs import Pair, sample
from digest.taste_space import load_space
from tests.services.personal import author_day


def test_a_pair_is_an_authors_earlier_papers_against_every_paper_of_their_day() -> None:
    corpus, pair = author_day()
    assert pair.author == "jihua-zhu"
    assert pair.day.isoformat() == "2025-10-22"
    assert len(pair.profile) == 3 and len(pair.pool) == 21 and len(pair.relevant) == 1
    assert all(corpus.papers[row].announced_on < pair.day for row in pair.profile)
    assert {corpus.papers[row].announced_on for row in pair.pool} == {pair.day}


def test_the_reciprocal_rank_is_that_of_the_best_placed_relevant_paper() -> None:
    assert reciprocal_rank([0.1, 0.9, 0.5], [None, None, 1]) == 0.5
    assert reciprocal_rank([0.1, 0.9, 0.5], [1, 1, None]) == 1.0
    assert reciprocal_rank([0.3, 0.3, 0.3], [None, None, 1]) == 1 / 3  # ties keep pool order
    assert reciprocal_rank([0.1, 0.2], [None, None]) == 0.0


def test_metrics_of_a_ranking_that_puts_the_one_relevant_paper_second() -> None:
    pair = Pair(
        author="someone",
        day=author_day()[1].day,
        profile=[0],
        pool=list(range(12)),
        relevant=frozenset({5}),
    )
    scores = np.zeros(12)
    scores[[3, 5]] = [2.0, 1.0]
    metrics = pair_metrics(scores, pair)
    assert metrics == {"recall@10": 1.0, "mrr": 0.5, "ndcg@10": 1 / np.log2(3)}


def test_every_method_ranks_the_pool_and_is_summarised_with_an_interval() -> None:
    corpus, pair = author_day()
    results = evaluate(Methods(corpus).all(), [pair], found=1)
    assert set(results["summary"]) == {
        "asl_svm",
        "mean_cosine",
        "max_cosine",
        "paperboy",
        "paperboy_corpus_tfidf",
    }
    for summary in results["summary"].values():
        assert set(summary) == {"recall@10", "mrr", "ndcg@10"}
        low, high = summary["mrr"]["ci95"]
        assert low <= summary["mrr"]["mean"] <= high
        assert summary["recall@10"]["mean"] == 1.0  # 1 relevant paper in a pool of 21


def test_with_a_taste_space_the_raw_match_is_measured_beside_it() -> None:
    corpus, pair = author_day()
    methods = Methods(corpus, space=load_space())
    assert "paperboy_raw_embeddings" in methods.all()
    assert not np.allclose(methods.paperboy(pair), methods.paperboy_raw(pair))
    assert np.allclose(methods.paperboy_raw(pair), Methods(corpus).paperboy(pair))


def test_a_sample_is_drawn_once_for_a_seed_and_kept_in_day_order() -> None:
    _, pair = author_day()
    found = [
        Pair(author=f"author-{n}", day=pair.day, profile=[], pool=[], relevant=frozenset())
        for n in range(10)
    ]
    drawn = sample(found, 4, seed=3)
    assert drawn == sample(found, 4, seed=3)
    assert [found.index(p) for p in drawn] == sorted(found.index(p) for p in drawn)
    assert sample(found, None, seed=3) == found


def test_the_ratio_to_the_anchor_resamples_the_same_pairs_for_both() -> None:
    rows = [
        {
            "methods": {
                "paperboy": dict.fromkeys(("recall@10", "mrr", "ndcg@10"), ours),
                "asl_svm": dict.fromkeys(("recall@10", "mrr", "ndcg@10"), theirs),
            }
        }
        for ours, theirs in [(1.0, 0.5), (0.5, 0.25), (0.0, 0.0), (0.8, 0.4)]
    ]
    over = ratio(rows, "paperboy", "asl_svm")
    assert over["recall@10"]["mean"] == 2.0
    assert over["mrr"]["ci95"] == [2.0, 2.0]  # twice as good on every pair: no spread
    assert ratio(rows, "paperboy", "missing") == {}
