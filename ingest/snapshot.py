"""Parse one JSON-lines record of a bulk file into a :class:`PaperRecord` (pure).

Two real formats are read, told apart per line:

* the Kaggle ``arxiv-metadata-oai-snapshot``: ``id, authors, authors_parsed, title, comments,
  journal-ref, doi, categories`` (space-separated, primary first), ``license, abstract,
  versions`` (each with an RFC 2822 ``created`` time);
* the daily listing crawl: ``id, title, summary, authors`` (list), ``categories`` (list, primary
  not guaranteed first), ``comment`` and ``listing_dates`` (sorted; the first is the
  announcement day).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from app.core.arxiv_ids import MAX_VERSION_DIGITS, InvalidArxivIdError, parse_arxiv_id
from app.core.names import collapse_each, collapse_whitespace
from ingest.records import PaperRecord, RecordError, arxiv_categories, checked

# Bounded as an identifier's version is: a longer one is a bad entry, not an int() to overflow.
_VERSION_LABEL = re.compile(rf"v([0-9]{{1,{MAX_VERSION_DIGITS}}})")
# Kaggle's free-text author list separates names with commas and a final "and".
_AUTHOR_SEPARATOR = re.compile(r",\s*|\s+and\s+")
_SEPARATOR = "\x00"


def parse_snapshot_record(raw: object) -> PaperRecord:
    """Turn one decoded JSON value into a record, or raise :class:`RecordError`."""
    if not isinstance(raw, dict):
        raise RecordError(f"expected a JSON object, got {type(raw).__name__}")
    if "listing_dates" in raw or "summary" in raw:
        return checked(_parse_listing(raw))
    return checked(_parse_kaggle(raw))


def _parse_listing(raw: Mapping[str, Any]) -> PaperRecord:
    arxiv_id = _identifier(raw)
    listing_dates = _listing_dates(raw.get("listing_dates"))
    return PaperRecord(
        arxiv_id=arxiv_id.base,
        version=arxiv_id.version,
        title=_required_text(raw, "title"),
        abstract=_optional_text(raw, "summary") or "",
        authors=_author_list(raw.get("authors")),
        categories=_category_list(raw.get("categories")),
        comment=_optional_text(raw, "comment"),
        announced_on=min(listing_dates) if listing_dates else None,
    )


def _parse_kaggle(raw: Mapping[str, Any]) -> PaperRecord:
    arxiv_id = _identifier(raw)
    categories = arxiv_categories((_optional_text(raw, "categories") or "").split())
    versions = _versions(raw.get("versions"))
    return PaperRecord(
        arxiv_id=arxiv_id.base,
        version=max((number for number, _ in versions), default=arxiv_id.version),
        title=_required_text(raw, "title"),
        abstract=_optional_text(raw, "abstract") or "",
        authors=_kaggle_authors(raw),
        categories=categories,
        primary_category=categories[0] if categories else None,
        comment=_optional_text(raw, "comments"),
        journal_ref=_optional_text(raw, "journal-ref"),
        doi=_optional_text(raw, "doi"),
        license=_optional_text(raw, "license"),
        submitted_at=versions[0][1] if versions else None,
        updated_at=versions[-1][1] if versions else None,
    )


def _identifier(raw: Mapping[str, Any]) -> Any:
    value = raw.get("id")
    if not isinstance(value, str) or not value.strip():
        raise RecordError("missing id")
    try:
        return parse_arxiv_id(value)
    except InvalidArxivIdError as error:
        raise RecordError(str(error)) from None


def _required_text(raw: Mapping[str, Any], field: str) -> str:
    text = _optional_text(raw, field)
    if not text:
        raise RecordError(f"missing {field}")
    return text


def _optional_text(raw: Mapping[str, Any], field: str) -> str | None:
    value = raw.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError(f"{field} must be a string, not {type(value).__name__}")
    return collapse_whitespace(value) or None


def _author_list(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise RecordError("authors must be a list of strings")
    try:
        return collapse_each(value)
    except TypeError:
        raise RecordError("authors must be a list of strings") from None


def _category_list(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    try:
        # Joined, the list is both checked (join refuses anything but strings) and a cache key.
        joined = _SEPARATOR.join(value) if isinstance(value, list) else None
    except TypeError:
        joined = None
    if joined is None:
        raise RecordError("categories must be a list of strings")
    return _listed_categories(joined)


# A listing's category lists repeat (a few thousand combinations over a year of cs papers).
@functools.lru_cache(maxsize=16_384)
def _listed_categories(joined: str) -> tuple[str, ...]:
    return arxiv_categories(joined.split(_SEPARATOR)) if joined else ()


# Announcement days repeat too: one per weekday.
_day = functools.lru_cache(maxsize=4096)(date.fromisoformat)


def _kaggle_authors(raw: Mapping[str, Any]) -> tuple[str, ...]:
    parsed = raw.get("authors_parsed")
    if parsed is None:
        # Without the parsed form only the free text is left (LaTeX accents and all).
        text = _optional_text(raw, "authors") or ""
        return tuple(name for name in _AUTHOR_SEPARATOR.split(text) if name)
    if not isinstance(parsed, list) or not all(_is_name_parts(item) for item in parsed):
        raise RecordError("authors_parsed must be a list of [last, first, suffix] lists")
    names = (collapse_whitespace(f"{parts[1]} {parts[0]} {parts[2]}") for parts in parsed)
    return tuple(name for name in names if name)


def _is_name_parts(item: object) -> bool:
    return (
        isinstance(item, list)
        and len(item) >= 3
        and all(isinstance(part, str) for part in item[:3])
    )


def _versions(value: object) -> list[tuple[int, datetime]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError("versions must be a list")
    parsed = [_version_entry(entry) for entry in value]
    return sorted(parsed)


def _version_entry(entry: object) -> tuple[int, datetime]:
    if not isinstance(entry, dict):
        raise RecordError("each entry of versions must be an object")
    label, created = entry.get("version"), entry.get("created")
    match = _VERSION_LABEL.fullmatch(label) if isinstance(label, str) else None
    if match is None or not isinstance(created, str):
        raise RecordError(f"bad versions entry: {entry!r}")
    try:
        return int(match[1]), parsedate_to_datetime(created)
    except (TypeError, ValueError):
        raise RecordError(f"bad date in versions: {created!r}") from None


def _listing_dates(value: object) -> list[date]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RecordError("listing_dates must be a list of YYYY-MM-DD strings")
    try:
        return [_day(item) for item in value]
    except ValueError:
        raise RecordError(f"listing_dates must be YYYY-MM-DD dates: {value!r}") from None
