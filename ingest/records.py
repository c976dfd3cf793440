"""The record every source produces: one paper's metadata, normalised, ready to store.

A record is a named tuple rather than a dataclass: a bulk import sends hundreds of thousands of
them between processes, and a tuple pickles about four times faster than a slotted dataclass.

Every source passes its records through :func:`checked`, the one rule for what may be stored:
no control characters (they would be written raw into pages and feeds) and every field within
its :class:`Limits` (an oversized record is rejected with its reason, never served as a page
of megabytes).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple, Never

from app.core.names import collapse_whitespace
from app.core.tex import decode_tex_accents

# arXiv taxonomy: "cs.AI", "math.AG", "hep-th", "cond-mat.str-el". Listing pages mix in ACM and
# MSC classes ("I.2.7", "68T50"), which are not arXiv categories and are dropped.
_ARXIV_CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?")


MAX_CATEGORY_LENGTH = 40  # the column's width; real ones are at most 20
_RECORD, _UNIT = "\x1e", "\x1f"


@dataclass(frozen=True)
class Limits:
    """The largest field a record may hold, in characters or items.

    Several times the largest of the 74,728 papers of a year of real listings (title 226
    characters, abstract 3,488, comment 431, 3,303 authors, 8 categories); the largest author
    lists on arXiv, of particle-physics collaborations, hold about 5,200 names.
    """

    title: int = 1_000
    abstract: int = 10_000
    comment: int = 5_000
    reference: int = 1_000  # each of journal_ref, doi and license
    authors: int = 10_000
    author_text: int = 300_000  # every name of the list together
    categories: int = 30


LIMITS = Limits()
# Characters no stored text keeps: C0 controls but the whitespace ones, DEL, C1 controls but
# NEL, and lone surrogates (a JSON decoder lets "\ud800" through; no database can store it).
# The whitespace controls (tab, line breaks, \x1c-\x1f, NEL) are the sources' to collapse into
# spaces, as every source collapses whitespace.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ud800-\udfff]")
# Those of them in ASCII text (nine records in ten): a substring search for each is faster
# than the regular expression, and this check runs for every record of a bulk import.
_ASCII_CONTROLS = tuple(chr(code) for code in (*range(0x09), *range(0x0E, 0x1C), 0x7F))


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
        content = _RECORD.join(
            (
                "" if self.version is None else str(self.version),
                self.title,
                self.abstract,
                _UNIT.join(self.authors),
                _UNIT.join(self.categories),
                self.primary_category or "",
                self.comment or "",
                self.journal_ref or "",
                self.doi or "",
                self.license or "",
                "" if self.submitted_at is None else str(self.submitted_at),
                "" if self.updated_at is None else str(self.updated_at),
            )
        )
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


def checked(record: PaperRecord) -> PaperRecord:
    """The record as stored: control characters removed, author names' TeX accents decoded
    (``P\\'erez`` is "Pérez"), every field within :data:`LIMITS`.

    Raises :class:`RecordError` saying which field is over its limit.
    """
    if _holds_controls(record):
        record = _without_controls(record)
    if _holds_tex(record.authors):
        record = record._replace(authors=_decoded_names(record.authors))
    if not _within_limits(record):
        _reject_oversized(record)
    return record


def clean_text(text: str) -> str:
    """``text`` without control characters, whitespace collapsed."""
    return collapse_whitespace(_CONTROL.sub("", text))


def _holds_controls(record: PaperRecord) -> bool:
    # One search over every text field joined: a call per field cost twice as much.
    joined = " ".join(
        (
            record.title,
            record.abstract,
            *record.authors,
            record.comment or "",
            record.journal_ref or "",
            record.doi or "",
            record.license or "",
        )
    )
    if not joined.isascii():
        return _CONTROL.search(joined) is not None
    for control in _ASCII_CONTROLS:  # noqa: SIM110 (any() over a generator is slower)
        if control in joined:
            return True
    return False


def _holds_tex(names: tuple[str, ...]) -> bool:
    # One search over the joined list: this runs for every record of a bulk import.
    joined = "".join(names)
    return "\\" in joined or "{" in joined


def _decoded_names(names: tuple[str, ...]) -> tuple[str, ...]:
    # Only titles and abstracts keep TeX (their mathematics); a name's is its letters.
    decoded = (collapse_whitespace(decode_tex_accents(name)) for name in names)
    return tuple(filter(None, decoded))


def _without_controls(record: PaperRecord) -> PaperRecord:
    title = clean_text(record.title)
    if not title:
        raise RecordError("missing title")
    names = (clean_text(name) for name in record.authors)
    return record._replace(
        title=title,
        abstract=clean_text(record.abstract),
        authors=tuple(filter(None, names)),
        comment=_clean_optional(record.comment),
        journal_ref=_clean_optional(record.journal_ref),
        doi=_clean_optional(record.doi),
        license=_clean_optional(record.license),
    )


def _clean_optional(text: str | None) -> str | None:
    return clean_text(text) or None if text else None


def _within_limits(record: PaperRecord) -> bool:
    # :func:`_sizes` in one expression, for speed: it runs for every record of a bulk import.
    return (
        len(record.title) <= LIMITS.title
        and len(record.abstract) <= LIMITS.abstract
        and len(record.comment or "") <= LIMITS.comment
        and len(record.journal_ref or "") <= LIMITS.reference
        and len(record.doi or "") <= LIMITS.reference
        and len(record.license or "") <= LIMITS.reference
        and len(record.authors) <= LIMITS.authors
        and sum(map(len, record.authors)) <= LIMITS.author_text
        and len(record.categories) <= LIMITS.categories
        and len(record.primary_category or "") <= MAX_CATEGORY_LENGTH
    )


def _reject_oversized(record: PaperRecord) -> Never:
    for field, size, limit, unit in _sizes(record):
        if size > limit:
            raise RecordError(f"{field}: {size:,} {unit}, over the limit of {limit:,}")
    raise AssertionError("unreachable: _within_limits found a field over its limit")


def _sizes(record: PaperRecord) -> list[tuple[str, int, int, str]]:
    """Each limited field: its name, its size, its limit and the unit of both."""
    return [
        ("title", len(record.title), LIMITS.title, "characters"),
        ("abstract", len(record.abstract), LIMITS.abstract, "characters"),
        ("comment", len(record.comment or ""), LIMITS.comment, "characters"),
        ("journal ref", len(record.journal_ref or ""), LIMITS.reference, "characters"),
        ("doi", len(record.doi or ""), LIMITS.reference, "characters"),
        ("license", len(record.license or ""), LIMITS.reference, "characters"),
        ("authors", len(record.authors), LIMITS.authors, "names"),
        ("authors", sum(map(len, record.authors)), LIMITS.author_text, "characters of names"),
        ("categories", len(record.categories), LIMITS.categories, "categories"),
        ("primary category", len(record.primary_category or ""), MAX_CATEGORY_LENGTH, "characters"),
    ]
