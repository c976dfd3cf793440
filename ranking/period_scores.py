"""How a week or month orders papers announced on different days (pure).

A paper's period score starts from its day-level score: what the scorer said of it among the
papers of its own announcement day, without community signals (for the trending model, the
logit of its calibrated chance at announcement). To that it adds its community counts so far
(Hugging Face upvotes, Paperboy votes), as the trending scorer weighs them but without their
decay: in a week, Monday's paper has had four more days to gather upvotes than Friday's, and
that is corrected below, not by forgetting Monday's upvotes.

The sum is then standardised among the papers of the same announcement day (its z-score).
Days differ in what their raw scores mean: a large day's papers each have a smaller chance
(Hugging Face features a few papers a day, however many arXiv announces) and an earlier day's
papers have had longer to gather upvotes. Standardising per day asks of every paper the same
question, "how far above its own day does it stand?", so the week holds each day's best in
proportion to how far they stand out. docs/ranking.md ("Week and month editions") and
benchmarks/week_editions.py measure this against concatenating and interleaving the day
orders and against the raw score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date

import numpy as np
from numpy.typing import NDArray

from ranking.trending.scorer import COMMUNITY_WEIGHTS


def community_term(counts: Mapping[str, float]) -> float:
    """A paper's community counts so far on the logit scale, undecayed."""
    return sum(
        weight * math.log1p(max(counts.get(source, 0.0), 0.0))
        for source, weight in COMMUNITY_WEIGHTS.items()
    )


def per_day_standardised(days: Sequence[date], raw: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each value's z-score among the values of its own day (0 for a day of one paper or of
    equal values, which then tie with the average paper of any other day)."""
    result = np.zeros(len(raw), dtype=np.float64)
    keys = np.array([day.toordinal() for day in days])
    for key in np.unique(keys):
        rows = keys == key
        values = raw[rows]
        spread = float(values.std())
        result[rows] = (values - values.mean()) / spread if spread > 0 else 0.0
    return result


def period_scores(
    days: Sequence[date], day_scores: NDArray[np.float64], community: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The period's score of each paper: day-level score plus counts so far, per day z-scored."""
    return per_day_standardised(days, np.asarray(day_scores + community, dtype=np.float64))
