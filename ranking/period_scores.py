"""How a week or month orders papers announced on different days (pure).

A paper's period score is its day-level score, what the scorer said of it among the papers of
its own announcement day before any community signal (for the trending model, the logit of
its calibrated chance at announcement), plus its community counts so far (Hugging Face
upvotes, Paperboy votes), weighed as the trending scorer weighs them but without their decay:
in a week, Monday's paper has had four more days to gather upvotes than Friday's, and
forgetting Monday's upvotes by Friday would rank the week by Friday's alone.

The day-level scores are not standardised per day. A calibrated chance is already on one scale
across days (the probability of being featured), and standardising it gives a strong day's
runner-up the place of a weak day's best: on twelve weeks of real data it ranked the weeks
worse than the plain sum, as did per-day percentiles, interleaving and concatenating the day
orders (docs/ranking.md, "Week and month editions"; benchmarks/week_editions.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from ranking.trending.scorer import COMMUNITY_WEIGHTS


def community_term(counts: Mapping[str, float]) -> float:
    """A paper's community counts so far on the logit scale, undecayed."""
    return sum(
        weight * math.log1p(max(counts.get(source, 0.0), 0.0))
        for source, weight in COMMUNITY_WEIGHTS.items()
    )


def period_scores(
    day_scores: NDArray[np.float64], community: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The period's score of each paper: its day-level score plus its counts so far."""
    return np.asarray(day_scores + community, dtype=np.float64)
