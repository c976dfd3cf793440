"""The trending model served as a :class:`ranking.scoring.Scorer` (editions, ``paperboy rank``).

The total is the sum of named components, all on the logit scale:
``prior`` + ``author_history`` + ``topic_momentum`` + ``community``. The first three come from
the trained artifact (:mod:`ranking.trending.model`); ``community`` adds the signals observed
so far, each ``weight * log(1 + value)`` halved every ``COMMUNITY_HALF_LIFE_DAYS``.

Author history comes through ``ScoringContext.extras[AUTHOR_HISTORY_KEY]`` as an
:class:`~ranking.trending.history.AuthorHistory`; without it every author is a newcomer.
Topic momentum is read from ``Candidate.topic_momentum`` (see :mod:`ranking.trending.momentum`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from ranking.scoring import Candidate, Score, ScoringContext, Signal
from ranking.trending.features import feature_matrix
from ranking.trending.history import AuthorHistory, AuthorStats
from ranking.trending.model import TrendingModel

AUTHOR_HISTORY_KEY = "trending.author_history"
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
        stats = _author_stats(candidates, context)
        parts = self.model.components(feature_matrix(candidates, context.embeddings, stats))
        community = community_signal(context.signals, context)
        rows = []
        for index, candidate in enumerate(candidates):
            components = {name: float(values[index]) for name, values in parts.items()}
            components["community"] = community.get(candidate.arxiv_id, 0.0)
            rows.append(Score(total=sum(components.values()), components=components))
        return rows


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
