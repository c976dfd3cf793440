"""A week's digest ends with two short sections read from what the daily job stored: the
week's emerging topics (``emerging_topics``, the radar), each with its rise and the phrases new
to it, linked to its card on ``/emerging``; and the week in review (``week_reviews``), its
first topics with their trend and representative paper, linked to ``/week-in-review``. Other
digests have neither."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import EditionKey, EmergingTopic, WeekReview
from app.core.periods import span

NOTES_SHOWN = 5
REVIEW_TOPICS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class EmergingNote:
    label: str
    rise: str  # the rise in words
    new_phrases: list[str]
    url: str  # its card on /emerging


def emerging_notes(session: Session, settings: Settings, edition: EditionKey) -> list[EmergingNote]:
    """The week's strongest emerging topics (none for a day or month edition)."""
    if edition.period != "week":
        return []
    monday = span("week", edition.edition_date).key
    rows = session.scalars(
        select(EmergingTopic)
        .where(EmergingTopic.week == monday)
        .order_by(EmergingTopic.position)
        .limit(NOTES_SHOWN)
    )
    year, number, _ = monday.isocalendar()
    page = f"{settings.public_base_url.rstrip('/')}/emerging?week={year}-W{number:02d}"
    return [
        EmergingNote(
            label=row.label,
            rise=rise_words(row.recent_share, row.baseline_share),
            new_phrases=list(row.new_phrases[:3]),
            url=f"{page}#emerging-{row.position + 1}",
        )
        for row in rows
    ]


def rise_words(recent_share: float, baseline_share: float) -> str:
    share = f"{recent_share:.1%} of the last weeks' papers"
    if not baseline_share:
        return f"{share}, none before"
    return f"{share}, {recent_share / baseline_share:.1f} times its share before"


@dataclass(frozen=True, slots=True)
class ReviewLine:
    label: str
    trend: str  # "rising, 26 papers (15.0 a week before)"
    paper: str  # the representative paper's title
    paper_url: str


@dataclass(frozen=True, slots=True)
class ReviewNote:
    url: str  # the week's page
    summary: str
    topics: list[ReviewLine]


def review_note(session: Session, settings: Settings, edition: EditionKey) -> ReviewNote | None:
    """The week in review's first topics (a week edition whose week is written up)."""
    if edition.period != "week":
        return None
    monday = span("week", edition.edition_date).key
    stored = session.get(WeekReview, monday)
    if stored is None:
        return None
    site = settings.public_base_url.rstrip("/")
    year, number, _ = monday.isocalendar()
    body = stored.body
    return ReviewNote(
        url=f"{site}/week-in-review?week={year}-W{number:02d}",
        summary=(
            f"Hugging Face featured {body['featured']} of the week's {body['papers']} papers, "
            f"{body['covered']} of them in the topics the review names"
        ),
        topics=[_line(topic, site) for topic in body["topics"][:REVIEW_TOPICS_SHOWN]],
    )


def _line(topic: dict[str, Any], site: str) -> ReviewLine:
    paper = topic["representative"]
    earlier = "" if topic["trend"] == "new" else f" ({topic['earlier']:.1f} a week before)"
    return ReviewLine(
        label=topic["label"],
        trend=f"{topic['trend']}, {topic['papers']} papers{earlier}",
        paper=paper["title"],
        paper_url=f"{site}/papers/{paper['arxiv_id']}",
    )
