"""What a digest run reads: an edition and the rest of its days as the selection sees them,
each subscriber's taste, and what each saved search finds among the papers of an edition's
days (:class:`SearchMatches`; see :mod:`accounts.saved_searches`).

The deployment's own search runs each saved search once per edition, whoever saved it, over
the edition's days only: the same matches, best first, that the search page and the search's
feeds give for those days. The ``-word`` exclusions are applied by the digest's sections,
which hold each paper's text (:mod:`digest.sections`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import date, timedelta

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from accounts.saved_searches import SavedQuery
from app.core.config import PACKAGED_MODEL_DIMENSIONS
from app.core.explanations import helped, load_reasons
from app.core.models import (
    DayScore,
    Edition,
    EditionItem,
    HfDailyPaper,
    Paper,
    PaperEmbedding,
    PaperPerson,
    PhraseEmbedding,
)
from app.core.periods import last_day
from app.core.reads import latest_edition, topic_labels
from app.core.vectors import Matrix, pack, stack, unpack
from digest.selection import EditionPaper, EditionView
from digest.taste_space import space_for
from search.excluded_words import split_query
from search.query import MAX_MATCHES, Filters, SearchSort
from search.searcher import Searcher

Encode = Callable[[Sequence[str]], Matrix]


def edition_view(
    session: Session, edition: Edition, model: str, search: Searcher | None = None
) -> EditionView:
    """The edition as the selection reads it: its papers in order, then every other paper
    announced in its days, best scored first (``day_scores``): a day edition's own day, or
    each day of a week edition's week, as that day's newest edition scored it. With
    ``search``, saved searches run over the edition's days."""
    scored: list[EditionItem | DayScore] = list(edition.items)
    shown = {item.arxiv_id for item in edition.items}
    scored += [row for row in _rest_of_days(session, edition) if row.arxiv_id not in shown]
    last = last_day(edition.period, edition.edition_date)
    matcher = None if search is None else SearchMatches(search, edition.edition_date, last)
    return _view(session, scored, model, len(edition.items), matcher)


def days_view(
    session: Session,
    first: date,
    last: date,
    model: str,
    *,
    shown: int,
    search: Searcher | None = None,
) -> EditionView:
    """Every paper announced from ``first`` to ``last`` as the selection reads it, each once,
    best scored first as its day's newest edition scored it, the first ``shown`` taken as the
    edition (a catch-up's days, digest.catch_up)."""
    days = [first + timedelta(days=offset) for offset in range((last - first).days + 1)]
    newest = [found for day in days if (found := latest_edition(session, "day", day))]
    rows: list[EditionItem | DayScore] = list(
        _best_of(_day_scores(session, [e.id for e in newest]))
    )
    scored = {row.arxiv_id for row in rows}
    for edition in newest:  # editions ranked before day_scores existed: their items
        rows += [item for item in edition.items if item.arxiv_id not in scored]
        scored |= {item.arxiv_id for item in edition.items}
    rows.sort(key=lambda row: row.score, reverse=True)
    matcher = None if search is None else SearchMatches(search, first, last)
    return _view(session, rows, model, min(shown, len(rows)), matcher)


def _view(
    session: Session,
    scored: Sequence[EditionItem | DayScore],
    model: str,
    edition_size: int,
    matcher: SearchMatches | None,
) -> EditionView:
    ids = [row.arxiv_id for row in scored]
    papers = {
        paper.arxiv_id: paper
        for paper in session.scalars(
            select(Paper)
            .where(Paper.arxiv_id.in_(ids))
            .options(selectinload(Paper.authors), selectinload(Paper.categories))
        )
    }
    labels = topic_labels(session, [row.topic_id for row in scored if row.topic_id is not None])
    people = people_of_papers(session, ids)
    organizations = organizations_of_papers(session, ids)
    view = [
        _edition_paper(papers[row.arxiv_id], row, labels, people, organizations.get(row.arxiv_id))
        for row in scored
    ]
    return EditionView(
        view,
        _vectors(session, ids, model),
        space_for(model),
        edition_size=edition_size,
        matcher=matcher,
    )


def _best_of(rows: list[DayScore]) -> list[DayScore]:
    """Best first; a paper scored on two days keeps its better score."""
    best: dict[str, DayScore] = {}
    for row in sorted(rows, key=lambda row: row.score, reverse=True):
        best.setdefault(row.arxiv_id, row)
    return list(best.values())


def _rest_of_days(session: Session, edition: Edition) -> list[DayScore]:
    if edition.period == "day":
        return _day_scores(session, [edition.id])
    if edition.period != "week":
        return []
    days = [edition.edition_date + timedelta(days=offset) for offset in range(7)]
    newest = [latest_edition(session, "day", day) for day in days]
    rows = _day_scores(session, [found.id for found in newest if found is not None])
    return _best_of(rows)  # best first across the week


