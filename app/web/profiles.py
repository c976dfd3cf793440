"""Author and topic profiles: reads that gather a researcher's or a topic's page (no commits).

Each ``*_page`` returns the view model its template shows; each ``*_json`` the API body built
from it, so the page and the API always say the same thing. The topics of a set of papers
month by month (:func:`topic_months`) show on an author's page and an organization's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

import numpy as np
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, aliased

from app.core.models import (
    Author,
    Paper,
    PaperAuthor,
    PaperTopic,
    TopicDay,
    TopicStatus,
)
from app.core.reads import topic_labels
from app.core.vectors import unpack
from app.services.arxiv_checks import OwnClaim
from app.web import api_models as api
from app.web import queries
from app.web.api_shape import paper_model
from app.web.author_facts import AuthorFacts, Graph, SharedWork, author_facts, collaboration_graph
from app.web.people import (
    PersonSummary,
    author_claimed,
    author_followers,
    people_of_name,
    person_claimed,
    person_followers,
    topic_followers,
    within,
)
from app.web.view_models import (
    Card,
    Coauthor,
    Collaborator,
    SizeBar,
    TopicChip,
    bars,
    collaborators,
    key_phrases,
)

WORKS_SHOWN = 100
RELATED = 5
TOPICS_A_MONTH = 3


class OrganizationMonth(NamedTuple):
    """A month of the organization's papers: how many, and the topics most of them were in."""

    month: date  # its first day
    papers: int
    topics: list[tuple[TopicChip, int]]  # topic and its papers that month, most first


class AuthorTopic(NamedTuple):
    """A topic an author's papers fall in, and how many of them do."""

    topic: TopicChip
    papers: int


class DayPapers(NamedTuple):
    """A topic's papers of one day."""

    day: date
    cards: list[Card]


class RelatedTopic(NamedTuple):
    """Another topic of the same day, and how close its centroid is (cosine)."""

    topic: TopicChip
    cosine: float


@dataclass(frozen=True)
class AuthorPage:
    key: str
    name: str
    spellings: list[str]
    works: list[Card]
    paper_count: int
    topics: list[AuthorTopic]
    collaborators: list[Collaborator]
    shared: list[SharedWork]  # the collaborators again, each with the topic most shared
    facts: AuthorFacts
    months: list[OrganizationMonth]  # topics over time, newest month first
    followers: int  # readers following the name (a count only)
    claimed: bool
    graph: Graph | None
    # The name's people when it holds several; on a person's page, which of them it is.
    people: list[PersonSummary] = field(default_factory=list)
    person: int | None = None
    hidden: bool = False  # a person's page its claimant hid: only they see it
    # The papers the signed-in reader said are not this person's: out of their view.
    left_out: list[Card] = field(default_factory=list)
    stance: str = ""  # the signed-in reader's on it: "follow", "mute" or ""
    own_claim: OwnClaim | None = None  # the signed-in reader's claim of this person
    moderating: bool = False  # the signed-in reader is a moderator: hides with a reason


@dataclass(frozen=True)
class TopicPage:
    topic: TopicChip
    phrases: list[str]
    status: TopicStatus
    first_seen_on: date
    sizes: list[SizeBar]
    days: list[DayPapers]
    related: list[RelatedTopic]
    followers: int = 0  # readers following it (a count only: who follows stays private)
    stance: str = ""  # the signed-in reader's on it: "follow", "mute" or ""


def author_page(
    session: Session, key: str, person: int | None = None, leave_out: Set[str] = frozenset()
) -> AuthorPage | None:
    """The name's page, or one person's page: the name's papers narrowed to theirs, less
    ``leave_out`` (what the reader said is not theirs)."""
    name = session.scalar(select(Author.name).where(Author.key == key))
    if name is None:
        return None
    mine = (PaperAuthor.author_key == key) & within(PaperAuthor.arxiv_id, person)
    ids = [arxiv_id for arxiv_id in _newest_first(session, mine) if arxiv_id not in leave_out]
    spellings = sorted(set(session.scalars(select(PaperAuthor.name).where(mine))))
    close = collaborators(_coauthors(session, key, person))
    shared = _shared_topics(session, key, close, person)
    people = people_of_name(session, key)
    return AuthorPage(
        key=key,
        name=name,
        spellings=spellings,
        works=queries.with_day_chances(session, queries.plain_cards(session, ids[:WORKS_SHOWN])),
        paper_count=len(ids),
        topics=_author_topics(session, ids),
        collaborators=close,
        shared=shared,
        facts=author_facts(session, key, close, within(PaperAuthor.arxiv_id, person)),
        months=topic_months(session, ids),
        followers=person_followers(session, person) if person else author_followers(session, key),
        claimed=person_claimed(session, person) if person else author_claimed(session, key),
        graph=collaboration_graph(name, shared),
        people=people if len(people) > 1 else [],
        person=person,
        left_out=queries.plain_cards(session, sorted(leave_out)),
    )


