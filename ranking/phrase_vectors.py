"""Topic label phrases' vectors kept between days (``phrase_vectors``; thin I/O shell).

Labelling a day by meaning embeds each topic's best candidate phrases. The topic window moves
a day at a time, so most of a day's candidates were the day before's too: :func:`remembered`
embeds only the phrases the store does not hold, and stores them. A phrase that no day has
asked for in ``KEEP_DAYS`` is dropped, so the table holds about a month of candidates. (Readers'
interest phrases are kept apart, in ``phrase_embeddings``, for as long as a reader holds them.)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

import numpy as np
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.core.db import insert_plain_rows
from app.core.models import Base, PhraseVector
from app.core.vectors import Matrix, pack, unpack
from ranking.labels import Encode

KEEP_DAYS = 30
_TABLE = Base.metadata.tables[PhraseVector.__tablename__]
# Phrases a query: well inside every database's limit on bound values.
PAGE_SIZE = 500


def remembered(session: Session, model: str, encode: Encode, day: date) -> Encode:
    """``encode`` for the labels of ``day`` (phrases are vectors of ``model``), reading the
    phrases it has met from the store and storing those it has not."""

    def cached(phrases: Sequence[str]) -> Matrix:
        if not phrases:
            return encode(phrases)
        known = _stored(session, model, phrases)
        _mark_used(session, model, list(known), day)
        missing = [phrase for phrase in dict.fromkeys(phrases) if phrase not in known]
        if missing:
            fresh = encode(missing)
            # Another job labelling at the same time may store a phrase first: either vector
            # is the phrase's.
            insert_plain_rows(
                session,
                _TABLE,
                ("model", "phrase", "vector", "used_on"),
                [(model, p, pack(v), day) for p, v in zip(missing, fresh, strict=True)],
                skip_duplicates=True,
            )
            known.update(zip(missing, fresh, strict=True))
        _forget_old(session, model, day)
        return np.stack([known[phrase] for phrase in phrases])

    return cached


def _pages(phrases: Sequence[str]) -> list[list[str]]:
    unique = list(dict.fromkeys(phrases))
    return [unique[start : start + PAGE_SIZE] for start in range(0, len(unique), PAGE_SIZE)]


def _stored(session: Session, model: str, phrases: Sequence[str]) -> dict[str, Matrix]:
    found: dict[str, Matrix] = {}
    for page in _pages(phrases):
        rows = session.execute(
            select(PhraseVector.phrase, PhraseVector.vector).where(
                PhraseVector.model == model, PhraseVector.phrase.in_(page)
            )
        )
        found.update((phrase, unpack(vector)) for phrase, vector in rows)
    return found


def _mark_used(session: Session, model: str, phrases: list[str], day: date) -> None:
    """``day`` as the newest that asked for them (ranking an older day again leaves it)."""
    for page in _pages(phrases):
        session.execute(
            update(PhraseVector)
            .where(
                PhraseVector.model == model,
                PhraseVector.phrase.in_(page),
                PhraseVector.used_on < day,
            )
            .values(used_on=day)
        )


def _forget_old(session: Session, model: str, day: date) -> None:
    session.execute(
        delete(PhraseVector).where(
            PhraseVector.model == model, PhraseVector.used_on < day - timedelta(days=KEEP_DAYS)
        )
    )
