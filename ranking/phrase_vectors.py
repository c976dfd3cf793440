"""Topic label phrases' vectors kept between days (``phrase_vectors``; thin I/O shell).

Labelling a day by meaning embeds each topic's best candidate phrases. The topic window moves
a day at a time, so most of a day's candidates were the day before's too: :class:`PhraseMemory`
embeds only the phrases the store does not hold, and keeps them. A phrase that no day has
asked for in ``KEEP_DAYS`` is dropped, so the table holds about a month of candidates. (Readers'
interest phrases are kept apart, in ``phrase_embeddings``, for as long as a reader holds them.)

A kept vector is the one the phrase was first given. The int8 model scales each batch of
phrases apart, so it is close to, not equal to, what a batch of today's phrases would give;
what it does give is the same vector every day, so a topic's label no longer shifts with the
other phrases of the day.

The table is a cache: it is read and written in short units of work of its own, never inside
the ranking job's, and a failure to read or keep vectors is logged and the phrases are
embedded as if nothing were kept.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, timedelta

import numpy as np
from sqlalchemy import delete, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import insert_plain_rows, session_scope
from app.core.models import Base, PhraseVector
from app.core.models.ranking import LONGEST_PHRASE
from app.core.vectors import Matrix, pack, unpack
from ranking.labels import Encode

KEEP_DAYS = 30
_COLUMNS = ("model", "phrase", "vector", "used_on")
_TABLE = Base.metadata.tables[PhraseVector.__tablename__]
# Phrases a query: well inside every database's limit on bound values.
PAGE_SIZE = 500

logger = logging.getLogger(__name__)


class PhraseMemory:
    """The kept vectors of one ranking job's label phrases, under ``model``, for ``day``.

    :meth:`around` reads what is kept in a short read of its own, which never waits on the
    job's writes (SQLite lets one connection write at a time); :meth:`keep`, called once the
    job has committed, keeps the new phrases and marks the ones read as asked for.
    """

    def __init__(self, sessions: sessionmaker[Session], model: str, day: date) -> None:
        self._sessions = sessions
        self._model = model
        self._day = day
        self._fresh: dict[str, Matrix] = {}
        self._used: set[str] = set()

    def around(self, encode: Encode) -> Encode:
        """``encode`` that embeds only the phrases not kept."""

        def cached(phrases: Sequence[str]) -> Matrix:
            if not phrases:
                return encode(phrases)
            known = self._read(phrases)
            self._used.update(known)
            missing = [phrase for phrase in dict.fromkeys(phrases) if phrase not in known]
            if missing:
                fresh = dict(zip(missing, encode(missing), strict=True))
                self._fresh.update(fresh)
                known.update(fresh)
            return np.stack([known[phrase] for phrase in phrases])

        return cached

    def keep(self) -> None:
        """Keep the new phrases' vectors, mark the others as asked for on the day, and drop
        those no day has asked for in a while (a phrase longer than the column, of very long
        words, is embedded each time instead)."""
        rows = [
            (self._model, phrase, pack(vector), self._day)
            for phrase, vector in self._fresh.items()
            if len(phrase) <= LONGEST_PHRASE
        ]
        try:
            with session_scope(self._sessions) as session:
                # Another job labelling at the same time may keep a phrase first: theirs stays.
                insert_plain_rows(session, _TABLE, _COLUMNS, rows, skip_duplicates=True)
                _mark_used(session, self._model, sorted(self._used), self._day)
                _forget_old(session, self._model, self._day)
        except SQLAlchemyError as error:
            logger.warning("label phrase vectors not kept (%s)", error)

    def _read(self, phrases: Sequence[str]) -> dict[str, Matrix]:
        try:
            with session_scope(self._sessions) as session:
                return _stored(session, self._model, phrases)
        except SQLAlchemyError as error:
            logger.warning("label phrase vectors not read (%s); embedding them all", error)
            return {}


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
