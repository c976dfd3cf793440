"""A day's topics, stored: cluster the day with its trailing window, keep ids, record trends.

Reads the window's papers and vectors, hands them to the pure code in :mod:`ranking.topics` and
:mod:`ranking.labels`, and writes ``topics``, ``topic_days`` and ``paper_topics``. Re-running a
day replaces that day's rows and gives the same ids: the day's own earlier topics are matched
first, with the centroids they had.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

import numpy as np
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import Paper, PaperTopic, Topic, TopicDay
from app.core.vectors import Matrix, pack, stack
from ranking.embeddings import embedding_text, load_vectors
from ranking.errors import RankingInputError
from ranking.labels import Encode, Meaning, label_clusters, representatives
from ranking.topics import Labels, TopicParams, centroids, cluster, match, trend

# How far back a topic may have last been seen and still be continued.
MEMORY_DAYS = 14


@dataclass(frozen=True, slots=True)
class Window:
    days: list[date]
    arxiv_ids: list[str]
    announced: list[date]
    texts: list[str]
    vectors: Matrix


@dataclass(frozen=True, slots=True)
class TopicsSummary:
    day: date
    papers: int
    topics: int
    new: int
    unassigned: int

    def line(self) -> str:
        return (
            f"topics for {self.day}: papers {self.papers}, topics {self.topics} "
            f"(new {self.new}), unassigned {self.unassigned}"
        )


def topic_params(settings: Settings) -> TopicParams:
    return TopicParams(settings.topic_size, settings.topic_min_size, settings.topic_match_cosine)


def build_topics(
    session: Session, day: date, settings: Settings, encode: Encode | None = None
) -> TopicsSummary:
    """Cluster the day with its window, keep ids, and label the clusters (by meaning too when
    ``encode``, the embedding model, is given)."""
    window = load_window(session, day, settings)
    model = settings.embedding_model
    before_ids, before = known_topics(session, model, since=_memory_start(day), until=day)
    labels = cluster(window.vectors, topic_params(settings), before if len(before) else None)
    centres = centroids(window.vectors, labels)
    continued = match(centres, before, settings.topic_match_cosine)
    rerun_ids, rerun = known_topics(
        session, model, since=day, until=date.fromordinal(day.toordinal() + 1), first_seen=day
    )
    again = match(centres, rerun, settings.topic_match_cosine)
    ids: list[int | None] = [
        before_ids[c] if c is not None else (rerun_ids[a] if a is not None else None)
        for c, a in zip(continued, again, strict=True)
    ]
    _clear_day(session, day, keep={i for i in ids if i is not None})
    final = [i if i is not None else _new_topic(session, day, model) for i in ids]
    meaning = None if encode is None else Meaning(encode, centres)
    names = label_clusters(window.texts, representatives(window.vectors, labels, centres), meaning)
    new = {i for i, c in zip(final, continued, strict=True) if c is None}
    _store_days(session, window, labels, final, names, centres, new=new, day=day)
    _store_papers(session, window, labels, final, day)
    today = [i for i, d in enumerate(window.announced) if d == day]
    return TopicsSummary(
        day=day,
        papers=len(today),
        topics=len(final),
        new=len(new),
        unassigned=int((labels[today] < 0).sum()),
    )


def _memory_start(day: date) -> date:
    return date.fromordinal(day.toordinal() - MEMORY_DAYS)


def load_window(session: Session, day: date, settings: Settings) -> Window:
    days = list(
        session.scalars(
            select(Paper.announced_on)
            .where(Paper.announced_on <= day)
            .distinct()
            .order_by(Paper.announced_on.desc())
            .limit(settings.topic_window_days)
        )
    )
    if day not in days:
        raise RankingInputError(f"no papers are stored as announced on {day}")
    rows = session.execute(
        select(Paper.arxiv_id, Paper.announced_on, Paper.title, Paper.abstract)
        .where(Paper.announced_on.in_(days))
        .order_by(Paper.announced_on, Paper.arxiv_id)
    ).all()
    vectors = load_vectors(session, [row.arxiv_id for row in rows], settings.embedding_model)
    missing = [row.arxiv_id for row in rows if row.arxiv_id not in vectors]
    if missing:
        raise RankingInputError(
            f"{len(missing)} papers of {days[-1]}..{day} have no {settings.embedding_model} "
            f"vector (e.g. {missing[0]}); run `paperboy embed --date D` for those days first"
        )
    return Window(
        days=[d for d in days if d is not None],
        arxiv_ids=[row.arxiv_id for row in rows],
        announced=[row.announced_on or day for row in rows],
        texts=[embedding_text(row.title, row.abstract) for row in rows],
        vectors=np.stack([vectors[row.arxiv_id] for row in rows]),
    )


def known_topics(
    session: Session, model: str, *, since: date, until: date, first_seen: date | None = None
) -> tuple[list[int], Matrix]:
    """Each topic seen in [since, until) at its latest, largest first; centroids as rows."""
    query = (
        select(TopicDay.topic_id, TopicDay.day, TopicDay.size, TopicDay.centroid)
        .join(Topic, Topic.id == TopicDay.topic_id)
        .where(Topic.model == model, TopicDay.day >= since, TopicDay.day < until)
    )
    if first_seen is not None:
        query = query.where(Topic.first_seen_on == first_seen)
    latest = {row.topic_id: row for row in session.execute(query.order_by(TopicDay.day))}
    ordered = sorted(latest.values(), key=lambda r: (-r.day.toordinal(), -r.size, r.topic_id))
    if not ordered:
        return [], np.zeros((0, 0), dtype=np.float32)
    dimensions = len(ordered[0].centroid) // 4
    return [row.topic_id for row in ordered], stack([row.centroid for row in ordered], dimensions)


def _clear_day(session: Session, day: date, keep: set[int]) -> None:
    session.execute(delete(PaperTopic).where(PaperTopic.day == day))
    session.execute(delete(TopicDay).where(TopicDay.day == day))
    # Topics this day created before (a re-run) and no longer continued, seen on no other day.
    orphans = select(Topic.id).where(
        Topic.first_seen_on == day,
        Topic.id.not_in(keep),
        ~select(TopicDay.topic_id).where(TopicDay.topic_id == Topic.id).exists(),
    )
    session.execute(delete(Topic).where(Topic.id.in_(orphans)))


def _new_topic(session: Session, day: date, model: str) -> int:
    topic = Topic(model=model, first_seen_on=day)
    session.add(topic)
    session.flush()
    return topic.id


def _store_days(
    session: Session,
    window: Window,
    labels: Labels,
    ids: list[int],
    names: list[str],
    centres: Matrix,
    *,
    new: set[int],
    day: date,
) -> None:
    per_day = Counter(zip(labels.tolist(), window.announced, strict=True))
    earlier = [d for d in window.days if d != day]
    for number, topic_id in enumerate(ids):
        counts = [per_day[(number, d)] for d in earlier]
        shape = trend(per_day[(number, day)], counts, topic_id in new)
        session.add(
            TopicDay(
                topic_id=topic_id,
                day=day,
                size=per_day[(number, day)],
                window_size=int((labels == number).sum()),
                baseline=shape.baseline,
                momentum=shape.momentum,
                status=shape.status,
                label=names[number],
                centroid=pack(centres[number]),
            )
        )


def _store_papers(
    session: Session, window: Window, labels: Labels, ids: list[int], day: date
) -> None:
    rows = [
        {"day": day, "arxiv_id": arxiv_id, "topic_id": ids[number]}
        for arxiv_id, announced, number in zip(
            window.arxiv_ids, window.announced, labels.tolist(), strict=True
        )
        if announced == day and number >= 0
    ]
    if rows:
        session.execute(insert(PaperTopic), rows)
