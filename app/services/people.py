"""Split stored author names into people and keep each person's id: ``paperboy people`` and
the daily chain's step after publishing.

Each name's papers are split afresh (:func:`ranking.people.split_people`) and matched to the
people already stored (:func:`ranking.people.reconcile`), so a new paper joins its person
or starts a new one, and an address only moves when a split or merge leaves a person no
papers (``people.moved_to``). A claimed person chooses first and keeps its address; a
verified claimant's listed papers are one person (:mod:`ranking.verified_people`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from accounts import corrections
from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Paper,
    PaperAuthor,
    PaperCategory,
    PaperEmbedding,
    PaperPerson,
    Person,
    Subscriber,
)
from app.core.names import is_group_key
from app.core.vectors import Matrix, unpack
from app.services.people_claims import Listing, follow_moves, verified_listings
from app.services.reports import Completed
from ranking.people import Work, claimed_apart, reconcile, split_people
from ranking.people_links import LONG_LISTS, PaperLinks
from ranking.verified_people import pinned, split_verified

# Names split in one unit of work: few enough for the IN lists, many enough to read in bulk.
NAMES_PER_BATCH = 500


@dataclass
class PeopleReport(Completed):
    """What a run did: names split, people made, people moved to another."""

    names: int = 0
    people: int = 0
    new_people: int = 0
    moved: int = 0

    def lines(self) -> list[str]:
        return [
            f"people: {self.names} names hold {self.people} people "
            f"({self.new_people} new, {self.moved} moved)"
        ]


@dataclass
class _Papers:
    """What a batch of names' papers hold: each paper's author keys, categories, vector."""

    authors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    categories: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    vectors: dict[str, Matrix] = field(default_factory=dict)
    order: dict[str, tuple[date, str]] = field(default_factory=dict)
    _links: PaperLinks | None = None

    def links(self) -> PaperLinks:
        """The co-authors each pair of the papers shares, counted once for the batch."""
        if self._links is None:
            self._links = PaperLinks(self.authors)
        return self._links


def split_names(
    settings: Settings,
    sessions: sessionmaker[Session],
    keys: Iterable[str] | None = None,
    clock: Clock = utc_now,
) -> PeopleReport:
    """Split ``keys`` (every stored name when None) into people, a batch a unit of work."""
    report = PeopleReport()
    with session_scope(sessions) as session:
        names = sorted(set(keys)) if keys is not None else _all_names(session)
    for start in range(0, len(names), NAMES_PER_BATCH):
        with session_scope(sessions) as session:
            batch = names[start : start + NAMES_PER_BATCH]
            _split_batch(session, settings.embedding_model, batch, report, clock())
    return report


def names_of_day(sessions: sessionmaker[Session], day: date) -> list[str]:
    """The names of the papers announced on ``day``: the ones a new day can change."""
    with session_scope(sessions) as session:
        return sorted(
            set(
                session.scalars(
                    select(PaperAuthor.author_key)
                    .join(Paper, Paper.arxiv_id == PaperAuthor.arxiv_id)
                    .where(Paper.announced_on == day)
                )
            )
        )


def _all_names(session: Session) -> list[str]:
    return sorted(set(session.scalars(select(PaperAuthor.author_key).distinct())))


def _split_batch(
    session: Session, model: str, names: Sequence[str], report: PeopleReport, now: datetime
) -> None:
    _lock_names(session, names)
    by_name: dict[str, set[str]] = defaultdict(set)
    for key, arxiv_id in session.execute(
        select(PaperAuthor.author_key, PaperAuthor.arxiv_id).where(
            PaperAuthor.author_key.in_(names)
        )
    ):
        by_name[key].add(arxiv_id)
    papers = _read_papers(session, model, {p for ids in by_name.values() for p in ids})
    stored = _stored(session, names)
    claimed = _verified_people(session)
    detached = corrections.detached(session, names)
    listings = verified_listings(session, names)
    writes = _Writes(counted=_paper_counts(session, names))
    for key in names:
        ids = sorted(by_name.get(key, ()), key=lambda paper: papers.order[paper])
        context = _Context(
            stored=stored.get(key, {}),
            claimed=claimed,
            detached=detached.get(key, frozenset()),
            now=now,
            listing=listings.get(key),
        )
        _split_name(session, key, ids, papers, context, writes, report)
    writes.write(session)


def _verified_people(session: Session) -> frozenset[int]:
    """The people whose claim is verified: the split keeps each apart (an unverified claim is
    its reader's own view, and shapes nobody else's)."""
    verified = select(Subscriber.claimed_person).where(
        Subscriber.claimed_person.is_not(None), Subscriber.claim_verified_at.is_not(None)
    )
    return frozenset(person for person in session.scalars(verified) if person is not None)


def _paper_counts(session: Session, names: Sequence[str]) -> dict[int, int]:
    """How many papers each of the names' people held after their last split."""
    rows = select(Person.id, Person.paper_count).where(Person.author_key.in_(names))
    return dict(session.execute(rows).all())