def _newest_first(session: Session, mine: ColumnElement[bool]) -> list[str]:
    return list(
        session.scalars(
            select(PaperAuthor.arxiv_id)
            .join(Paper, Paper.arxiv_id == PaperAuthor.arxiv_id)
            .where(mine)
            .order_by(Paper.announced_on.desc().nulls_last(), Paper.arxiv_id.desc())
        ).unique()
    )


def _shared_topics(
    session: Session, key: str, close: list[Collaborator], person: int | None
) -> list[SharedWork]:
    """Each collaborator with the topic most of the papers they share with ``key`` are in."""
    mine, theirs = aliased(PaperAuthor), aliased(PaperAuthor)
    rows = session.execute(
        select(theirs.author_key, PaperTopic.topic_id)
        .join(mine, mine.arxiv_id == theirs.arxiv_id)
        .join(PaperTopic, PaperTopic.arxiv_id == theirs.arxiv_id)
        .where(mine.author_key == key, theirs.author_key.in_([c.author.key for c in close]))
        .where(within(mine.arxiv_id, person))
    )
    counts: dict[str, Counter[int]] = {}
    for coauthor, topic_id in rows:
        counts.setdefault(coauthor, Counter())[topic_id] += 1
    labels = topic_labels(session, list({t for found in counts.values() for t in found}))
    shared = []
    for one in close:
        top = counts.get(one.author.key, Counter()).most_common(1)
        label = labels.get(top[0][0]) if top else None
        phrases = key_phrases(label) if label else []
        name = phrases[0] if phrases else label
        shared.append(
            SharedWork(
                key=one.author.key,
                name=one.author.name,
                shared_papers=one.shared_papers,
                topic=name,
            )
        )
    return shared


def _coauthors(session: Session, key: str, person: int | None) -> list[Coauthor]:
    mine, theirs = aliased(PaperAuthor), aliased(PaperAuthor)
    rows = session.execute(
        select(theirs.author_key, func.min(theirs.name), func.count(func.distinct(theirs.arxiv_id)))
        .join(mine, mine.arxiv_id == theirs.arxiv_id)
        .where(mine.author_key == key, theirs.author_key != key, within(mine.arxiv_id, person))
        .group_by(theirs.author_key)
        .order_by(func.count(func.distinct(theirs.arxiv_id)).desc())
        .limit(50)
    )
    return [Coauthor(key, name, count) for key, name, count in rows]


def _author_topics(session: Session, ids: list[str]) -> list[AuthorTopic]:
    if not ids:
        return []
    counts: dict[int, int] = {}
    for topic_id in session.scalars(
        select(PaperTopic.topic_id).where(PaperTopic.arxiv_id.in_(ids))
    ):
        counts[topic_id] = counts.get(topic_id, 0) + 1
    labels = topic_labels(session, list(counts))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [AuthorTopic(TopicChip(t, labels[t]), n) for t, n in ranked if t in labels][:10]


def author_json(session: Session, key: str, person: int | None = None) -> api.AuthorProfile | None:
    page = author_page(session, key, person)
    if page is None:
        return None
    return api.AuthorProfile(
        key=page.key,
        name=page.name,
        spellings=page.spellings,
        paperCount=page.paper_count,
        papers=[paper_model(card.paper, card.signals) for card in page.works],
        topics=[
            api.AuthorTopic(id=one.topic.id, label=one.topic.label, papers=one.papers)
            for one in page.topics
        ],
        collaborators=[
            api.Collaborator(
                key=one.key, name=one.name, sharedPapers=one.shared_papers, topic=one.topic
            )
            for one in page.shared
        ],
        followers=page.followers,
        claimed=page.claimed,
        facts=page.facts.sentences(page.name),
        organizations=[
            api.AuthorOrganization(slug=one.slug, name=one.name, papers=one.papers)
            for one in page.facts.organizations
        ],
        note="Authors are keyed by name: people who share a name share a key; "
        "people lists who Paperboy thinks they are, each at /api/people/{id}.",
        people=[
            api.PersonSummary(id=p.id, papers=p.papers, topic=p.topic, coauthors=p.coauthors)
            for p in page.people
        ],
        person=person,
    )


