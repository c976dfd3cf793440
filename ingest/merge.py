"""Decide what an incoming record does to the stored paper (pure: no database here).

* No stored paper: the record is **new**.
* A newer version, or (where a source has no version) changed metadata: **update**. Fields the
  record lacks (``None``) keep their stored value, so a source with less detail never erases
  what a richer one stored; the announcement date only ever moves earlier.
* An older version is stale: **unchanged**, except that it may still correct the
  announcement date to an earlier day.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date

from ingest.records import PaperRecord


class Action(enum.Enum):
    NEW = "new"
    UPDATE = "update"
    EARLIER_ANNOUNCEMENT = "earlier_announcement"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class StoredState:
    """What the store needs to know of a stored paper to decide."""

    version: int | None
    content_hash: str
    announced_on: date | None


def decide(stored: StoredState | None, record: PaperRecord, record_hash: str) -> Action:
    if stored is None:
        return Action.NEW
    if _is_older(record.version, stored.version):
        return _announcement_only(stored, record)
    if _is_newer(record.version, stored.version) or record_hash != stored.content_hash:
        return Action.UPDATE
    return _announcement_only(stored, record)


def state_after(
    stored: StoredState | None, record: PaperRecord, record_hash: str, action: Action
) -> StoredState:
    """The stored state once ``action`` (what :func:`decide` returned) has been applied."""
    if stored is None or action is Action.NEW:
        return StoredState(record.version, record_hash, record.announced_on)
    announced_on = _earliest(stored.announced_on, record.announced_on)
    if action is Action.UPDATE:
        version = record.version if record.version is not None else stored.version
        return StoredState(version, record_hash, announced_on)
    return StoredState(stored.version, stored.content_hash, announced_on)


def _earliest(first: date | None, second: date | None) -> date | None:
    if first is None or second is None:
        return first or second
    return min(first, second)


def _announcement_only(stored: StoredState, record: PaperRecord) -> Action:
    if record.announced_on is not None and (
        stored.announced_on is None or record.announced_on < stored.announced_on
    ):
        return Action.EARLIER_ANNOUNCEMENT
    return Action.UNCHANGED


def _is_newer(incoming: int | None, stored: int | None) -> bool:
    return incoming is not None and (stored is None or incoming > stored)


def _is_older(incoming: int | None, stored: int | None) -> bool:
    return incoming is not None and stored is not None and incoming < stored
