"""A subscriber's preferences as a form gives them: checked and turned into plain values (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.models import Frequency
from app.core.names import author_key

FREQUENCIES = tuple(Frequency)
MAX_TEXT = 2000
# The stored column's width; IANA names are at most about 30 characters.
MAX_TIME_ZONE = 64
# C0 and C1 controls but the line breaks and tabs that separate phrases, and lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
MAX_ITEMS_LIMIT = 50
_ARXIV_CATEGORY = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?$")


class BadPreferencesError(ValueError):
    """A preference that cannot be taken; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Preferences:
    categories: list[str]
    interests: str
    exclusions: str
    frequency: Frequency
    weekday: int
    delivery_hour: int
    time_zone: str
    max_items: int
    send_empty: bool = False
    # Topic ids and author keys (``ada-lovelace``), as the site's topic and author pages name them.
    followed_topics: list[int] = field(default_factory=list)
    muted_topics: list[int] = field(default_factory=list)
    followed_authors: list[str] = field(default_factory=list)
    muted_authors: list[str] = field(default_factory=list)


def parse_preferences(form: Mapping[str, str], categories: Sequence[str]) -> Preferences:
    """Read the form fields; ``categories`` is a comma list checked against arXiv's pattern."""
    return Preferences(
        categories=_categories(categories),
        interests=_text(form.get("interests", ""), "interests"),
        exclusions=_text(form.get("exclusions", ""), "exclusions"),
        frequency=_frequency(form.get("frequency", Frequency.DAILY)),
        weekday=_number(form.get("weekday", "0"), 0, 6, "weekday"),
        delivery_hour=_number(form.get("delivery_hour", "7"), 0, 23, "delivery hour"),
        time_zone=_time_zone(form.get("time_zone", "UTC")),
        max_items=_number(form.get("max_items", "10"), 1, MAX_ITEMS_LIMIT, "maximum items"),
        send_empty=form.get("send_empty", "") in ("on", "true", "1"),
        followed_topics=_topics(form.get("followed_topics", "")),
        muted_topics=_topics(form.get("muted_topics", "")),
        followed_authors=_authors(form.get("followed_authors", "")),
        muted_authors=_authors(form.get("muted_authors", "")),
    )


def phrases(text: str) -> list[str]:
    """Interests or exclusions written one per line (or separated by commas/semicolons)."""
    return [part.strip() for part in re.split(r"[\n,;]+", text) if part.strip()]


def _topics(text: str) -> list[int]:
    try:
        return sorted({int(part) for part in phrases(text)})
    except ValueError:
        raise BadPreferencesError("topics are given by their numbers, like 12, 40") from None


def _authors(text: str) -> list[str]:
    names = phrases(_text(text, "authors"))
    return sorted({author_key(name) for name in names if author_key(name)})


def _categories(values: Sequence[str]) -> list[str]:
    chosen = sorted({value.strip() for value in values if value.strip()})
    for category in chosen:
        if not _ARXIV_CATEGORY.match(category):
            raise BadPreferencesError(f"unknown arXiv category: {category[:40]!r}")
    return chosen


def _text(value: str, name: str) -> str:
    if len(value) > MAX_TEXT:
        raise BadPreferencesError(f"{name}: at most {MAX_TEXT} characters")
    # Control characters have no place in a phrase; PostgreSQL text cannot even hold a NUL.
    return _CONTROL.sub("", value).strip()


def _frequency(value: str) -> Frequency:
    if value not in FREQUENCIES:
        raise BadPreferencesError(f"frequency must be one of {', '.join(FREQUENCIES)}")
    return Frequency(value)


def _number(value: str, low: int, high: int, name: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise BadPreferencesError(f"{name} must be a whole number") from None
    if not low <= number <= high:
        raise BadPreferencesError(f"{name} must be between {low} and {high}")
    return number


def _time_zone(value: str) -> str:
    try:
        if len(value) > MAX_TIME_ZONE:
            raise ValueError(value)
        ZoneInfo(value)
    # OSError: the name is looked up as a file, and a name can be too long for one.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise BadPreferencesError(f"unknown time zone: {value[:60]!r}") from None
    return value