def topic_page(session: Session, topic_id: int) -> TopicPage | None:
    days = list(
        session.scalars(
            select(TopicDay).where(TopicDay.topic_id == topic_id).order_by(TopicDay.day)
        )
    )
    if not days:
        return None
    latest = days[-1]
    chip = TopicChip(topic_id, latest.label)
    return TopicPage(
        topic=chip,
        phrases=key_phrases(latest.label),
        status=latest.status,
        first_seen_on=days[0].day,
        sizes=bars({d.day: d.size for d in days}),
        days=_papers_by_day(session, topic_id),
        related=_related(session, latest),
        followers=topic_followers(session, topic_id),
    )


def _papers_by_day(session: Session, topic_id: int) -> list[DayPapers]:
    rows = session.execute(
        select(PaperTopic.day, PaperTopic.arxiv_id)
        .where(PaperTopic.topic_id == topic_id)
        .order_by(PaperTopic.day.desc(), PaperTopic.arxiv_id)
    ).all()
    plain = queries.plain_cards(session, [r.arxiv_id for r in rows])
    cards = {c.paper.arxiv_id: c for c in queries.with_day_chances(session, plain)}
    grouped: dict[date, list[Card]] = {}
    for row in rows:
        if row.arxiv_id in cards:
            grouped.setdefault(row.day, []).append(cards[row.arxiv_id])
    return [DayPapers(day, cards_of_day) for day, cards_of_day in grouped.items()]


def _related(session: Session, latest: TopicDay) -> list[RelatedTopic]:
    """Other topics of the same day, closest centroids first."""
    others = list(
        session.scalars(
            select(TopicDay).where(TopicDay.day == latest.day, TopicDay.topic_id != latest.topic_id)
        )
    )
    if not others:
        return []
    mine = unpack(latest.centroid)
    similarity = [float(np.dot(mine, unpack(o.centroid))) for o in others]
    ranked = sorted(zip(similarity, others, strict=True), key=lambda so: -so[0])[:RELATED]
    return [RelatedTopic(TopicChip(o.topic_id, o.label), s) for s, o in ranked]


def topic_json(session: Session, topic_id: int) -> api.TopicProfile | None:
    page = topic_page(session, topic_id)
    if page is None:
        return None
    return api.TopicProfile(
        id=page.topic.id,
        label=page.topic.label,
        keyPhrases=page.phrases,
        status=page.status,
        firstSeenOn=page.first_seen_on.isoformat(),
        sizes=[api.TopicSize(day=bar.day.isoformat(), size=bar.size) for bar in page.sizes],
        papersByDay=[
            api.TopicDayPapers(
                day=one.day.isoformat(), papers=[c.paper.arxiv_id for c in one.cards]
            )
            for one in page.days
        ],
        related=[
            api.RelatedTopic(id=one.topic.id, label=one.topic.label, cosine=round(one.cosine, 4))
            for one in page.related
        ],
    )


def topics_json(session: Session) -> list[api.TopicSummary]:
    latest = (
        select(TopicDay.topic_id, func.max(TopicDay.day).label("day"))
        .group_by(TopicDay.topic_id)
        .subquery()
    )
    rows = session.scalars(
        select(TopicDay)
        .join(latest, (latest.c.topic_id == TopicDay.topic_id) & (latest.c.day == TopicDay.day))
        .order_by(TopicDay.day.desc(), TopicDay.size.desc(), TopicDay.topic_id)
    )
    return [
        api.TopicSummary(
            id=r.topic_id,
            label=r.label,
            day=r.day.isoformat(),
            size=r.size,
            status=r.status,
            momentum=round(r.momentum, 4),
        )
        for r in rows
    ]


def topic_months(session: Session, arxiv_ids: list[str]) -> list[OrganizationMonth]:
    """Each month's papers among ``arxiv_ids`` (by the day their topic was assigned) and their
    most common topics, named by each topic's label of that day."""
    rows = session.execute(
        select(PaperTopic.arxiv_id, PaperTopic.day, PaperTopic.topic_id, TopicDay.label)
        .join(
            TopicDay,
            (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day),
        )
        .where(PaperTopic.arxiv_id.in_(arxiv_ids))
    ).all()
    papers: dict[date, set[str]] = {}
    topics: dict[date, Counter[int]] = {}
    labels: dict[int, str] = {}
    for row in rows:
        month = row.day.replace(day=1)
        papers.setdefault(month, set()).add(row.arxiv_id)
        topics.setdefault(month, Counter())[row.topic_id] += 1
        labels[row.topic_id] = row.label
    return [
        OrganizationMonth(
            month=month,
            papers=len(papers[month]),
            topics=[
                (TopicChip(topic, labels[topic]), count)
                for topic, count in topics[month].most_common(TOPICS_A_MONTH)
            ],
        )
        for month in sorted(papers, reverse=True)
    ]
