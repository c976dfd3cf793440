"""A week's emerging topics, stored: the radar over the stored papers, with what a reader sees.

Reads the papers announced in the radar's weeks (the week of the day asked for and the weeks
before it) with their vectors, hands them to :mod:`ranking.radar`, and writes each flagged
subject to ``emerging_topics``: its shares, its papers week by week, a label, the phrases its
recent papers use that no earlier paper of the window did, its founding papers (the recent ones
nearest its centre), its first paper (the window's earliest), and the day topic most of its
recent papers are in, which a reader can follow. Re-running a week replaces its rows. A store
that does not reach back over the whole window flags nothing and says why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import EmergingTopic, Paper, PaperTopic
from app.core.vectors import Matrix
from ranking.embeddings import embedding_text, load_vectors
from ranking.keyphrases import IndexedTexts, new_phrases
from ranking.labels import label_clusters, representatives
from ranking.radar import Burst, Radar, radar
from ranking.radar_window import RadarParams, monday, too_short, window_start

FOUNDING = 5


@dataclass(frozen=True, slots=True)
class EmergingSummary:
    week: date
    papers: int
    flagged: int
    too_short: str | None = None  # why the radar did not look

    def line(self) -> str:
        if self.too_short:
            return f"emerging topics for the week of {self.week}: none looked for; {self.too_short}"
        return (
            f"emerging topics for the week of {self.week}: {self.flagged} flagged "
            f"from {self.papers} papers"
        )


@dataclass(frozen=True, slots=True)
class _Window:
    first: date
    arxiv_ids: list[str]
    announced: list[date]
    titles: list[str]
    abstracts: list[str]
    vectors: Matrix
    weeks: np.ndarray


def find_emerging(
    session: Session,
    day: date,
    settings: Settings,
    now: datetime,
    params: RadarParams | None = None,
) -> EmergingSummary:
    """Flag and store the emerging topics of ``day``'s week (see the module's docstring)."""
    chosen = params or RadarParams()
    week = monday(day)
    session.execute(delete(EmergingTopic).where(EmergingTopic.week == week))
    reason = too_short(session, week, chosen, settings.embedding_model)
    if reason is not None:
        return EmergingSummary(week, 0, 0, too_short=reason)
    window = _load(session, week, settings.embedding_model, chosen)
    found = radar(window.vectors, window.weeks, chosen)
    recent = window.weeks >= chosen.baseline_weeks
    labels = _labels(window, found, recent)
    earlier = IndexedTexts(
        [f"{window.titles[i]}. {window.abstracts[i]}" for i in np.flatnonzero(~recent)]
    )
    read = _Read(window, found, recent, earlier)
    for position, burst in enumerate(found.bursts):
        row = _row(session, read, burst, labels[position])
        row.week, row.position, row.model, row.computed_at = (
            week,
            position,
            settings.embedding_model,
            now,
        )
        session.add(row)
    return EmergingSummary(week, len(window.arxiv_ids), len(found.bursts))


def _load(session: Session, week: date, model: str, params: RadarParams) -> _Window:
    first = window_start(week, params)
    rows = session.execute(
        select(Paper.arxiv_id, Paper.announced_on, Paper.title, Paper.abstract)
        .where(Paper.announced_on >= first, Paper.announced_on < week + timedelta(days=7))
        .order_by(Paper.announced_on, Paper.arxiv_id)
    ).all()
    vectors = load_vectors(session, [row.arxiv_id for row in rows], model)
    kept = [row for row in rows if row.arxiv_id in vectors and row.announced_on is not None]
    dimensions = next(iter(vectors.values())).shape[0] if vectors else 0
    return _Window(
        first=first,
        arxiv_ids=[row.arxiv_id for row in kept],
        announced=[row.announced_on for row in kept],
        titles=[row.title for row in kept],
        abstracts=[row.abstract for row in kept],
        vectors=(
            np.stack([vectors[row.arxiv_id] for row in kept])
            if kept
            else np.zeros((0, dimensions), dtype=np.float32)
        ),
        weeks=np.array([(row.announced_on - first).days // 7 for row in kept], dtype=np.intp),
    )


def _labels(window: _Window, found: Radar, recent: np.ndarray) -> list[str]:
    """A label per burst, from its recent papers nearest its centre."""
    numbers = np.full(len(window.arxiv_ids), -1, dtype=np.intp)
    for position, burst in enumerate(found.bursts):
        numbers[(found.members == burst.cluster) & recent] = position
    centres = found.centres[[burst.cluster for burst in found.bursts]]
    texts = [embedding_text(t, a) for t, a in zip(window.titles, window.abstracts, strict=True)]
    labels = label_clusters(texts, representatives(window.vectors, numbers, centres))
    return [*labels, *[""] * (len(found.bursts) - len(labels))]


@dataclass(frozen=True, slots=True)
class _Read:
    """What the week's flags are read from: the window, its radar, which papers are recent,
    and the earlier papers' texts."""

    window: _Window
    found: Radar
    recent: np.ndarray
    earlier: IndexedTexts


def _row(session: Session, read: _Read, burst: Burst, label: str) -> EmergingTopic:
    window, found = read.window, read.found
    members = np.flatnonzero(found.members == burst.cluster)
    recent_members = members[read.recent[members]]
    nearness = window.vectors[recent_members] @ found.centres[burst.cluster]
    founding = recent_members[np.argsort(-nearness, kind="stable")[:FOUNDING]]
    pairs = [(window.titles[i], window.abstracts[i]) for i in recent_members]
    phrases = new_phrases(pairs, read.earlier)
    return EmergingTopic(
        score=burst.score,
        baseline_share=burst.baseline_share,
        recent_share=burst.recent_share,
        week_share=burst.week_share,
        weekly_papers=list(burst.counts),
        label=label or ", ".join(phrases[:3]),
        new_phrases=phrases,
        founding=[window.arxiv_ids[i] for i in founding],
        # Rows are in order of announcement, then id: the first member is the earliest.
        first_paper=window.arxiv_ids[int(members[0])],
        topic_id=_topic_of(session, [window.arxiv_ids[i] for i in recent_members]),
    )


def _topic_of(session: Session, arxiv_ids: list[str]) -> int | None:
    """The day topic most of these papers were in on their announcement day."""
    topics = Counter(
        session.scalars(
            select(PaperTopic.topic_id)
            .join(Paper, Paper.arxiv_id == PaperTopic.arxiv_id)
            .where(PaperTopic.arxiv_id.in_(arxiv_ids), PaperTopic.day == Paper.announced_on)
        )
    )
    return min(topics, key=lambda t: (-topics[t], t)) if topics else None
