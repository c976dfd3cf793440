"""Reads for pages and the API: editions, papers, topics, authors (SQLAlchemy, no commits).

Every function takes a session and returns plain values or view models; the routes decide
what to do when something is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.explanations import load_reasons
from app.core.models import (
    Author,
    DayScore,
    Edition,
    EditionItem,
    HfDailyPaper,
    HfThumbnail,
    Paper,
    PaperAuthor,
    PaperCategory,
    PaperTopic,
    TopicDay,
)
from app.core.periods import last_day
from app.core.reads import human_label, topic_labels
from app.services.radar import outcomes_known_until
from app.services.reading import Community, community_of
from app.web.forms import parse_period
from app.web.view_models import (
    Appearance,
    Card,
    PaperFacts,
    Scored,
    Signals,
    TopicChip,
    card,
    parse_components,
)


def edition_dates(session: Session, period: str) -> list[date]:
    query = select(Edition.edition_date).where(Edition.period == period).distinct()
    return sorted(session.scalars(query))


def paper_texts(session: Session, arxiv_ids: Sequence[str]) -> dict[str, str]:
    """Each stored paper's title and abstract, as one text, by id."""
    rows = session.execute(
        select(Paper.arxiv_id, Paper.title, Paper.abstract).where(
            Paper.arxiv_id.in_(list(arxiv_ids))
        )
    )
    return {row.arxiv_id: f"{row.title}\n{row.abstract}" for row in rows}


def papers(session: Session, arxiv_ids: Sequence[str]) -> dict[str, PaperFacts]:
    """Stored papers by id, read as plain rows (three queries, no ORM objects: pages are hot)."""
    if not arxiv_ids:
        return {}
    wanted = list(arxiv_ids)
    authors: dict[str, list[str]] = {}
    for row in session.execute(
        select(PaperAuthor.arxiv_id, PaperAuthor.name)
        .where(PaperAuthor.arxiv_id.in_(wanted))
        .order_by(PaperAuthor.arxiv_id, PaperAuthor.position)
    ):
        authors.setdefault(row.arxiv_id, []).append(row.name)
    categories: dict[str, list[str]] = {}
    for row in session.execute(
        select(PaperCategory.arxiv_id, PaperCategory.category)
        .where(PaperCategory.arxiv_id.in_(wanted))
        .order_by(PaperCategory.arxiv_id, PaperCategory.position)
    ):
        categories.setdefault(row.arxiv_id, []).append(row.category)
    rows = session.execute(select(*_FACT_COLUMNS).where(Paper.arxiv_id.in_(wanted)))
    return {row.arxiv_id: _facts(row, authors, categories) for row in rows}


def _facts(row: Any, authors: dict[str, list[str]], categories: dict[str, list[str]]) -> PaperFacts:
    return PaperFacts(
        arxiv_id=row.arxiv_id,
        title=row.title,
        abstract=row.abstract,
        authors=tuple(authors.get(row.arxiv_id, ())),
        categories=tuple(categories.get(row.arxiv_id, ())),
        primary_category=row.primary_category,
        comment=row.comment,
        announced_on=row.announced_on,
        version=row.version,
        journal_ref=row.journal_ref,
        doi=row.doi,
        submitted_at=row.submitted_at,
        updated_at=row.updated_at,
    )


_FACT_COLUMNS = (
    Paper.arxiv_id,
    Paper.title,
    Paper.abstract,
    Paper.primary_category,
    Paper.comment,
    Paper.announced_on,
    Paper.version,
    Paper.journal_ref,
    Paper.doi,
    Paper.submitted_at,
    Paper.updated_at,
)


def signals(session: Session, arxiv_ids: Sequence[str]) -> dict[str, Signals]:
    """Community signals per paper: Hugging Face's from the daily page where it had the most
    upvotes, its votes and comments on Paperboy, and its thumbnail."""
    community, thumbnails = community_of(session, arxiv_ids), thumbnail_digests(session, arxiv_ids)
    return {
        arxiv_id: _signals(community.get(arxiv_id), thumbnails.get(arxiv_id))
        for arxiv_id in community.keys() | thumbnails.keys()
    }


def _signals(found: Community | None, thumbnail: str | None) -> Signals:
    if found is None:
        return Signals(thumbnail=thumbnail)
    known = Signals() if found.daily is None else _hf_signals(found.daily)
    return replace(known, votes=found.votes, site_comments=found.comments, thumbnail=thumbnail)


def thumbnail_digests(session: Session, arxiv_ids: Sequence[str]) -> dict[str, str]:
    """The digest of each paper's stored thumbnail, for the papers with one."""
    if not arxiv_ids:
        return {}
    query = select(HfThumbnail.arxiv_id, HfThumbnail.digest).where(
        HfThumbnail.arxiv_id.in_(list(arxiv_ids))
    )
    return {row.arxiv_id: row.digest for row in session.execute(query)}


def _hf_signals(row: HfDailyPaper) -> Signals:
    return Signals(
        upvotes=row.upvotes,
        num_comments=row.num_comments or 0,
        github_repo=row.github_repo,
        ai_keywords=tuple(row.ai_keywords or ()),
        github_stars=row.github_stars,
        project_page=row.project_page,
        submitted_by=row.submitted_by,
        submitted_on_daily_at=row.submitted_on_daily_at,
        organization_name=row.organization_name,
        organization_fullname=row.organization_fullname,
        published_at=row.published_at,
        on_hugging_face=True,
        ai_summary=row.ai_summary,
        discussion_id=row.discussion_id,
    )