def _lock_names(session: Session, names: Sequence[str]) -> None:
    """One split of a name at a time (the daily job and readers' corrections may split the
    same name at once), each reading what the one before it wrote: two splits of stale reads
    would each make people the other then leaves with no papers. On PostgreSQL each name's
    advisory lock; on SQLite a write that changes nothing, before anything is read, which
    takes the database's one write lock to the end of the transaction."""
    if session.get_bind().dialect.name != "postgresql":
        session.execute(text("UPDATE people SET hidden = hidden WHERE 0 = 1"))
        return
    session.execute(
        text(
            "SELECT pg_advisory_xact_lock(hashtext(name)) "
            "FROM unnest(CAST(:names AS text[])) AS name ORDER BY name"
        ),
        {"names": sorted(names)},
    )


def _read_papers(session: Session, model: str, ids: set[str]) -> _Papers:
    found = _Papers()
    chosen = sorted(ids)
    for start in range(0, len(chosen), NAMES_PER_BATCH * 4):
        page = chosen[start : start + NAMES_PER_BATCH * 4]
        for arxiv_id, key in session.connection().execute(  # plain rows: thousands a paper
            select(PaperAuthor.arxiv_id, PaperAuthor.author_key)
            .where(PaperAuthor.arxiv_id.in_(page))
            .order_by(PaperAuthor.arxiv_id, PaperAuthor.position)
        ):
            found.authors[arxiv_id].append(key)
        for arxiv_id, category in session.execute(
            select(PaperCategory.arxiv_id, PaperCategory.category).where(
                PaperCategory.arxiv_id.in_(page)
            )
        ):
            found.categories[arxiv_id].add(category)
        for arxiv_id, blob in session.execute(
            select(PaperEmbedding.arxiv_id, PaperEmbedding.vector).where(
                PaperEmbedding.model == model, PaperEmbedding.arxiv_id.in_(page)
            )
        ):
            found.vectors[arxiv_id] = unpack(blob)
        for arxiv_id, day in session.execute(
            select(Paper.arxiv_id, Paper.announced_on).where(Paper.arxiv_id.in_(page))
        ):
            found.order[arxiv_id] = (day or date.min, arxiv_id)
    return found


def _stored(session: Session, names: Sequence[str]) -> dict[str, dict[str, int]]:
    stored: dict[str, dict[str, int]] = defaultdict(dict)
    for key, arxiv_id, person in session.execute(
        select(PaperPerson.author_key, PaperPerson.arxiv_id, PaperPerson.person_id).where(
            PaperPerson.author_key.in_(names)
        )
    ):
        stored[key][arxiv_id] = person
    return stored


def _labels(key: str, ids: list[str], papers: _Papers) -> list[int]:
    """Each paper's person: a group author's papers are one group's; a name on long author
    lists (a collaboration's) is linked through the batch's shared counts."""
    if is_group_key(key):
        return [0] * len(ids)
    if len(ids) > 1 and sum(len(papers.authors[p]) for p in ids) > LONG_LISTS:
        linked = papers.links().linked_groups(ids)
        return split_people(_works(key, ids, papers, coauthors=False), linked=linked)
    return split_people(_works(key, ids, papers))


def _works(key: str, ids: Sequence[str], papers: _Papers, coauthors: bool = True) -> list[Work]:
    """What the split knows of each paper: its other authors (unless counted elsewhere),
    categories and vector (zeros when the paper has none yet under the configured model)."""
    width = next((len(papers.vectors[p]) for p in ids if p in papers.vectors), 1)
    blank = np.zeros(width, dtype=np.float32)
    return [
        Work(
            coauthors=frozenset(papers.authors[p]).difference((key,)) if coauthors else frozenset(),
            categories=frozenset(papers.categories[p]),
            vector=_sized(papers.vectors.get(p), blank),
        )
        for p in ids
    ]


def _sized(vector: Matrix | None, blank: Matrix) -> Matrix:
    return vector if vector is not None and vector.shape == blank.shape else blank


# A stored person's id, or a person made in this batch (its id comes with the batch's flush).
_PersonRef = int | Person


def _id(person: _PersonRef) -> int:
    return person if isinstance(person, int) else person.id