def _day_scores(session: Session, edition_ids: list[int]) -> list[DayScore]:
    query = select(DayScore).where(DayScore.edition_id.in_(edition_ids))
    return list(session.scalars(query.order_by(DayScore.edition_id, DayScore.rank)))


def people_of_papers(session: Session, ids: Sequence[str]) -> dict[tuple[str, str], int]:
    """The person behind each (paper, author key) of the papers, where names were split."""
    query = select(PaperPerson.arxiv_id, PaperPerson.author_key, PaperPerson.person_id)
    return {
        (arxiv_id, key): person
        for arxiv_id, key, person in session.execute(query.where(PaperPerson.arxiv_id.in_(ids)))
    }


def organizations_of_papers(session: Session, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The Hugging Face organization each of the papers was submitted under, where one was:
    its slug and the name it shows (the slug where Hugging Face gave none)."""
    query = select(
        HfDailyPaper.arxiv_id, HfDailyPaper.organization_name, HfDailyPaper.organization_fullname
    ).where(HfDailyPaper.arxiv_id.in_(ids), HfDailyPaper.organization_name.is_not(None))
    found: dict[str, tuple[str, str]] = {}
    for arxiv_id, slug, name in session.execute(query.order_by(HfDailyPaper.daily_date)):
        if slug:  # the newest day's, where they differ
            found[arxiv_id] = (slug, name or slug)
    return found


def _edition_paper(
    paper: Paper,
    item: EditionItem | DayScore,
    labels: dict[int, str],
    people: dict[tuple[str, str], int],
    organization: tuple[str, str] | None = None,
) -> EditionPaper:
    topic = item.topic_id
    return EditionPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        authors=[link.name for link in paper.authors],
        author_keys=[link.author_key for link in paper.authors],
        author_people=tuple(people.get((paper.arxiv_id, a.author_key)) for a in paper.authors),
        categories=paper.category_names,
        score=item.score,
        components=json.loads(item.components) if item.components else {},
        topic_id=topic,
        topic_label=labels.get(topic) if topic is not None else None,
        chance=item.chance,
        reasons=tuple(reason.text for reason in helped(load_reasons(item.reasons))),
        abstract=paper.abstract,
        organization=organization[0] if organization else None,
        organization_name=organization[1] if organization else None,
    )


def _vectors(session: Session, ids: list[str], model: str) -> Matrix:
    stored = dict(
        session.execute(
            select(PaperEmbedding.arxiv_id, PaperEmbedding.vector).where(
                PaperEmbedding.arxiv_id.in_(ids), PaperEmbedding.model == model
            )
        ).all()
    )
    empty = bytes(4 * PACKAGED_MODEL_DIMENSIONS)
    blobs = [stored.get(arxiv_id, empty) for arxiv_id in ids]
    dimensions = len(next(iter(stored.values()))) // 4 if stored else PACKAGED_MODEL_DIMENSIONS
    return stack(
        [blob if len(blob) == 4 * dimensions else bytes(4 * dimensions) for blob in blobs],
        dimensions,
    )


def phrase_vectors(
    session: Session, texts: list[str], model: str, encode: Encode | None
) -> Matrix | None:
    """Phrase vectors, embedded once per model and stored; None when there are no phrases."""
    if not texts:
        return None
    keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
    stored = dict(
        session.execute(
            select(PhraseEmbedding.text_hash, PhraseEmbedding.vector).where(
                PhraseEmbedding.model == model, PhraseEmbedding.text_hash.in_(keys)
            )
        ).all()
    )
    missing = [i for i, key in enumerate(keys) if key not in stored]
    if missing and encode is not None:
        for i, vector in zip(missing, encode([texts[i] for i in missing]), strict=True):
            stored[keys[i]] = pack(vector)
            session.add(PhraseEmbedding(model=model, text_hash=keys[i], vector=stored[keys[i]]))
    rows = [unpack(stored[key]) for key in keys if key in stored]
    return np.vstack(rows) if rows else None


class SearchMatches:
    """Saved searches run over the days ``first`` to ``last``, each once."""

    def __init__(self, searcher: Searcher, first: date, last: date) -> None:
        self._searcher, self._first, self._last = searcher, first, last
        self._found: dict[SavedQuery, list[str]] = {}

    def __call__(self, saved: SavedQuery) -> list[str]:
        """The arXiv ids the search finds in those days, best first."""
        if saved not in self._found:
            words = split_query(saved.query).words
            filters = Filters(self._first, self._last, saved.category or None)
            found = self._searcher.search(words, filters)
            self._found[saved] = found.page(SearchSort.relevance, 1, MAX_MATCHES)
        return self._found[saved]
