"""What each link preview says: a paper's, an edition's and a topic's words, read from the
store (``drawing`` draws them). TeX in titles is made plain, as mail makes it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.editions import human_label
from app.core.explanations import chance_words
from app.core.models import (
    Edition,
    EditionItem,
    HfDailyPaper,
    Paper,
    PaperAuthor,
    PaperTopic,
    TopicDay,
)
from app.core.names import author_key
from app.core.periods import PERIODS, Period
from app.core.tex import readable
from app.services.previews.drawing import Preview

AUTHORS_NAMED = 3
TITLES_LISTED = 3
PERIOD_WORDS = {"day": "The day's", "week": "The week's", "month": "The month's"}
NO_STANDING = "Trending arXiv papers, every morning"


def paper_preview(session: Session, arxiv_id: str) -> Preview | None:
    """Title, first authors, topic; the upvotes and the chance, or the paper's best rank."""
    paper = session.get(Paper, arxiv_id)
    if paper is None:
        return None
    kicker = f"arXiv {arxiv_id}"
    if paper.announced_on is not None:
        kicker += f" · announced {human_label('day', paper.announced_on)}"
    lines = [_authors(_author_names(session, arxiv_id))]
    topic = _topic_label(session, arxiv_id)
    if topic is not None:
        lines.append(f"◆ {readable(topic)}")
    footer = _standing(_upvotes(session, arxiv_id), _places(session, arxiv_id))
    return Preview(kicker=kicker, headline=readable(paper.title), lines=tuple(lines), footer=footer)


def edition_preview(session: Session, edition: Edition) -> Preview:
    """The edition's name and its first titles."""
    titles = list(
        session.scalars(
            select(Paper.title)
            .join(EditionItem, EditionItem.arxiv_id == Paper.arxiv_id)
            .where(EditionItem.edition_id == edition.id)
            .order_by(EditionItem.position)
        )
    )
    period = edition.period
    return Preview(
        kicker=f"{PERIOD_WORDS[period]} trending arXiv papers",
        headline=human_label(period, edition.edition_date),
        lines=tuple(f"{n}. {readable(t)}" for n, t in enumerate(titles[:TITLES_LISTED], 1)),
        footer=f"{len(titles)} papers ranked",
    )


def topic_preview(session: Session, topic_id: int) -> Preview | None:
    """The topic's name, its newest papers' titles, and its size."""
    days = list(
        session.scalars(
            select(TopicDay).where(TopicDay.topic_id == topic_id).order_by(TopicDay.day)
        )
    )
    if not days:
        return None
    latest, papers = days[-1], sum(day.size for day in days)
    return Preview(
        kicker=f"A topic on Paperboy · since {human_label('day', days[0].day)}",
        headline=readable(latest.label),
        lines=tuple(f"· {readable(title)}" for title in _newest_titles(session, topic_id)),
        footer=f"{papers} paper{'' if papers == 1 else 's'} · {latest.status.value}",
    )


def _newest_titles(session: Session, topic_id: int) -> list[str]:
    return list(
        session.scalars(
            select(Paper.title)
            .join(PaperTopic, PaperTopic.arxiv_id == Paper.arxiv_id)
            .where(PaperTopic.topic_id == topic_id)
            .order_by(PaperTopic.day.desc(), PaperTopic.arxiv_id)
            .limit(TITLES_LISTED)
        )
    )


def _author_names(session: Session, arxiv_id: str) -> list[str]:
    return list(
        session.scalars(
            select(PaperAuthor.name)
            .where(PaperAuthor.arxiv_id == arxiv_id)
            .order_by(PaperAuthor.position)
        )
    )


def _authors(names: list[str]) -> str:
    named = ", ".join(name for name in names[:AUTHORS_NAMED] if author_key(name))
    more = len(names) - AUTHORS_NAMED
    return f"{named} and {more} more" if more > 0 else named


def _topic_label(session: Session, arxiv_id: str) -> str | None:
    """The label of the paper's topic on its newest day in one."""
    return session.scalar(
        select(TopicDay.label)
        .join(
            PaperTopic,
            (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day),
        )
        .where(PaperTopic.arxiv_id == arxiv_id)
        .order_by(PaperTopic.day.desc())
        .limit(1)
    )


def _upvotes(session: Session, arxiv_id: str) -> int:
    """Hugging Face's upvotes on the daily page where the paper had the most."""
    found = session.scalar(
        select(func.max(HfDailyPaper.upvotes)).where(HfDailyPaper.arxiv_id == arxiv_id)
    )
    return found or 0


@dataclass(frozen=True, slots=True)
class Place:
    """An edition the paper is in, and the paper's rank and chance there."""

    period: Period
    edition_date: date
    rank: int
    chance: float | None


def _places(session: Session, arxiv_id: str) -> list[Place]:
    """The paper's place in each edition's newest version that holds it, newest first."""
    rows = session.execute(
        select(Edition.period, Edition.edition_date, EditionItem.position, EditionItem.chance)
        .join(EditionItem, EditionItem.edition_id == Edition.id)
        .where(EditionItem.arxiv_id == arxiv_id)
        .order_by(Edition.edition_date.desc(), Edition.period, Edition.version.desc())
    )
    found: dict[tuple[str, date], Place] = {}
    for period, day, rank, chance in rows:
        place = Place(period=_period(period), edition_date=day, rank=rank, chance=chance)
        found.setdefault((period, day), place)
    return list(found.values())


def _period(name: str) -> Period:
    return next(period for period in PERIODS if period == name)


def _standing(upvotes: int, places: list[Place]) -> str:
    parts = []
    if upvotes:
        parts.append(f"▲ {upvotes} upvote{'' if upvotes == 1 else 's'}")
    chance = next((place.chance for place in places if place.chance is not None), None)
    if chance is not None:
        parts.append(chance_words(chance))
    elif places:
        best = min(places, key=lambda place: place.rank)
        parts.append(
            f"#{best.rank} of the {best.period}, {human_label(best.period, best.edition_date)}"
        )
    return " · ".join(parts) or NO_STANDING
