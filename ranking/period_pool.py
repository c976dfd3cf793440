"""A week or month edition's own ranking: topics clustered over the period's papers, and each
paper scored among its own announcement day, with its community counts so far added
(:func:`period_scores`).

Topics: the period's papers are clustered together (k-means seeded with the centroids of the
topics its days found), and a cluster takes the id of the day topic closest to it, so the
topic filter and the topic pages of a week speak of the topics its days showed. A paper whose
cluster is too small or new to the period's days keeps its own day's topic, if it has one.

Scores: a paper's period score is its day-level score, what the scorer said of it among the
papers of its own announcement day before any community signal (for the trending model, the
logit of its calibrated chance at announcement), plus its community counts so far (Hugging Face
upvotes, Paperboy votes), weighed as the trending scorer weighs them but without their decay: in
a week, Monday's paper has had four more days to gather upvotes than Friday's, and forgetting
Monday's upvotes by Friday would rank the week by Friday's alone.

The day-level scores are not standardised per day. A calibrated chance is already on one scale
across days (the probability of being featured), and standardising it gives a strong day's
runner-up the place of a weak day's best: on twelve weeks of real data it ranked the weeks
worse than the plain sum, as did per-day percentiles, interleaving and concatenating the day
orders (docs/ranking.md, "Week and month editions"; benchmarks/week_editions.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, timedelta

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.periods import Span
from app.core.vectors import Matrix
from ranking.day_topics import known_topics, topic_params
from ranking.scoring import Candidate, Reason, Score, Scorer, ScoringContext
from ranking.signals import load_signals
from ranking.topics import UNASSIGNED, centroids, cluster, nearest
from ranking.trending.scorer import COMMUNITY_WEIGHTS, MIN_LIFT, community_counts, community_words


def with_period_topics(
    session: Session,
    bounds: Span,
    candidates: Sequence[Candidate],
    vectors: Matrix,
    settings: Settings,
) -> list[Candidate]:
    """The candidates with the topic of their cluster over the whole period."""
    until = bounds.last + timedelta(days=1)
    ids, known = known_topics(session, settings.embedding_model, since=bounds.first, until=until)
    if not ids:
        return list(candidates)
    labels = cluster(vectors, topic_params(settings), known)
    closest = nearest(centroids(vectors, labels), known, settings.topic_match_cosine)
    return [
        replace(candidate, topic_id=ids[row])
        if (row := _row(closest, label)) is not None
        else candidate
        for candidate, label in zip(candidates, labels.tolist(), strict=True)
    ]


def _row(closest: list[int | None], label: int) -> int | None:
    return None if label == UNASSIGNED else closest[label]


def score_period(
    session: Session,
    bounds: Span,
    candidates: Sequence[Candidate],
    vectors: Matrix,
    scorer: Scorer,
) -> list[Score]:
    """Each paper's period score (no chance: that is a day's estimate, shown on day editions)."""
    signals = load_signals(session, [c.arxiv_id for c in candidates], bounds.last)
    counts = community_counts(signals, ScoringContext(day=bounds.last, embeddings=vectors))
    day_level = _day_scores(candidates, vectors, scorer)
    community = np.array([community_term(counts.get(c.arxiv_id, {})) for c in candidates])
    base = np.array([s.total - s.components.get("community", 0.0) for s in day_level])
    totals = period_scores(base, community)
    typical = float(np.median(community)) if len(community) else 0.0
    return [
        _score(day_level[i], float(totals[i]), community[i] - typical, counts.get(c.arxiv_id, {}))
        for i, c in enumerate(candidates)
    ]


def _day_scores(candidates: Sequence[Candidate], vectors: Matrix, scorer: Scorer) -> list[Score]:
    """Each paper scored among the papers of its own announcement day, as of that day and
    before any community signal."""
    by_day: dict[date, list[int]] = {}
    for index, candidate in enumerate(candidates):
        by_day.setdefault(candidate.announced_on, []).append(index)
    scores: list[Score | None] = [None] * len(candidates)
    for day, rows in sorted(by_day.items()):
        context = ScoringContext(day=day, embeddings=vectors[rows])
        for row, score in zip(
            rows, scorer.score([candidates[r] for r in rows], context), strict=True
        ):
            scores[row] = score
    return [score for score in scores if score is not None]


def _score(day_level: Score, total: float, lift: float, counts: dict[str, float]) -> Score:
    """The period score with its parts: the day-level ones and the counts so far."""
    parts = {name: v for name, v in day_level.components.items() if name != "community"}
    parts["community"] = community_term(counts)
    said = day_level.reasons
    words = community_words(counts)
    # A scorer that spoke of the community at announcement keeps its words; the trending one,
    # scored before any signal, is told the counts so far here.
    if words and lift >= MIN_LIFT and all(reason.factor != "community" for reason in said):
        said = (*said, Reason("community", words, round(lift, 4)))
    return Score(total=total, components=parts, chance=None, reasons=said)


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
