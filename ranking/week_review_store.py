"""A week in review, stored: what it reads from the store, written up by
:mod:`ranking.week_review` and kept in ``week_reviews`` (replaced on each run)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import (
    DayScore,
    Edition,
    HfDailyPaper,
    Paper,
    PaperAuthor,
    PaperTopic,
    WeekReview,
)
from app.core.periods import span
from app.core.topic_labels import topic_labels
from ranking.week_review import Review, ReviewInputs, WeekPaper, review

EARLIER_WEEKS = 4


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    review: Review

    def line(self) -> str:
        found = self.review
        return (
            f"week in review for the week of {found.week}: {len(found.topics)} topics named, "
            f"{found.covered} of the {found.featured} papers Hugging Face featured in them"
        )


def write_review(session: Session, day: date, now: datetime) -> ReviewSummary:
    """Write up ``day``'s week and store it in place of what was stored for it."""
    written = review(review_inputs(session, day))
    stored = session.get(WeekReview, written.week)
    if stored is None:
        session.add(WeekReview(week=written.week, body=written.as_json(), computed_at=now))
    else:
        stored.body, stored.computed_at = written.as_json(), now
    return ReviewSummary(written)


def review_inputs(session: Session, day: date) -> ReviewInputs:
    """The papers of ``day``'s week with their topics, chances, authors and Hugging Face
    records, and their topics' labels and papers of the weeks before."""
    monday = span("week", day).key
    end = monday + timedelta(days=7)
    rows = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract)
        .where(Paper.announced_on >= monday, Paper.announced_on < end)
        .order_by(Paper.arxiv_id)
    ).all()
    ids = [row.arxiv_id for row in rows]
    topics = _topics(session, monday, end)
    chances = _chances(session, monday, end)
    authors = _authors(session, ids)
    featured = _featured(session, ids)
    papers = [
        WeekPaper(
            arxiv_id=row.arxiv_id,
            title=row.title,
            abstract=row.abstract,
            topic_id=topics.get(row.arxiv_id),
            chance=chances.get(row.arxiv_id),
            authors=tuple(authors.get(row.arxiv_id, [])),
            upvotes=featured[row.arxiv_id][0] if row.arxiv_id in featured else None,
            organization=featured[row.arxiv_id][1] if row.arxiv_id in featured else None,
        )
        for row in rows
    ]
    known = set(topics.values())
    counts, texts = _earlier(session, monday, known)
    return ReviewInputs(
        week=monday,
        papers=papers,
        labels=topic_labels(session, known, until=end - timedelta(days=1)),
        earlier_counts=counts,
        earlier_texts=texts,
    )


def _topics(session: Session, first: date, end: date) -> dict[str, int]:
    """Each paper's topic on its announcement day."""
    query = (
        select(PaperTopic.arxiv_id, PaperTopic.topic_id)
        .join(Paper, Paper.arxiv_id == PaperTopic.arxiv_id)
        .where(Paper.announced_on >= first, Paper.announced_on < end)
        .where(PaperTopic.day == Paper.announced_on)
    )
    return {row.arxiv_id: row.topic_id for row in session.execute(query)}


def _chances(session: Session, first: date, end: date) -> dict[str, float]:
    """Each paper's chance in its day's newest edition."""
    newest = (
        select(func.max(Edition.id))
        .where(Edition.period == "day", Edition.edition_date >= first, Edition.edition_date < end)
        .group_by(Edition.edition_date)
    )
    query = select(DayScore.arxiv_id, DayScore.chance).where(DayScore.edition_id.in_(newest))
    return {row.arxiv_id: row.chance for row in session.execute(query) if row.chance is not None}


def _authors(session: Session, ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    query = (
        select(PaperAuthor.arxiv_id, PaperAuthor.author_key, PaperAuthor.name)
        .where(PaperAuthor.arxiv_id.in_(ids))
        .order_by(PaperAuthor.arxiv_id, PaperAuthor.position)
    )
    for row in session.execute(query):
        found[row.arxiv_id].append((row.author_key, row.name))
    return found


def _featured(session: Session, ids: list[str]) -> dict[str, tuple[int, str | None]]:
    """Each featured paper's most upvotes on a Hugging Face day, and its organization."""
    found: dict[str, tuple[int, str | None]] = {}
    query = select(
        HfDailyPaper.arxiv_id, HfDailyPaper.upvotes, HfDailyPaper.organization_name
    ).where(HfDailyPaper.arxiv_id.in_(ids))
    for row in session.execute(query.order_by(HfDailyPaper.daily_date)):
        before = found.get(row.arxiv_id)
        upvotes = max(row.upvotes, before[0]) if before else row.upvotes
        organization = row.organization_name or (before[1] if before else None)
        found[row.arxiv_id] = (upvotes, organization)
    return found


def _earlier(
    session: Session, monday: date, topic_ids: set[int]
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Each topic's mean papers a week, and their texts, over the weeks before ``monday``."""
    first = monday - timedelta(weeks=EARLIER_WEEKS)
    query = (
        select(PaperTopic.topic_id, Paper.title, Paper.abstract)
        .join(Paper, Paper.arxiv_id == PaperTopic.arxiv_id)
        .where(Paper.announced_on >= first, Paper.announced_on < monday)
        .where(PaperTopic.day == Paper.announced_on, PaperTopic.topic_id.in_(topic_ids))
        .order_by(PaperTopic.topic_id, Paper.arxiv_id)
    )
    counts: Counter[int] = Counter()
    texts: dict[int, list[str]] = defaultdict(list)
    for row in session.execute(query):
        counts[row.topic_id] += 1
        texts[row.topic_id].append(f"{row.title}. {row.abstract}")
    return {t: n / EARLIER_WEEKS for t, n in counts.items()}, dict(texts)
