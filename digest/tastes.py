"""Subscribers' tastes for one run: phrase vectors and past feedback, read once per run.

A run sends thousands of digests; reading every subscriber's phrase and feedback vectors with
queries of their own would cost more than selecting the digest. :class:`Tastes` loads the
phrase cache and all feedback vectors of the model once, and embeds (and stores) only phrases
never seen before.

A reader's liked papers are their thumbs up (a claimed author page gives its works one) and
the papers on their reading list that they gave no thumbs at all: saving a paper says "more
like this" as arxiv-sanity-lite's tags do, and a thumbs down on it still wins.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Row, Select, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from accounts.list_readers import ListNews, list_news
from accounts.preferences import phrases
from accounts.saved_searches import all_searches
from accounts.threads import comment_times
from app.core.models import (
    DigestFeedback,
    Frequency,
    Paper,
    PaperEmbedding,
    PhraseEmbedding,
    SavedPaper,
)
from app.core.names import author_keys
from app.core.vectors import Matrix, pack, unpack
from digest.ledger import Reader
from digest.profile_match import paper_text
from digest.run_inputs import Encode
from digest.selection import Discussed, EditionPaper, Liked, ListSection, Taste

# A followed list's papers are news for a day's digest a day, for a week's a week.
NEWS_SPAN = {Frequency.DAILY: timedelta(days=1), Frequency.WEEKLY: timedelta(days=7)}
# The most discussed papers of that span a digest may name, the most commented first (its
# section leaves out those another section holds).
DISCUSSED_READ = 10


class Tastes:
    def __init__(
        self,
        session: Session,
        model: str,
        encode: Encode | None,
        only: int | None = None,
        now: datetime | None = None,
    ) -> None:
        """``only``: read the feedback of that one subscriber (a page for one reader), not of
        every subscriber (a digest run); ``now``: the time of the digest, whose followed
        lists' new papers are those added in the day or week before (None: none)."""
        self._model, self._encode = model, encode
        self._phrases: dict[str, bytes] = dict(
            session.execute(
                select(PhraseEmbedding.text_hash, PhraseEmbedding.vector).where(
                    PhraseEmbedding.model == model
                )
            ).all()
        )
        self._feedback = _feedback(session, model, only)
        self._searches = all_searches(session, only)
        self._hidden = _hidden(session, only)
        self._now = now
        self._news = {} if now is None else list_news(session, now - max(NEWS_SPAN.values()), only)
        self._listed = _list_papers(session, self._news)
        week = max(NEWS_SPAN.values())
        self._talk = [] if now is None else comment_times(session, now - week, now)
        self._talked: dict[str, EditionPaper] = {}

    def of(self, session: Session, subscriber: Reader) -> Taste:
        interests = phrases(subscriber.interests)
        feedback = self._feedback.get(subscriber.id, _Feedback())
        return Taste(
            max_items=subscriber.max_items,
            categories=frozenset(subscriber.categories),
            interests=interests,
            interest_vectors=self._vectors(session, interests),
            exclusion_vectors=self._vectors(session, phrases(subscriber.exclusions)),
            followed_topics=frozenset(subscriber.followed_topics),
            muted_topics=frozenset(subscriber.muted_topics),
            followed_authors=frozenset(subscriber.followed_authors),
            muted_authors=frozenset(subscriber.muted_authors),
            followed_people=frozenset(subscriber.followed_people),
            followed_organizations=frozenset(subscriber.followed_organizations),
            liked=_stacked(feedback.liked),
            liked_texts=tuple(feedback.liked_texts),
            liked_papers=tuple(feedback.liked_papers),
            disliked=_stacked(feedback.disliked),
            searches=tuple(self._searches.get(subscriber.id, ())),
            hidden=frozenset(self._hidden.get(subscriber.id, ())),
            listed=self._listed_for(subscriber),
            discussed=self._discussed_for(session, subscriber),
        )

    def _listed_for(self, subscriber: Reader) -> tuple[ListSection, ...]:
        if self._now is None:
            return ()
        since = self._now - NEWS_SPAN[subscriber.frequency]
        sections = (
            ListSection(
                news.title,
                tuple(self._listed[arxiv_id] for arxiv_id, at in news.added if at > since),
            )
            for news in self._news.get(subscriber.id, ())
        )
        return tuple(section for section in sections if section.papers)

    def _discussed_for(self, session: Session, subscriber: Reader) -> tuple[Discussed, ...]:
        """The papers most commented on in the reader's day or week, if they asked for them."""
        if self._now is None or not subscriber.discussed_in_digest:
            return ()
        since = self._now - NEWS_SPAN[subscriber.frequency]
        counted = Counter(arxiv_id for arxiv_id, at in self._talk if at > since)
        most = sorted(counted, key=lambda arxiv_id: (-counted[arxiv_id], arxiv_id))
        most = most[:DISCUSSED_READ]
        self._talked |= _edition_papers(session, set(most) - set(self._talked))
        return tuple(Discussed(self._talked[a], counted[a]) for a in most if a in self._talked)

    def _vectors(self, session: Session, texts: list[str]) -> Matrix | None:
        keys = [phrase_key(text) for text in texts]
        missing = [i for i, key in enumerate(keys) if key not in self._phrases]
        if missing and self._encode is not None:
            encoded = self._encode([texts[i] for i in missing])
            for i, vector in zip(missing, encoded, strict=True):
                self._phrases[keys[i]] = pack(vector)
                session.add(
                    PhraseEmbedding(model=self._model, text_hash=keys[i], vector=pack(vector))
                )
        return _stacked([self._phrases[key] for key in keys if key in self._phrases])


