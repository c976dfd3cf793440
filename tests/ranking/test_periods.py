"""Week and month editions: which days close a period, how a week scores papers, its topics."""

from datetime import date

import numpy as np
import pytest

from ranking.period_pool import community_term, period_scores
from ranking.pipeline import closing_days
from ranking.topics import nearest


def test_a_range_publishes_each_week_and_month_once_after_its_last_day() -> None:
    days = [
        date(2025, 12, 18),
        date(2025, 12, 19),
        date(2025, 12, 22),
        date(2025, 12, 31),
        date(2026, 1, 1),
        date(2026, 1, 2),
    ]
    # 12-31 and 01-01 share an ISO week but not a month; 01-02 ends the range.
    closing = [date(2025, 12, 19), date(2025, 12, 22), date(2025, 12, 31), date(2026, 1, 2)]
    assert closing_days(days) == closing
    assert closing_days([]) == []


def test_a_paper_counts_its_upvotes_so_far_undecayed_on_top_of_its_day_level_score() -> None:
    upvoted = community_term({"hf_upvotes": 42.0, "paperboy_votes": 1.0})
    assert upvoted == pytest.approx(0.5 * np.log1p(42) + 0.5 * np.log1p(1))
    assert community_term({}) == 0.0
    scores = period_scores(np.array([1.0, 0.5]), np.array([0.0, upvoted]))
    assert scores.tolist() == pytest.approx([1.0, 0.5 + upvoted])


def test_day_level_scores_keep_one_scale_across_days() -> None:
    # A strong day's runner-up stays above a weak day's best: nothing is rescaled per day.
    strong, weak = np.array([3.0, 2.5]), np.array([1.0])
    scores = period_scores(np.concatenate([strong, weak]), np.zeros(3))
    assert list(np.argsort(-scores)) == [0, 1, 2]


def test_a_period_cluster_takes_the_closest_day_topic_when_close_enough() -> None:
    known = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    current = np.array([[0.96, 0.28], [0.6, 0.8], [0.99, 0.14]], dtype=np.float32)
    # Two clusters may continue the same topic; one too far from every topic continues none.
    assert nearest(current, known, 0.9) == [0, None, 0]
    assert nearest(current[:0], known, 0.9) == []
