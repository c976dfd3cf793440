"""Editions: build the ranked list of a period from any scorer, and publish it as a version.

:func:`compose` is the pure part: order by score (ties by arXiv id), apply the diversity rule,
keep the top ``limit``. :func:`publish` loads the pool, composes, and stores a new version
only when the result differs from the latest one, so rebuilding an unchanged edition is a
no-op and a refresh with new signals is version 2 of the same (period, date) edition.

A week or month edition is built from every ranked day of its period known at the time
(:func:`pool_span`), whichever day triggers the build: publishing an earlier day of the week
again rebuilds the same edition, not one of that day alone. And an edition is never replaced
by a rebuild from fewer papers: the published one is kept, and the build says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

import numpy as np
from sqlalchemy import Row, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.core.config import Settings
from app.core.explanations import dump_reasons, load_reasons
from app.core.models import (
    Edition,
    EditionItem,
    Paper,
    PaperAuthor,
    PaperCategory,
    PaperTopic,
    TopicDay,
)
from app.core.periods import Period, Span, last_day, span
from app.core.reads import latest_edition
from app.core.vectors import Matrix
from ranking.day_scores import forget_day_scores, has_day_scores, store_day_scores
from ranking.diversity import DiversityRule, diversify
from ranking.embeddings import load_vectors
from ranking.errors import RankingInputError
from ranking.scoring import Candidate, Reason, Score, Scorer, ScoringContext
from ranking.signals import load_signals

# Bump when the way editions are built (pool, ordering, diversity) changes.
ALGORITHM_VERSION = "editions-1"
# Weeks and months: their own topics, each paper standing in its own day (ranking.period_pool).
PERIOD_ALGORITHM = "periods-1"
DECIMALS = 9
# A chance is shown as a whole percent; four decimals keep rebuilds from float noise.
CHANCE_DECIMALS = 4


@dataclass(frozen=True, slots=True)
class Header:
    """What an edition was built with: compared to tell a rebuild from a change."""

    scorer: str
    scorer_version: str
    algorithm_version: str
    diversity_rule: str
    pool_size: int

    @classmethod
    def of(cls, edition: Edition) -> Header:
        return cls(
            scorer=edition.scorer,
            scorer_version=edition.scorer_version,
            algorithm_version=edition.algorithm_version,
            diversity_rule=edition.diversity_rule,
            pool_size=edition.pool_size,
        )


@dataclass(frozen=True, slots=True)
class Item:
    """One paper of an edition as stored: all of it decides whether a rebuild is a change."""

    arxiv_id: str
    score: float
    components: dict[str, float]
    topic_id: int | None
    chance: float | None = None
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True, slots=True)
class Publication:
    edition_id: int
    period: Period
    key: date
    version: int
    created: bool
    pool_size: int
    items: list[Item]
    # The pool of a rebuild that was not stored because it held fewer papers.
    refused_pool: int | None = None

    def line(self) -> str:
        name = f"{self.period} edition {self.key} v{self.version}"
        if self.refused_pool is not None:
            return (
                f"{name} kept: a rebuild from {self.refused_pool} papers "
                f"would hold fewer than {self.pool_size}"
            )
        state = "published" if self.created else "unchanged"
        return f"{name} {state}: {len(self.items)} of {self.pool_size} papers"


def compose(
    candidates: Sequence[Candidate], scores: Sequence[Score], rule: DiversityRule, limit: int
) -> list[Item]:
    """The edition's items, best first, under the diversity rule."""
    ranked = _ranked(candidates, scores)
    topics = [candidates[i].topic_id for i in ranked]
    return [_item(candidates[ranked[i]], scores[ranked[i]]) for i in diversify(topics, rule, limit)]


def rank_all(candidates: Sequence[Candidate], scores: Sequence[Score]) -> list[Item]:
    """Every candidate as an item, best first (ties by arXiv id), before any diversity rule."""
    return [_item(candidates[i], scores[i]) for i in _ranked(candidates, scores)]


def edition_of(ranking: Sequence[Item], rule: DiversityRule, limit: int) -> list[Item]:
    """The edition's items from a whole ranking (:func:`rank_all`), as :func:`compose`."""
    return [ranking[i] for i in diversify([item.topic_id for item in ranking], rule, limit)]


def _ranked(candidates: Sequence[Candidate], scores: Sequence[Score]) -> list[int]:
    if len(scores) != len(candidates):
        raise ValueError(f"the scorer returned {len(scores)} scores for {len(candidates)} papers")
    return sorted(range(len(candidates)), key=lambda i: (-scores[i].total, candidates[i].arxiv_id))


