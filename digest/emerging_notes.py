"""A week's digest names the week's emerging topics (``emerging_topics``, stored by the
radar): a short section after the papers, each with its rise and the phrases new to it, linked
to its card on ``/emerging``. Other digests have none."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import EditionKey, EmergingTopic
from app.core.periods import span

NOTES_SHOWN = 5


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
