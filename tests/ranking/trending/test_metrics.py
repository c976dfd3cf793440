"""Ranking metrics of one day and their bootstrap summary."""

from __future__ import annotations

import math

import pytest

from ranking.trending.metrics import day_metrics, ndcg_at, recall_at, roc_auc, summarise

# Six papers; the second and fifth were featured with 3 and 15 upvotes.
UPVOTES = [None, 3, None, None, 15, None]


def test_recall_counts_featured_papers_in_the_top_k() -> None:
    scores = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    assert recall_at(2, scores, UPVOTES) == 0.5
    assert recall_at(5, scores, UPVOTES) == 1.0


def test_ndcg_gains_log_upvotes_and_is_one_for_the_ideal_order() -> None:
    ideal = [0.0, 5.0, 0.0, 0.0, 9.0, 0.0]
    assert ndcg_at(10, ideal, UPVOTES) == pytest.approx(1.0)
    swapped = [0.0, 9.0, 0.0, 0.0, 5.0, 0.0]
    high, low = math.log2(16), math.log2(4)
    expected = (low + high / math.log2(3)) / (high + low / math.log2(3))
    assert ndcg_at(10, swapped, UPVOTES) == pytest.approx(expected)


def test_auc_is_the_share_of_featured_over_other_pairs_with_ties_half() -> None:
    assert roc_auc([0, 9, 1, 2, 8, 3], UPVOTES) == 1.0
    assert roc_auc([1, 1, 1, 1, 1, 1], UPVOTES) == 0.5
    assert roc_auc([9, 0, 8, 7, 1, 5], UPVOTES) == 0.0


def test_equal_scores_keep_the_pool_order() -> None:
    assert recall_at(1, [1.0] * 6, [3, None, None, None, None, None]) == 1.0
    assert recall_at(1, [1.0] * 6, [None, 3, None, None, None, None]) == 0.0


def test_a_day_without_upvotes_scores_zero_ndcg_rather_than_failing() -> None:
    assert ndcg_at(10, [1.0, 2.0], [0, None]) == 0.0


def test_the_summary_interval_brackets_the_mean_over_days() -> None:
    days = [day_metrics([1.0, 2.0, 3.0], [None, None, 4]), day_metrics([3, 2, 1], [None, None, 4])]
    summary = summarise(days)
    assert set(summary) == {"recall@10", "recall@25", "ndcg@10", "auc"}
    auc = summary["auc"]
    assert auc["mean"] == 0.5
    assert isinstance(auc["ci95"], list)
    low, high = auc["ci95"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0