def _item(candidate: Candidate, score: Score) -> Item:
    components = {name: round(float(v), DECIMALS) for name, v in sorted(score.components.items())}
    return Item(
        arxiv_id=candidate.arxiv_id,
        score=round(float(score.total), DECIMALS),
        components=components,
        topic_id=candidate.topic_id,
        chance=None if score.chance is None else round(float(score.chance), CHANCE_DECIMALS),
        reasons=_reasons(score.reasons),
    )


def _reasons(reasons: Sequence[Reason]) -> tuple[Reason, ...]:
    """Rounded as components are, biggest first (ties by factor, so the order is stable)."""
    rounded = (Reason(r.factor, r.text, round(float(r.value), DECIMALS)) for r in reasons)
    return tuple(sorted(rounded, key=lambda r: (-r.value, r.factor, r.text)))


def diversity_rule(settings: Settings) -> DiversityRule:
    return DiversityRule(settings.diversity_max_per_topic, settings.diversity_window)


def publish(
    session: Session, period: Period, day: date, scorer: Scorer, settings: Settings
) -> Publication:
    """Build the edition of ``period`` holding ``day``; store it if it is new or changed (and
    holds no fewer papers than the published one)."""
    bounds = pool_span(session, period, day)
    header, items, day_ranking = _build(session, bounds, scorer, settings)
    latest = latest_edition(session, period, bounds.key)
    if latest is not None and (kept := _kept(latest, bounds, header, items)) is not None:
        if day_ranking and kept.refused_pool is None and not has_day_scores(session, latest.id):
            store_day_scores(session, latest.id, day_ranking)  # published before they were kept
        return kept
    version = 1 if latest is None else latest.version + 1
    edition = _store(session, bounds, version, header, items)
    if day_ranking:
        if latest is not None:
            forget_day_scores(session, latest.id)
        store_day_scores(session, edition.id, day_ranking)
    return Publication(
        edition_id=edition.id,
        period=period,
        key=bounds.key,
        version=version,
        created=True,
        pool_size=header.pool_size,
        items=items,
    )


def pool_span(session: Session, period: Period, day: date) -> Span:
    """The days an edition of ``period`` holding ``day`` is built from: the period's first day
    up to ``day`` or the period's newest ranked day (one with a day edition), the later."""
    bounds = span(period, day)
    if period == "day":
        return bounds
    newest = session.scalar(
        select(func.max(Edition.edition_date)).where(
            Edition.period == "day",
            Edition.edition_date >= bounds.first,
            Edition.edition_date <= last_day(period, bounds.key),
        )
    )
    return replace(bounds, last=newest) if newest is not None and newest > day else bounds


def _build(
    session: Session, bounds: Span, scorer: Scorer, settings: Settings
) -> tuple[Header, list[Item], list[Item]]:
    """The edition's items, and for a day every paper of it ranked: a day's scored as of the
    day; a week's or month's by their own ranking (:mod:`ranking.period_pool`: topics over the
    period, each paper standing in its own day, no chance, which is estimated per announcement
    day; docs/ranking.md, "Week and month editions"), with no ranking of the whole kept."""
    candidates, vectors = load_pool(session, bounds, settings.embedding_model)
    if bounds.period == "day":
        signals = load_signals(session, [c.arxiv_id for c in candidates], bounds.last)
        context = ScoringContext(day=bounds.last, embeddings=vectors, signals=signals)
        scores = scorer.score(candidates, context)
    else:
        # Imported here: it clusters (scikit-learn), and the digest and the web app read
        # editions through this module without ever building a week.
        from ranking.period_pool import score_period, with_period_topics

        candidates = with_period_topics(session, bounds, candidates, vectors, settings)
        scores = score_period(session, bounds, candidates, vectors, scorer)
    rule = diversity_rule(settings)
    header = Header(
        scorer=scorer.name,
        scorer_version=scorer.version,
        algorithm_version=ALGORITHM_VERSION if bounds.period == "day" else PERIOD_ALGORITHM,
        diversity_rule=rule.describe(),
        pool_size=len(candidates),
    )
    if bounds.period != "day":
        return header, compose(candidates, scores, rule, settings.edition_size), []
    day_ranking = rank_all(candidates, scores)
    return header, edition_of(day_ranking, rule, settings.edition_size), day_ranking


def _kept(latest: Edition, bounds: Span, header: Header, items: list[Item]) -> Publication | None:
    """The published edition, when the rebuild is no better: the same, or from fewer papers
    (a day or papers gone from the database must not shrink what readers were shown)."""
    if header.pool_size < latest.pool_size:
        return _published(latest, bounds, stored_items(latest), refused_pool=header.pool_size)
    if Header.of(latest) == header and stored_items(latest) == items:
        return _published(latest, bounds, items)
    return None


