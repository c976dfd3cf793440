"""The declarative base every model shares: constraint names, UTC timestamps, stored states."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import TypeVar

from sqlalchemy import (
    DateTime,
    Dialect,
    MetaData,
    String,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase

State = TypeVar("State", bound=StrEnum)

# Explicit constraint names, so migrations can name what they alter (SQLite batch mode needs it).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Small rows looked up by their key: on SQLite, store them in the key's B-tree (no rowid), which
# halves the writes of a bulk import. Other databases ignore the option.
CLUSTERED_ON_KEY = {"sqlite_with_rowid": False}


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back time-zone aware.

    SQLite keeps no offset, so without this a value would come back naive there and aware
    on PostgreSQL; naive input is refused rather than guessed at.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: Paperboy stores aware UTC timestamps")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class StoredState(TypeDecorator[State]):
    """A state (a :class:`~enum.StrEnum`) stored as its value in a plain ``VARCHAR(length)``.

    The schema is the string column the migrations made (SQLAlchemy's ``Enum`` type would add a
    type or a check); a row reads back as the enum member, and a value that is none of the
    enum's is refused when written rather than stored.
    """

    impl = String
    cache_ok = True

    def __init__(self, states: type[State], length: int) -> None:
        super().__init__(length)
        self.states = states

    def process_bind_param(self, value: State | str | None, dialect: Dialect) -> str | None:
        return None if value is None else self.states(value).value

    def process_result_value(self, value: str | None, dialect: Dialect) -> State | None:
        return None if value is None else self.states(value)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