def phrase_key(text: str) -> str:
    """What a phrase's stored vector is found by (``PhraseEmbedding.text_hash``)."""
    return hashlib.sha256(text.encode()).hexdigest()


def embed_phrases(session: Session, model: str, encode: Encode, texts: Sequence[str]) -> int:
    """Stores the vector of each of ``texts`` not yet embedded with ``model`` (a reader's
    interests and exclusions as they are saved, so their next page reads them); how many."""
    keys = {phrase_key(text): text for text in texts}
    stored = set(
        session.scalars(
            select(PhraseEmbedding.text_hash).where(
                PhraseEmbedding.model == model, PhraseEmbedding.text_hash.in_(keys)
            )
        )
    )
    missing = [(key, text) for key, text in keys.items() if key not in stored]
    if missing:
        vectors = encode([text for _, text in missing])
        for (key, _), vector in zip(missing, vectors, strict=True):
            session.add(PhraseEmbedding(model=model, text_hash=key, vector=pack(vector)))
    return len(missing)


@dataclass(slots=True)
class _Feedback:
    """One subscriber's thumbs: vectors, and the liked papers' texts for the tf-idf match."""

    liked: list[bytes] = field(default_factory=list)
    liked_texts: list[str] = field(default_factory=list)
    liked_papers: list[Liked] = field(default_factory=list)
    disliked: list[bytes] = field(default_factory=list)

    def like(self, row: Row[Any], how: str) -> None:
        """Add a liked paper: ``row`` has its ``arxiv_id``, ``vector``, ``title``, ``abstract``."""
        self.liked.append(row.vector)
        self.liked_texts.append(paper_text(row.title, row.abstract))
        self.liked_papers.append(Liked(row.arxiv_id, row.title, how))


def _feedback(session: Session, model: str, only: int | None) -> dict[int, _Feedback]:
    feedback: dict[int, _Feedback] = defaultdict(_Feedback)
    judged: set[tuple[int, str]] = set()
    thumbs = (DigestFeedback.subscriber_id, DigestFeedback.arxiv_id, DigestFeedback.value)
    for row in session.execute(_with_paper(DigestFeedback, thumbs, model, only)):
        judged.add((row.subscriber_id, row.arxiv_id))
        if row.value > 0:
            feedback[row.subscriber_id].like(row, "liked")
        else:
            feedback[row.subscriber_id].disliked.append(row.vector)
    saves = (SavedPaper.subscriber_id, SavedPaper.arxiv_id)
    for row in session.execute(_with_paper(SavedPaper, saves, model, only)):
        if (row.subscriber_id, row.arxiv_id) not in judged:
            feedback[row.subscriber_id].like(row, "saved")
    return dict(feedback)


def _hidden(session: Session, only: int | None) -> dict[int, set[str]]:
    """The papers each reader said they are not interested in (one reader's when ``only``)."""
    query = select(DigestFeedback.subscriber_id, DigestFeedback.arxiv_id).where(
        DigestFeedback.hidden.is_(True)
    )
    if only is not None:
        query = query.where(DigestFeedback.subscriber_id == only)
    hidden: dict[int, set[str]] = defaultdict(set)
    for subscriber_id, arxiv_id in session.execute(query):
        hidden[subscriber_id].add(arxiv_id)
    return dict(hidden)


def _with_paper(
    table: type[DigestFeedback | SavedPaper],
    columns: tuple[InstrumentedAttribute[Any], ...],
    model: str,
    only: int | None,
) -> Select[Any]:
    """``columns`` of ``table`` with each paper's embedding, title and abstract (papers never
    embedded by ``model`` are left out), for one subscriber when ``only``."""
    query = (
        select(*columns, PaperEmbedding.vector, Paper.title, Paper.abstract)
        .join(PaperEmbedding, PaperEmbedding.arxiv_id == table.arxiv_id)
        .join(Paper, Paper.arxiv_id == table.arxiv_id)
        .where(PaperEmbedding.model == model)
    )
    return query if only is None else query.where(table.subscriber_id == only)


def _list_papers(session: Session, news: dict[int, list[ListNews]]) -> dict[str, EditionPaper]:
    """Each paper the followed lists gained, as a digest shows it (no trending score)."""
    wanted = {arxiv_id for lists in news.values() for item in lists for arxiv_id, _ in item.added}
    return _edition_papers(session, wanted)


def _edition_papers(session: Session, wanted: set[str]) -> dict[str, EditionPaper]:
    """Each of the papers, as a digest shows one from outside the edition (no trending score)."""
    if not wanted:
        return {}
    papers = session.scalars(select(Paper).where(Paper.arxiv_id.in_(wanted)))
    return {
        paper.arxiv_id: EditionPaper(
            arxiv_id=paper.arxiv_id,
            title=paper.title,
            authors=paper.author_names,
            author_keys=list(author_keys(paper.author_names)),
            categories=paper.category_names,
            score=0.0,
            components={},
            topic_id=None,
            topic_label=None,
            abstract=paper.abstract,
        )
        for paper in papers
    }


def _stacked(blobs: list[bytes]) -> Matrix | None:
    return np.vstack([unpack(blob) for blob in blobs]) if blobs else None
