"""The trending model served as a :class:`ranking.scoring.Scorer` (editions, ``paperboy rank``).

The total is the sum of named components, all on the logit scale:
``prior`` + ``author_history`` + ``topic_momentum`` + ``community``. The first three come from
the trained artifact (:mod:`ranking.trending.model`); ``community`` adds the signals observed
so far, each ``weight * log(1 + value)`` halved every ``COMMUNITY_HALF_LIFE_DAYS``.

What the scorer needs besides the pool comes in the :class:`ScoringContext`:

* ``author_history``: an :class:`~ranking.trending.history.AuthorHistory` (label records and
  earlier corpus papers); without it every author is a newcomer;
* ``topic_memory``: a :class:`~ranking.trending.momentum.TopicMemory` of earlier papers'
  embeddings; without it the topic momentum is read from ``Candidate.topic_momentum`` and the
  community-interest features are zero.

:func:`pool_features` is the one place features are computed, for training, evaluation and
live ranking alike.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate, Score, ScoringContext, Signal
from ranking.trending.features import feature_matrix
from ranking.trending.history import AuthorStats
from ranking.trending.model import TrendingModel
from ranking.trending.momentum import TOPIC_FEATURES
from ranking.trending.reasons import reasons

COMMUNITY_HALF_LIFE_DAYS = 3.0
# Logit added per unit of log(1 + signal): an HF upvote counts as much as a Paperboy vote.
COMMUNITY_WEIGHTS = {"hf_upvotes": 0.5, "paperboy_votes": 0.5}


class TrendingScorer:
    """Scores a day's pool with a trained :class:`TrendingModel`."""

    def __init__(self, model: TrendingModel) -> None:
        self.model = model

    @property
    def name(self) -> str:
        return "trending"

    @property
    def version(self) -> str:
        return self.model.model_id

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        features = pool_features(candidates, context)
        parts = self.model.components(features)
        # The chance is read before any community signal: what the model expects at
        # announcement; community counts are shown beside it, not folded into it.
        chances = self.model.chance(sum(parts.values(), np.zeros(len(candidates))))
        community = community_signal(context.signals, context)
        parts["community"] = np.array([community.get(c.arxiv_id, 0.0) for c in candidates])
        said = reasons(candidates, features, parts, community_counts(context.signals, context))
        rows = []
        for index in range(len(candidates)):
            components = {name: float(values[index]) for name, values in parts.items()}
            chance = float(chances[index])
            rows.append(
                Score(
                    total=sum(components.values()),
                    components=components,
                    chance=None if math.isnan(chance) else chance,
                    reasons=said[index],
                )
            )
        return rows


def pool_features(candidates: Sequence[Candidate], context: ScoringContext) -> NDArray[np.float64]:
    """The model's input rows for ``candidates`` as known on ``context.day``."""
    stats = _author_stats(candidates, context)
    return feature_matrix(candidates, context.embeddings, stats, _topics(candidates, context))


def _topics(candidates: Sequence[Candidate], context: ScoringContext) -> NDArray[np.float64]:
    memory = context.topic_memory
    if memory is None:
        topics = np.zeros((len(candidates), len(TOPIC_FEATURES)))
        topics[:, 0] = [candidate.topic_momentum for candidate in candidates]
        return topics
    return memory.features(context.embeddings, context.day.toordinal())


def _author_stats(candidates: Sequence[Candidate], context: ScoringContext) -> list[AuthorStats]:
    history = context.author_history
    if history is None:
        return [AuthorStats() for _ in candidates]
    return [history.stats(candidate, context.day) for candidate in candidates]


def community_counts(
    signals: Sequence[Signal], context: ScoringContext
) -> dict[str, dict[str, float]]:
    """What a reader is told per paper: Hugging Face upvotes (the latest count observed by the
    day) and Paperboy votes (every vote cast by the day)."""
    counts: dict[str, dict[str, float]] = defaultdict(dict)
    for signal in sorted(signals, key=lambda one: one.observed_on):
        if signal.observed_on > context.day:
            continue
        seen = counts[signal.arxiv_id]
        if signal.source == "hf_upvotes":
            seen["hf_upvotes"] = signal.value
        elif signal.source == "paperboy_votes":
            seen["paperboy_votes"] = seen.get("paperboy_votes", 0.0) + signal.value
    return dict(counts)


def community_signal(signals: Sequence[Signal], context: ScoringContext) -> dict[str, float]:
    """Decayed community signal per paper; signals from after the ranking day are ignored."""
    totals: dict[str, float] = defaultdict(float)
    for signal in signals:
        age = (context.day - signal.observed_on).days
        weight = COMMUNITY_WEIGHTS.get(signal.source, 0.0)
        if age >= 0 and weight and signal.value > 0:
            decay = 0.5 ** (age / COMMUNITY_HALF_LIFE_DAYS)
            totals[signal.arxiv_id] += weight * math.log1p(signal.value) * decay
    return dict(totals)