def paper_topic(session: Session, arxiv_id: str) -> TopicChip | None:
    row = session.execute(
        select(PaperTopic.topic_id, TopicDay.label)
        .join(
            TopicDay, (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day)
        )
        .where(PaperTopic.arxiv_id == arxiv_id)
        .order_by(PaperTopic.day.desc())
        .limit(1)
    ).first()
    return None if row is None else TopicChip(row.topic_id, row.label)


# What a card or an appearance reads of an edition item, as plain columns.
_ITEM_COLUMNS = (
    EditionItem.position,
    EditionItem.arxiv_id,
    EditionItem.topic_id,
    EditionItem.score,
    EditionItem.components,
    EditionItem.chance,
    EditionItem.reasons,
)


def edition_cards(session: Session, edition: Edition) -> list[Card]:
    """The edition's items as cards, in rank order."""
    items = session.execute(
        select(*_ITEM_COLUMNS)
        .where(EditionItem.edition_id == edition.id)
        .order_by(EditionItem.position)
    ).all()
    # A week's topics are labelled as of its last day, not its Monday (its key).
    return cards_for(session, items, last_day(parse_period(edition.period), edition.edition_date))


# The same columns of a paper of the day that its edition leaves out: its rank in the whole
# day stands where an edition item's position does.
_DAY_SCORE_COLUMNS = (
    DayScore.rank.label("position"),
    DayScore.arxiv_id,
    DayScore.topic_id,
    DayScore.score,
    DayScore.components,
    DayScore.chance,
    DayScore.reasons,
)


def day_cards(session: Session, edition: Edition, ids: Sequence[str]) -> list[Card]:
    """Cards of papers of a day edition's day by their ``day_scores`` rows (papers that the
    edition itself leaves out), in the day's rank order."""
    rows = session.execute(
        select(*_DAY_SCORE_COLUMNS)
        .where(DayScore.edition_id == edition.id, DayScore.arxiv_id.in_(ids))
        .order_by(DayScore.rank)
    ).all()
    return cards_for(session, rows, edition.edition_date)


def cards_for(session: Session, items: Sequence[Any], until: date) -> list[Card]:
    """Cards of edition items read as rows of ``_ITEM_COLUMNS``."""
    ids = [item.arxiv_id for item in items]
    stored, community = papers(session, ids), signals(session, ids)
    labels = topic_labels(session, [i.topic_id for i in items if i.topic_id is not None], until)
    known = outcomes_known_until(session)
    return [
        card(
            item.position,
            stored[item.arxiv_id],
            _chip(item.topic_id, labels),
            _scored(item),
            community.get(item.arxiv_id, Signals()),
            known,
        )
        for item in items
        if item.arxiv_id in stored
    ]


def _scored(item: Any) -> Scored:
    return Scored(
        score=item.score, components=item.components, chance=item.chance, reasons=item.reasons
    )


def plain_cards(session: Session, arxiv_ids: Sequence[str]) -> list[Card]:
    """Unscored cards for papers in the given order (search results, author works)."""
    stored, community = papers(session, arxiv_ids), signals(session, arxiv_ids)
    known = outcomes_known_until(session)
    return [
        card(rank, stored[i], None, None, community.get(i, Signals()), known)
        for rank, i in enumerate((i for i in arxiv_ids if i in stored), start=1)
    ]


def with_day_chances(session: Session, cards: list[Card]) -> list[Card]:
    """The cards, each with the chance its announcement day's newest edition gave the paper:
    what Paperboy expected of each at announcement, the number its day's page shows (an
    author's works, a topic's papers, search results)."""
    if not cards:
        return cards
    # Read through the day's edition, whose (edition, paper) key finds each row directly.
    rows = session.execute(
        select(DayScore.arxiv_id, DayScore.chance)
        .join(Paper, Paper.arxiv_id == DayScore.arxiv_id)
        .join(
            Edition,
            (Edition.id == DayScore.edition_id)
            & (Edition.period == "day")
            & (Edition.edition_date == Paper.announced_on),
        )
        .where(Paper.arxiv_id.in_([c.paper.arxiv_id for c in cards]))
        .where(DayScore.chance.is_not(None))
        .order_by(Edition.edition_date.desc(), Edition.version.desc())
    )
    chances: dict[str, float] = {}
    for arxiv_id, chance in rows:
        if chance is not None:
            chances.setdefault(arxiv_id, float(chance))
    return [replace(c, chance=chances.get(c.paper.arxiv_id, c.chance)) for c in cards]


def _chip(topic_id: int | None, labels: dict[int, str]) -> TopicChip | None:
    if topic_id is None or topic_id not in labels:
        return None
    return TopicChip(topic_id, labels[topic_id])


def appearances(session: Session, arxiv_id: str) -> list[Appearance]:
    """The editions (latest versions) a paper appears in, with its place there, newest first."""
    rows = session.execute(
        select(Edition.period, Edition.edition_date, Edition.version, *_ITEM_COLUMNS)
        .join(EditionItem, EditionItem.edition_id == Edition.id)
        .where(EditionItem.arxiv_id == arxiv_id)
        .order_by(Edition.edition_date.desc(), Edition.period, Edition.version.desc())
    )
    seen: set[tuple[str, date]] = set()
    found: list[Appearance] = []
    for row in rows:
        if (row.period, row.edition_date) not in seen:
            seen.add((row.period, row.edition_date))
            found.append(_appearance(row))
    return found


def _appearance(row: Any) -> Appearance:
    return Appearance(
        period=row.period,
        edition_date=row.edition_date,
        label=human_label(parse_period(row.period), row.edition_date),
        version=row.version,
        rank=row.position,
        score=row.score,
        components=parse_components(row.components),
        chance=row.chance,
        reasons=load_reasons(row.reasons),
    )


def author_name(session: Session, key: str) -> str | None:
    return session.scalar(select(Author.name).where(Author.key == key))
