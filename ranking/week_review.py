"""A week in review, with no language model: what the week's stored rows say, in order; read
from the store and kept in ``week_reviews`` (replaced on each run).

The week's topics are the day topics where Paperboy expected the most papers featured on
Hugging Face (the sum of its papers' chances on their days), rising ones first: the topics that
grew most rarely hold what the crowd picks, while the model's expectation does. For each topic:
its size against its own mean of the weeks before, its representative paper (the one Paperboy
gave the highest chance), the phrases its papers use this week that its papers of the weeks
before did not, what Hugging Face featured of it, and the authors with more than one paper in it.
The same rows always give the same review: every list is ordered by value, then by id.

Writing the review up is pure (:func:`review`); :func:`review_inputs` and :func:`write_review`
are the thin shell around it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from typing import Any

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
from app.core.reads import topic_labels
from ranking.keyphrases import IndexedTexts, new_phrases

TOPICS_NAMED = 10
RISING = 1.5  # this week's papers at least this many times the mean of the weeks before
FADING = 0.5
AUTHORS_NAMED = 3
PHRASE_PAPERS = 3  # papers linked for a new phrase


@dataclass(frozen=True, slots=True)
class WeekPaper:
    arxiv_id: str
    title: str
    abstract: str
    topic_id: int | None
    chance: float | None
    authors: tuple[tuple[str, str], ...]  # (key, name), in the paper's order
    upvotes: int | None  # None: Hugging Face did not feature it
    organization: str | None


@dataclass(frozen=True, slots=True)
class ReviewInputs:
    week: date  # its Monday
    papers: Sequence[WeekPaper]
    labels: dict[int, str]  # each topic's newest label
    earlier_counts: dict[int, float]  # each topic's mean papers a week over the weeks before
    earlier_texts: dict[int, list[str]]  # each topic's papers of the weeks before


@dataclass(frozen=True, slots=True)
class PaperRef:
    arxiv_id: str
    title: str


@dataclass(frozen=True, slots=True)
class Featured:
    paper: PaperRef
    upvotes: int


@dataclass(frozen=True, slots=True)
class AuthorRef:
    key: str
    name: str
    papers: int


@dataclass(frozen=True, slots=True)
class Prediction:
    paper: PaperRef
    chance: float
    featured: bool


@dataclass(frozen=True, slots=True)
class TopicReview:
    topic_id: int
    label: str
    trend: str  # "rising", "steady", "fading" or "new"
    papers: int
    earlier: float  # mean papers a week before
    expected: float  # papers Paperboy expected featured
    representative: PaperRef
    new_phrases: list[str]
    phrase_papers: list[PaperRef]  # papers that use the first new phrase, the likeliest first
    featured: list[Featured]
    organizations: list[str]
    authors: list[AuthorRef]


@dataclass(frozen=True, slots=True)
class Review:
    week: date
    papers: int
    featured: int  # papers of the week Hugging Face featured
    covered: int  # of them, in the topics named
    topics: list[TopicReview]
    predicted: list[Prediction]  # the week's highest chances, and whether featured

    @property
    def coverage(self) -> float:
        return self.covered / self.featured if self.featured else 0.0

    def as_json(self) -> dict[str, Any]:
        """The review as stored: JSON types only, the week as ISO text."""
        body = asdict(self)
        body["week"] = self.week.isoformat()
        return body


def review(inputs: ReviewInputs) -> Review:
    by_topic: dict[int, list[WeekPaper]] = defaultdict(list)
    for paper in inputs.papers:
        if paper.topic_id is not None:
            by_topic[paper.topic_id].append(paper)
    expected = {t: sum(p.chance or 0.0 for p in ps) for t, ps in by_topic.items()}
    chosen = sorted(expected, key=lambda t: (-expected[t], t))[:TOPICS_NAMED]
    topics = [_topic(inputs, t, by_topic[t], expected[t]) for t in chosen]
    topics.sort(key=lambda r: (_TREND_ORDER[r.trend], -r.expected, r.topic_id))
    featured = [p for p in inputs.papers if p.upvotes is not None]
    return Review(
        week=inputs.week,
        papers=len(inputs.papers),
        featured=len(featured),
        covered=sum(1 for p in featured if p.topic_id in set(chosen)),
        topics=topics,
        predicted=_predicted(inputs.papers),
    )


_TREND_ORDER = {"new": 0, "rising": 1, "steady": 2, "fading": 3}


def _topic(
    inputs: ReviewInputs, topic_id: int, papers: list[WeekPaper], expected: float
) -> TopicReview:
    ordered = sorted(papers, key=lambda p: (-(p.chance or 0.0), p.arxiv_id))
    earlier = inputs.earlier_counts.get(topic_id, 0.0)
    phrases = new_phrases(
        [(p.title, p.abstract) for p in ordered],
        IndexedTexts(inputs.earlier_texts.get(topic_id, [])),
    )
    featured = sorted(
        (p for p in papers if p.upvotes is not None), key=lambda p: (-(p.upvotes or 0), p.arxiv_id)
    )
    return TopicReview(
        topic_id=topic_id,
        label=inputs.labels.get(topic_id, f"topic {topic_id}"),
        trend=_trend(len(papers), earlier, topic_id in inputs.earlier_counts),
        papers=len(papers),
        earlier=earlier,
        expected=expected,
        representative=_ref(ordered[0]),
        new_phrases=phrases,
        phrase_papers=_using(ordered, phrases[0]) if phrases else [],
        featured=[Featured(_ref(p), p.upvotes or 0) for p in featured],
        organizations=sorted({p.organization for p in featured if p.organization}),
        authors=_authors(papers),
    )


def _trend(papers: int, earlier: float, known: bool) -> str:
    if not known:
        return "new"
    if papers >= RISING * earlier and papers >= earlier + 2:
        return "rising"
    return "fading" if papers <= FADING * earlier else "steady"


def _using(papers: list[WeekPaper], phrase: str) -> list[PaperRef]:
    texts = IndexedTexts([f"{p.title}. {p.abstract}" for p in papers])
    return [_ref(papers[i]) for i in sorted(texts.holding(phrase))[:PHRASE_PAPERS]]


def _authors(papers: list[WeekPaper]) -> list[AuthorRef]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    for paper in papers:
        for key, name in dict(paper.authors).items():
            counts[key] += 1
            names.setdefault(key, name)
    several = [key for key, n in counts.items() if n > 1]
    several.sort(key=lambda key: (-counts[key], key))
    return [AuthorRef(key, names[key], counts[key]) for key in several[:AUTHORS_NAMED]]


def _predicted(papers: Sequence[WeekPaper]) -> list[Prediction]:
    scored = sorted(
        (p for p in papers if p.chance is not None), key=lambda p: (-(p.chance or 0.0), p.arxiv_id)
    )
    return [Prediction(_ref(p), p.chance or 0.0, p.upvotes is not None) for p in scored[:5]]


def _ref(paper: WeekPaper) -> PaperRef:
    return PaperRef(paper.arxiv_id, paper.title)


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
    authors = _stored_authors(session, ids)
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


def _stored_authors(session: Session, ids: list[str]) -> dict[str, list[tuple[str, str]]]:
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
