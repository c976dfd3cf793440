"""The record every source produces: one paper's metadata, normalised, ready to store.

A record is a named tuple rather than a dataclass: a bulk import sends hundreds of thousands of
them between processes, and a tuple pickles about four times faster than a slotted dataclass.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from typing import NamedTuple

# arXiv taxonomy: "cs.AI", "math.AG", "hep-th", "cond-mat.str-el". Listing pages mix in ACM and
# MSC classes ("I.2.7", "68T50"), which are not arXiv categories and are dropped.
_ARXIV_CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?")


MAX_CATEGORY_LENGTH = 40  # the column's width; real ones are at most 20
_RECORD, _UNIT = "\x1e", "\x1f"


class RecordError(ValueError):
    """A source record that cannot become a paper; the message says why."""


class PaperRecord(NamedTuple):
    arxiv_id: str
    version: int | None
    title: str
    abstract: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    primary_category: str | None = None
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    license: str | None = None
    submitted_at: datetime | None = None
    updated_at: datetime | None = None
    announced_on: date | None = None

    def content_hash(self) -> str:
        """A digest of the metadata (not the announcement date, which is merged separately)."""
        # Fields joined by ASCII separators, which never occur in collapsed metadata text; an
        # absent field is an empty string. (Written out: this runs for every record of a bulk
        # import, and the generic str() of each field cost a third of preparing one.)
        content = _RECORD.join((
            "" if self.version is None else str(self.version), self.title, self.abstract,
            _UNIT.join(self.authors), _UNIT.join(self.categories), self.primary_category or "",
            self.comment or "", self.journal_ref or "", self.doi or "", self.license or "",
            "" if self.submitted_at is None else str(self.submitted_at),
            "" if self.updated_at is None else str(self.updated_at),
        ))  # fmt: skip
        return hashlib.blake2b(content.encode(), digest_size=16).hexdigest()


def arxiv_categories(candidates: list[str]) -> tuple[str, ...]:
    """Keep the arXiv categories among ``candidates``, in order, without repeats."""
    kept = (name.strip() for name in candidates)
    return tuple(
        dict.fromkeys(
            name
            for name in kept
            if len(name) <= MAX_CATEGORY_LENGTH and _ARXIV_CATEGORY.fullmatch(name)
        )
    )