def _published(
    latest: Edition, bounds: Span, items: list[Item], refused_pool: int | None = None
) -> Publication:
    return Publication(
        edition_id=latest.id,
        period=bounds.period,
        key=bounds.key,
        version=latest.version,
        created=False,
        pool_size=latest.pool_size,
        items=items,
        refused_pool=refused_pool,
    )


def stored_items(edition: Edition) -> list[Item]:
    return [
        Item(
            arxiv_id=item.arxiv_id,
            score=item.score,
            components=json.loads(item.components),
            topic_id=item.topic_id,
            chance=item.chance,
            reasons=tuple(Reason(r.factor, r.text, r.value) for r in load_reasons(item.reasons)),
        )
        for item in edition.items
    ]


def _store(
    session: Session,
    bounds: Span,
    version: int,
    header: Header,
    items: list[Item],
) -> Edition:
    edition = Edition(
        period=bounds.period,
        edition_date=bounds.key,
        version=version,
        scorer=header.scorer,
        scorer_version=header.scorer_version,
        algorithm_version=header.algorithm_version,
        diversity_rule=header.diversity_rule,
        pool_size=header.pool_size,
        published_at=datetime.now(UTC),
    )
    edition.items = [
        EditionItem(
            position=position,
            arxiv_id=item.arxiv_id,
            score=item.score,
            components=json.dumps(item.components, sort_keys=True),
            topic_id=item.topic_id,
            chance=item.chance,
            reasons=dump_reasons(item.reasons),
        )
        for position, item in enumerate(items, start=1)
    ]
    session.add(edition)
    session.flush()
    return edition


def load_pool(session: Session, bounds: Span, model: str) -> tuple[list[Candidate], Matrix]:
    """The papers announced in the span, as candidates with topics, and their vectors."""
    papers = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract, Paper.primary_category)
        .add_columns(Paper.comment, Paper.announced_on)
        .where(Paper.announced_on >= bounds.first, Paper.announced_on <= bounds.last)
        .order_by(Paper.arxiv_id)
    ).all()
    if not papers:
        raise RankingInputError(
            f"no papers are stored as announced in {bounds.first}..{bounds.last}"
        )
    ids = [paper.arxiv_id for paper in papers]
    vectors = load_vectors(session, ids, model)
    missing = [arxiv_id for arxiv_id in ids if arxiv_id not in vectors]
    if missing:
        raise RankingInputError(
            f"{len(missing)} papers have no {model} vector (e.g. {missing[0]}); "
            "run `paperboy embed` first"
        )
    authors = _names(session, PaperAuthor.name, PaperAuthor.position, bounds)
    categories = _names(session, PaperCategory.category, PaperCategory.position, bounds)
    topics = _topics(session, bounds)
    candidates = [
        _candidate(row, authors.get(row.arxiv_id, ()), categories.get(row.arxiv_id, ()), topics)
        for row in papers
    ]
    return candidates, np.stack([vectors[arxiv_id] for arxiv_id in ids])


def _names(
    session: Session,
    name: InstrumentedAttribute[str],
    position: InstrumentedAttribute[int],
    bounds: Span,
) -> dict[str, tuple[str, ...]]:
    """Authors or categories of the span's papers, in their order, by paper."""
    link = name.class_
    rows = session.execute(
        select(link.arxiv_id, name)
        .join(Paper, Paper.arxiv_id == link.arxiv_id)
        .where(Paper.announced_on >= bounds.first, Paper.announced_on <= bounds.last)
        .order_by(link.arxiv_id, position)
    ).all()
    grouped: dict[str, list[str]] = {}
    for arxiv_id, value in rows:
        grouped.setdefault(arxiv_id, []).append(value)
    return {arxiv_id: tuple(values) for arxiv_id, values in grouped.items()}


def _topics(session: Session, bounds: Span) -> dict[str, tuple[int, float]]:
    rows = session.execute(
        select(PaperTopic.arxiv_id, PaperTopic.topic_id, TopicDay.momentum)
        .join(
            TopicDay, (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day)
        )
        .where(PaperTopic.day >= bounds.first, PaperTopic.day <= bounds.last)
    )
    return {row.arxiv_id: (row.topic_id, row.momentum) for row in rows}


def _candidate(
    row: Row[Any],
    authors: tuple[str, ...],
    categories: tuple[str, ...],
    topics: dict[str, tuple[int, float]],
) -> Candidate:
    topic = topics.get(row.arxiv_id)
    return Candidate(
        arxiv_id=row.arxiv_id,
        title=row.title,
        abstract=row.abstract,
        authors=authors,
        categories=categories,
        primary_category=row.primary_category,
        comment=row.comment,
        announced_on=row.announced_on,
        topic_id=None if topic is None else topic[0],
        topic_momentum=0.0 if topic is None else topic[1],
    )
