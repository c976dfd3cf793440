"""The trending model served as a :class:`ranking.scoring.Scorer` (editions, ``paperboy rank``),
and its reasons in words.

The total is the sum of named components, all on the logit scale:
``prior`` + ``author_history`` + ``topic_momentum`` + ``community``. The first three come from
the trained artifact (:mod:`ranking.trending.model`); ``community`` adds the signals observed
so far, each ``weight * log(1 + value)`` halved every ``COMMUNITY_HALF_LIFE_DAYS``.

What the scorer needs besides the pool comes in the :class:`ScoringContext`:

* ``author_history``: an :class:`~ranking.trending.history.AuthorHistory` (label records and
  earlier corpus papers); without it every author is a newcomer;
* ``topic_memory``: a :class:`~ranking.trending.features.TopicMemory` of earlier papers'
  embeddings; without it the topic momentum is read from ``Candidate.topic_momentum`` and the
  community-interest features are zero.

:func:`pool_features` is the one place features are computed, for training, evaluation and
live ranking alike.

Reasons (:func:`reasons`, pure) say why a paper ranks where it does, in a reader's words. Each
component of the score is compared with the day's typical paper (the pool's median of that
component); a component that raises the paper above it by at least ``MIN_LIFT`` is a reason,
said with the facts behind it ("3 of its authors had papers featured before", "its topic grew
2.4 times this week", "42 upvotes on Hugging Face so far"), the biggest lift first. A component
that did not help is never called a reason; the API keeps every signed component as numbers
beside the words.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate, Reason, Score, ScoringContext, Signal
from ranking.trending.features import FEATURE_INDEX, TOPIC_FEATURES, feature_matrix
from ranking.trending.history import AuthorStats
from ranking.trending.model import TrendingModel

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


MIN_LIFT = 0.05  # in score units: smaller lifts are noise, not reasons
GROWTH_WORTH_SAYING = 1.5


def reasons(
    candidates: Sequence[Candidate],
    features: NDArray[np.float64],
    components: Mapping[str, NDArray[np.float64]],
    community_counts: Mapping[str, Mapping[str, float]],
) -> list[tuple[Reason, ...]]:
    """For each candidate, the components that lift it above the day's median, in words."""
    typical = {name: float(np.median(values)) for name, values in components.items()}
    found: list[tuple[Reason, ...]] = []
    for row, paper in enumerate(candidates):
        lifts = {name: float(values[row]) - typical[name] for name, values in components.items()}
        said = [
            Reason(name, text, round(lift, 4))
            for name, lift in sorted(lifts.items(), key=lambda item: -item[1])
            if lift >= MIN_LIFT
            for text in [_words(name, paper, features[row], community_counts)]
            if text
        ]
        found.append(tuple(said))
    return found


def _words(
    component: str,
    paper: Candidate,
    row: NDArray[np.float64],
    community_counts: Mapping[str, Mapping[str, float]],
) -> str:
    if component == "author_history":
        return _history_words(paper, row)
    if component == "topic_momentum":
        return _topic_words(row)
    if component == "community":
        return community_words(community_counts.get(paper.arxiv_id, {}))
    if component == "prior":
        return _prior_words(paper, row)
    return ""


def _value(row: NDArray[np.float64], name: str) -> float:
    return float(row[FEATURE_INDEX[name]])


def _count(row: NDArray[np.float64], name: str) -> int:
    """A feature stored as log(1 + n), back to n."""
    return round(math.expm1(_value(row, name)))


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _history_words(paper: Candidate, row: NDArray[np.float64]) -> str:
    team = _count(row, "team_featured")
    if team:
        return f"its team had {_plural(team, 'paper', 'papers')} featured on Hugging Face before"
    authors = round(_value(row, "hist_featured_share") * len(paper.authors))
    if authors:
        return f"{authors} of its authors had papers featured before"
    return "its authors' earlier papers were well received"


def _topic_words(row: NDArray[np.float64]) -> str:
    growth = math.exp(_value(row, "topic_momentum"))
    if growth >= GROWTH_WORTH_SAYING:
        return f"its topic grew {growth:.1f}\N{MULTIPLICATION SIGN} this week"
    share = _value(row, "topic_featured_share")
    if share > 0:
        return f"{share:.0%} of the closest recent papers were featured"
    return "papers close to it were featured recently"


def community_words(counts: Mapping[str, float]) -> str:
    parts = []
    upvotes, votes = round(counts.get("hf_upvotes", 0)), round(counts.get("paperboy_votes", 0))
    if upvotes:
        parts.append(f"{_plural(upvotes, 'upvote', 'upvotes')} on Hugging Face so far")
    if votes:
        parts.append(f"{_plural(votes, 'vote', 'votes')} on Paperboy")
    return " and ".join(parts)


def _prior_words(paper: Candidate, row: NDArray[np.float64]) -> str:
    facts = []
    if _value(row, "has_code"):
        facts.append("its code is public")
    if _value(row, "has_project_page"):
        facts.append("it has a project page")
    if _value(row, "accepted"):
        facts.append("it was accepted at a venue")
    if _value(row, "tech_report"):
        facts.append("it is a technical report")
    if len(paper.authors) >= 10:
        facts.append(f"a team of {len(paper.authors)} authors wrote it")
    if not facts:
        return "its subject is one Hugging Face readers follow"
    # One reason, so one clause: "its code is public, it has a project page and …".
    return facts[0] if len(facts) == 1 else f"{', '.join(facts[:-1])} and {facts[-1]}"