@dataclass
class _Writes:
    """A batch's changes, written at once: its names' rows, the people kept, made and moved."""

    rows: list[tuple[str, str, _PersonRef]] = field(default_factory=list)
    # Names whose stored papers changed person: their rows are written anew.
    rewritten: list[str] = field(default_factory=list)
    kept: set[int] = field(default_factory=set)
    moves: dict[int, _PersonRef] = field(default_factory=dict)
    # Each person's papers after the split (the total their page shows), and before it.
    counts: dict[_PersonRef, int] = field(default_factory=dict)
    counted: dict[int, int] = field(default_factory=dict)

    def place(self, key: str, placed: dict[str, _PersonRef], stored: dict[str, int]) -> None:
        """The name's rows: all of them when a stored paper changed person, else the new."""
        if any(placed.get(arxiv_id) != person for arxiv_id, person in stored.items()):
            self.rewritten.append(key)
            self.rows += [(arxiv_id, key, person) for arxiv_id, person in placed.items()]
        else:
            self.rows += [(a, key, person) for a, person in placed.items() if a not in stored]

    def write(self, session: Session) -> None:
        session.flush()  # every new person of the batch, in one statement
        for start in range(0, len(self.rewritten), NAMES_PER_BATCH):
            names = self.rewritten[start : start + NAMES_PER_BATCH]
            session.execute(delete(PaperPerson).where(PaperPerson.author_key.in_(names)))
        if self.rows:
            rows = [
                {"arxiv_id": arxiv_id, "author_key": key, "person_id": _id(person)}
                for arxiv_id, key, person in self.rows
            ]
            # The table's, not the class's: the ORM's bulk insert costs a Python call a row.
            session.execute(insert(PaperPerson.metadata.tables["paper_people"]), rows)
        if self.kept:
            session.execute(
                update(Person)
                .where(Person.id.in_(self.kept), Person.moved_to.is_not(None))
                .values(moved_to=None)
            )
        moved = {person: _id(to) for person, to in self.moves.items()}
        for person, to in moved.items():
            session.execute(update(Person).where(Person.id == person).values(moved_to=to))
        if moved:
            follow_moves(session, moved)
        self._write_counts(session)

    def _write_counts(self, session: Session) -> None:
        counts = {_id(person): papers for person, papers in self.counts.items()}
        changed = [
            {"id": person, "paper_count": papers}
            for person, papers in counts.items()
            if self.counted.get(person) != papers
        ]
        if changed:
            session.execute(update(Person), changed)  # by primary key, many at once


@dataclass(frozen=True)
class _Context:
    """What a name's split keeps to: its stored people, the claimed ones, the papers readers
    agreed are not by the person they were under (each then a person of its own)."""

    stored: dict[str, int]
    claimed: frozenset[int]
    detached: frozenset[str]
    now: datetime
    # The verified claimant's person and listed papers, where the name has one.
    listing: Listing | None = None


def _split_name(
    session: Session,
    key: str,
    ids: list[str],
    papers: _Papers,
    context: _Context,
    writes: _Writes,
    report: PeopleReport,
) -> None:
    groups, stored = _groups(key, ids, papers, context)
    groups = claimed_apart(stored, groups, context.claimed)
    matched = reconcile(stored, groups, first_pick=context.claimed)
    people = [_person(session, key, person, context.now, report) for person in matched.people]
    writes.kept.update(person for person in matched.people if person is not None)
    writes.moves.update({person: people[group] for person, group in matched.moved.items()})
    placed = {
        arxiv_id: person for person, group in zip(people, groups, strict=True) for arxiv_id in group
    }
    writes.place(key, placed, context.stored)
    held: Counter[_PersonRef] = Counter(placed.values())
    writes.counts.update({person: held[person] for person in [*context.stored.values(), *held]})
    report.names += 1
    report.people += len(groups)
    report.moved += len(matched.moved)


def _groups(
    key: str, ids: list[str], papers: _Papers, context: _Context
) -> tuple[list[list[str]], dict[str, int]]:
    """The name's papers in people, and the stored people to match them to. A verified
    claimant's listed papers are one person, stored as the claimed one, and stay with it even
    where readers detached them: arXiv lists them for the claimant's iD. The papers from
    before the feed was read are marked: one the feed leaves out is someone else's unless it
    shares co-authors with the listed ones."""
    listing = context.listing
    listed = listing.papers.intersection(ids) if listing is not None else frozenset()
    kept = [p for p in ids if p not in context.detached or p in listed]
    positions = frozenset(n for n, arxiv_id in enumerate(kept) if arxiv_id in listed)
    if listing is not None and positions:
        before = listing.complete_before
        # A paper of no known day (``date.min``) is not known to be older.
        older = [n for n, paper in enumerate(kept) if date.min < papers.order[paper][0] < before]
        labels = split_verified(_works(key, kept, papers), positions, older=older)
    else:
        labels = _labels(key, kept, papers)
    groups: list[list[str]] = [[] for _ in range(max(labels, default=-1) + 1)]
    for arxiv_id, label in zip(kept, labels, strict=True):
        groups[label].append(arxiv_id)
    groups += [[arxiv_id] for arxiv_id in ids if arxiv_id not in kept]
    if listing is None or not positions:
        return groups, context.stored
    return groups, pinned(context.stored, groups[0], listing.person)


def _person(
    session: Session, key: str, person: int | None, now: datetime, report: PeopleReport
) -> _PersonRef:
    """The stored person kept, or a new one (stored with the batch)."""
    if person is not None:
        return person
    made = Person(author_key=key, created_at=now)
    session.add(made)
    report.new_people += 1
    return made
