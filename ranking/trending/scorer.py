"""The trending model served as a :class:`ranking.scoring.Scorer` (editions, ``paperboy rank``).

The total is the sum of named components, all on the logit scale:
``prior`` + ``author_history`` + ``topic_momentum`` + ``community``. The first three come from
the trained artifact (:mod:`ranking.trending.model`); ``community`` adds the signals observed
so far, each ``weight * log(1 + value)`` halved every ``COMMUNITY_HALF_LIFE_DAYS``.

What the scorer needs besides the pool comes through ``ScoringContext.extras``:

* ``extras[AUTHOR_HISTORY_KEY]``: an :class:`~ranking.trending.history.AuthorHistory`
  (label records and earlier corpus papers); without it every author is a newcomer;
* ``extras[TOPIC_MEMORY_KEY]``: a :class:`~ranking.trending.momentum.TopicMemory` of earlier
  papers' embeddings; without it the topic momentum is read from ``Candidate.topic_momentum``
  and the community-interest features are zero.

:func:`pool_features` is the one place features are computed, for training, evaluation and
live ranking alike.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate, Score, ScoringContext, Signal
from ranking.trending.features import feature_matrix
from ranking.trending.history import AuthorHistory, AuthorStats
from ranking.trending.model import TrendingModel
from ranking.trending.momentum import TOPIC_FEATURES, TopicMemory

AUTHOR_HISTORY_KEY = "trending.author_history"
TOPIC_MEMORY_KEY = "trending.topic_memory"
COMMUNITY_HALF_LIFE_DAYS = 3.0
# Logit added per unit of log(1 + signal): an HF upvote counts as much as a Paperboy vote.
COMMUNITY_WEIGHTS = {"hf_upvotes": 0.5, "paperboy_votes": 0.5}


class TrendingScorer:
    """Scores a day's pool with a trained :class:`TrendingModel`."""

    def __init__(self, model: TrendingModel, extras: Mapping[str, object] | None = None) -> None:
        """``extras`` are used where a context brings none of its own (see :mod:`.live`)."""
        self.model = model
        self._extras = dict(extras or {})

    @property
    def name(self) -> str:
        return "trending"

    @property
    def version(self) -> str:
        return self.model.model_id

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        if self._extras:
            context = replace(context, extras={**self._extras, **context.extras})
        parts = self.model.components(pool_features(candidates, context))
        community = community_signal(context.signals, context)
        rows = []
        for index, candidate in enumerate(candidates):
            components = {name: float(values[index]) for name, values in parts.items()}
            components["community"] = community.get(candidate.arxiv_id, 0.0)
            rows.append(Score(total=sum(components.values()), components=components))
        return rows


def scoring_extras(history: AuthorHistory, topics: TopicMemory) -> dict[str, object]:
    """The ``ScoringContext.extras`` this scorer reads, for a live day or a replayed one."""
    return {AUTHOR_HISTORY_KEY: history, TOPIC_MEMORY_KEY: topics}


def pool_features(candidates: Sequence[Candidate], context: ScoringContext) -> NDArray[np.float64]:
    """The model's input rows for ``candidates`` as known on ``context.day``."""
    stats = _author_stats(candidates, context)
    return feature_matrix(candidates, context.embeddings, stats, _topics(candidates, context))


def _topics(candidates: Sequence[Candidate], context: ScoringContext) -> NDArray[np.float64]:
    memory = context.extras.get(TOPIC_MEMORY_KEY)
    if memory is None:
        topics = np.zeros((len(candidates), len(TOPIC_FEATURES)))
        topics[:, 0] = [candidate.topic_momentum for candidate in candidates]
        return topics
    if not isinstance(memory, TopicMemory):
        raise TypeError(f"extras[{TOPIC_MEMORY_KEY!r}] must be a TopicMemory")
    return memory.features(context.embeddings, context.day.toordinal())


def _author_stats(candidates: Sequence[Candidate], context: ScoringContext) -> list[AuthorStats]:
    history = context.extras.get(AUTHOR_HISTORY_KEY)
    if history is None:
        return [AuthorStats() for _ in candidates]
    if not isinstance(history, AuthorHistory):
        raise TypeError(f"extras[{AUTHOR_HISTORY_KEY!r}] must be an AuthorHistory")
    return [history.stats(candidate, context.day) for candidate in candidates]


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
