"""Subscribers' tastes for one run: phrase vectors and past feedback, read once per run.

A run sends thousands of digests; reading every subscriber's phrase and feedback vectors with
queries of their own would cost more than selecting the digest. :class:`Tastes` loads the
phrase cache and all feedback vectors of the model once, and embeds (and stores) only phrases
never seen before.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import DigestFeedback, Paper, PaperEmbedding, PhraseEmbedding
from app.core.vectors import Matrix, pack, unpack
from digest.accounts.preferences import phrases
from digest.ledger import Reader
from digest.profile_match import paper_text
from digest.selection import Taste
from digest.store import Encode


class Tastes:
    def __init__(
        self,
        session: Session,
        model: str,
        encode: Encode | None,
        only: int | None = None,
    ) -> None:
        """``only``: read the feedback of that one subscriber (a page for one reader), not of
        every subscriber (a digest run)."""
        self._model, self._encode = model, encode
        self._phrases: dict[str, bytes] = dict(
            session.execute(
                select(PhraseEmbedding.text_hash, PhraseEmbedding.vector).where(
                    PhraseEmbedding.model == model
                )
            ).all()
        )
        self._feedback = _feedback(session, model, only)

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
            liked=_stacked(feedback.liked),
            liked_texts=tuple(feedback.liked_texts),
            disliked=_stacked(feedback.disliked),
        )

    def _vectors(self, session: Session, texts: list[str]) -> Matrix | None:
        keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
        missing = [i for i, key in enumerate(keys) if key not in self._phrases]
        if missing and self._encode is not None:
            encoded = self._encode([texts[i] for i in missing])
            for i, vector in zip(missing, encoded, strict=True):
                self._phrases[keys[i]] = pack(vector)
                session.add(
                    PhraseEmbedding(model=self._model, text_hash=keys[i], vector=pack(vector))
                )
        return _stacked([self._phrases[key] for key in keys if key in self._phrases])


@dataclass(slots=True)
class _Feedback:
    """One subscriber's thumbs: vectors, and the liked papers' texts for the tf-idf match."""

    liked: list[bytes] = field(default_factory=list)
    liked_texts: list[str] = field(default_factory=list)
    disliked: list[bytes] = field(default_factory=list)


def _feedback(session: Session, model: str, only: int | None) -> dict[int, _Feedback]:
    query = (
        select(
            DigestFeedback.subscriber_id,
            DigestFeedback.value,
            PaperEmbedding.vector,
            Paper.title,
            Paper.abstract,
        )
        .join(PaperEmbedding, PaperEmbedding.arxiv_id == DigestFeedback.arxiv_id)
        .join(Paper, Paper.arxiv_id == DigestFeedback.arxiv_id)
        .where(PaperEmbedding.model == model)
    )
    if only is not None:
        query = query.where(DigestFeedback.subscriber_id == only)
    rows = session.execute(query)
    feedback: dict[int, _Feedback] = defaultdict(_Feedback)
    for subscriber_id, value, vector, title, abstract in rows:
        thumbs = feedback[subscriber_id]
        if value > 0:
            thumbs.liked.append(vector)
            thumbs.liked_texts.append(paper_text(title, abstract))
        else:
            thumbs.disliked.append(vector)
    return dict(feedback)


def _stacked(blobs: list[bytes]) -> Matrix | None:
    return np.vstack([unpack(blob) for blob in blobs]) if blobs else None
