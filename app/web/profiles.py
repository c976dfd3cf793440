"""Author profiles: reads that gather a name's, a person's or a group author's page (no
commits); a topic's is in :mod:`app.web.topic_profiles`.

:func:`author_page` returns the view model its template shows, :func:`author_json` the API
body built from it, so the page and the API always say the same thing; both list the papers
``WORKS_SHOWN`` a page. The topics of a set of papers month by month (:func:`topic_months`)
show on an author's page and an organization's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session, aliased

from app.core.models import (
    Author,
    Paper,
    PaperAuthor,
    PaperTopic,
    Person,
    TopicDay,
)
from app.core.names import is_group_key
from app.core.reads import topic_labels
from app.core.refusals import NotFound
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
    within,
)
from app.web.view_models import (
    Card,
    Coauthor,
    Collaborator,
    TopicChip,
    collaborators,
    key_phrases,
)

WORKS_SHOWN = 100
# A paper in a profile's API answer lists this many of its authors, and says how many there are.
AUTHORS_LISTED = 100
COAUTHORS_READ = 50
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


@dataclass(frozen=True)
class AuthorPage:
    key: str
    name: str
    spellings: list[str]
    works: list[Card]
    paper_count: int
    topics: list[AuthorTopic]
    collaborators: list[Collaborator]
    collaborator_count: int  # every co-author of the papers: only the closest are listed
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
    # A group author ("ATLAS Collaboration"): one group, never split, claimed by nobody.
    group: bool = False
    page: int = 1  # which page of ``WORKS_SHOWN`` works, of ``pages``
    pages: int = 1
    first: int = 1  # the number of the page's first work among them all

    @property
    def kind(self) -> str:
        """What the page is of: "group", "person" (one of a name's people) or "name"."""
        return "group" if self.group else "person" if self.person else "name"


def author_page(
    session: Session,
    key: str,
    person: int | None = None,
    leave_out: Set[str] = frozenset(),
    page: int = 1,
) -> AuthorPage | None:
    """The name's page, or one person's page: the name's papers narrowed to theirs, less
    ``leave_out`` (what the reader said is not theirs), ``WORKS_SHOWN`` of them on ``page``
    (the count and the topics are of them all, read in one query)."""
    name = session.scalar(select(Author.name).where(Author.key == key))
    if name is None:
        return None
    mine = (PaperAuthor.author_key == key) & within(PaperAuthor.arxiv_id, person)
    works = _works(session, mine, person, leave_out, page, name)
    close, coauthor_count = _collaborators(session, key, person)
    shared, group = _shared_topics(session, key, close, person), is_group_key(key)
    return AuthorPage(
        key=key,
        name=name,
        spellings=sorted(set(session.scalars(select(PaperAuthor.name).where(mine)))),
        works=queries.with_day_chances(session, queries.plain_cards(session, works.shown)),
        paper_count=works.total,
        collaborator_count=coauthor_count,
        topics=_author_topics(session, works.every),
        collaborators=close,
        shared=shared,
        facts=author_facts(session, key, close, within(PaperAuthor.arxiv_id, person)),
        months=topic_months(session, works.every),
        followers=person_followers(session, person) if person else author_followers(session, key),
        claimed=person_claimed(session, person) if person else author_claimed(session, key),
        graph=collaboration_graph(name, shared),
        people=[] if group else _told_apart(people_of_name(session, key)),
        person=person,
        left_out=queries.plain_cards(session, sorted(leave_out)),
        group=group,
        page=page,
        pages=works.pages,
        first=(page - 1) * WORKS_SHOWN + 1,
    )


def _told_apart(people: list[PersonSummary]) -> list[PersonSummary]:
    """The name's people, listed when there are several to tell apart."""
    return people if len(people) > 1 else []


class _Works(NamedTuple):
    """A page's works: those shown on it, all of them (a query), how many, on how many pages."""

    shown: list[str]
    every: Select[str]
    total: int
    pages: int


def _works(
    session: Session,
    mine: ColumnElement[bool],
    person: int | None,
    leave_out: Set[str],
    page: int,
    name: str,
) -> _Works:
    theirs = Paper.arxiv_id.in_(select(PaperAuthor.arxiv_id).where(mine))
    kept = theirs & Paper.arxiv_id.not_in(sorted(leave_out))
    total = _total(session, theirs, person, leave_out)
    pages = _pages(total, page, name)
    every = select(Paper.arxiv_id).where(kept)
    return _Works(_newest_first(session, kept, page), every, total, pages)


def _total(
    session: Session, theirs: ColumnElement[bool], person: int | None, leave_out: Set[str]
) -> int:
    """How many papers the page lists in all: a person's as their last split counted them
    (``people.paper_count``), less those the reader left out; a name's counted here."""
    if person is None:
        return _count(session, theirs)
    held = session.scalar(select(Person.paper_count).where(Person.id == person)) or 0
    if not leave_out:
        return held
    return max(0, held - _count(session, theirs & Paper.arxiv_id.in_(sorted(leave_out))))


def _count(session: Session, papers: ColumnElement[bool]) -> int:
    return session.scalar(select(func.count()).select_from(Paper).where(papers)) or 0


def _pages(total: int, page: int, name: str) -> int:
    """How many pages of ``WORKS_SHOWN`` works there are; a page past the last is missing."""
    pages = max(1, -(-total // WORKS_SHOWN))
    if page > pages:
        raise NotFound(f"page {page} of {name}'s papers: there are {pages}")
    return pages


def _newest_first(session: Session, kept: ColumnElement[bool], page: int) -> list[str]:
    """The works on ``page``, newest first."""
    return list(
        session.scalars(
            select(Paper.arxiv_id)
            .where(kept)
            .order_by(Paper.announced_on.desc().nulls_last(), Paper.arxiv_id.desc())
            .limit(WORKS_SHOWN)
            .offset((page - 1) * WORKS_SHOWN)
        )
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


def _collaborators(
    session: Session, key: str, person: int | None
) -> tuple[list[Collaborator], int]:
    """The closest co-authors (of the ``COAUTHORS_READ`` sharing most papers) and how many
    there are in all: a collaboration's thousands are counted, never listed."""
    mine, theirs = aliased(PaperAuthor), aliased(PaperAuthor)
    shared = func.count(func.distinct(theirs.arxiv_id))
    rows = session.execute(
        select(theirs.author_key, func.min(theirs.name), shared, func.count().over())
        .join(mine, mine.arxiv_id == theirs.arxiv_id)
        .where(mine.author_key == key, theirs.author_key != key, within(mine.arxiv_id, person))
        .group_by(theirs.author_key)
        .order_by(shared.desc())
        .limit(COAUTHORS_READ)
    ).all()
    total = rows[0][3] if rows else 0
    return collaborators([Coauthor(key, name, count) for key, name, count, _ in rows]), total


def _author_topics(session: Session, ids: Select[str]) -> list[AuthorTopic]:
    counts: dict[int, int] = {}
    for topic_id in session.scalars(
        select(PaperTopic.topic_id).where(PaperTopic.arxiv_id.in_(ids))
    ):
        counts[topic_id] = counts.get(topic_id, 0) + 1
    labels = topic_labels(session, list(counts))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [AuthorTopic(TopicChip(t, labels[t]), n) for t, n in ranked if t in labels][:10]


def author_json(
    session: Session,
    key: str,
    person: int | None = None,
    page_number: int = 1,
) -> api.AuthorProfile | None:
    page = author_page(session, key, person, page=page_number)
    if page is None:
        return None
    return api.AuthorProfile(
        kind=page.kind,
        page=page.page,
        pages=page.pages,
        key=page.key,
        name=page.name,
        spellings=page.spellings,
        paperCount=page.paper_count,
        papers=[_listed_authors(paper_model(card.paper, card.signals)) for card in page.works],
        topics=_topics_json(page.topics),
        collaboratorCount=page.collaborator_count,
        collaborators=_collaborators_json(page.shared),
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


def _listed_authors(paper: api.Paper) -> api.Paper:
    """The paper with the first ``AUTHORS_LISTED`` of its authors and, where that cuts a
    collaboration's list, how many there are (``/api/papers/{id}`` lists them all)."""
    if len(paper.authors) <= AUTHORS_LISTED:
        return paper
    cut = {"authors": paper.authors[:AUTHORS_LISTED], "authorCount": len(paper.authors)}
    return paper.model_copy(update=cut)


def _collaborators_json(shared: list[SharedWork]) -> list[api.Collaborator]:
    return [
        api.Collaborator(
            key=one.key, name=one.name, sharedPapers=one.shared_papers, topic=one.topic
        )
        for one in shared
    ]


def _topics_json(topics: list[AuthorTopic]) -> list[api.AuthorTopic]:
    return [
        api.AuthorTopic(id=one.topic.id, label=one.topic.label, papers=one.papers) for one in topics
    ]


def topic_months(
    session: Session, arxiv_ids: Sequence[str] | Select[str]
) -> list[OrganizationMonth]:
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
