"""Week and month editions: which days close a period, how a week weighs its days, its topics."""

from datetime import date

import numpy as np
import pytest

from ranking.days import closing_days
from ranking.period_scores import community_term, per_day_standardised, period_scores
from ranking.topics import nearest

MON, TUE = date(2025, 12, 15), date(2025, 12, 16)


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


def test_each_paper_is_scored_against_the_papers_of_its_own_day() -> None:
    # Monday's scores are all higher than Tuesday's; each day's best still stands level.
    days = [MON, MON, MON, TUE, TUE, TUE]
    raw = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.0])
    standing = per_day_standardised(days, raw)
    assert standing[0] == pytest.approx(standing[3])
    assert standing[:3].mean() == pytest.approx(0.0) and standing[3:].mean() == pytest.approx(0.0)


def test_a_day_of_one_paper_or_of_equal_scores_stands_at_the_average() -> None:
    standing = per_day_standardised([MON, TUE, TUE], np.array([9.0, 1.0, 1.0]))
    assert standing.tolist() == [0.0, 0.0, 0.0]


def test_community_counts_so_far_lift_a_paper_within_its_day() -> None:
    upvoted = community_term({"hf_upvotes": 42.0, "paperboy_votes": 1.0})
    assert upvoted == pytest.approx(0.5 * np.log1p(42) + 0.5 * np.log1p(1))
    assert community_term({}) == 0.0
    scores = period_scores([MON, MON], np.array([1.0, 0.5]), np.array([0.0, upvoted]))
    assert scores[1] > scores[0]


def test_a_period_cluster_takes_the_closest_day_topic_when_close_enough() -> None:
    known = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    current = np.array([[0.96, 0.28], [0.6, 0.8], [0.99, 0.14]], dtype=np.float32)
    # Two clusters may continue the same topic; one too far from every topic continues none.
    assert nearest(current, known, 0.9) == [0, None, 0]
    assert nearest(current[:0], known, 0.9) == []
