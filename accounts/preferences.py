"""A subscriber's preferences as a form gives them: checked and turned into plain values (pure).

Every field is checked, and all the problems are raised together, each under its field's name,
so the form can show each one beside its field. Topics and authors are named as readers know
them (a topic's label, an author's name); the caller looks the names up first and passes what
it found in :class:`Named`, so that this module stays free of I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.models import Frequency
from app.core.names import author_key, collapse_whitespace
from app.core.refusals import BadInput

FREQUENCIES = tuple(Frequency)
MAX_TEXT = 2000
# The stored column's width; IANA names are at most about 30 characters.
MAX_TIME_ZONE = 64
# C0 and C1 controls but the line breaks and tabs that separate phrases, and lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
MAX_ITEMS_LIMIT = 50
MAX_NAMED = 100  # topics or authors in one list: more is not a reader's choice
_ARXIV_CATEGORY = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?$")
_TOPIC_NUMBER = re.compile(r"^#?\s*(\d{1,9})$")
T = TypeVar("T")
NAMED_LISTS = ("followed_topics", "muted_topics", "followed_authors", "muted_authors")


class BadPreferencesError(BadInput, ValueError):
    """Preferences that cannot be taken: what is wrong with each field, by the field's name."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = dict(errors)


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


@dataclass(frozen=True, slots=True)
class Named:
    """The topics and authors a form names, and which of those names the site knows.

    ``lists`` holds the names as typed, by field (:data:`NAMED_LISTS`); ``topic_ids`` maps
    :func:`topic_name` of each known name to its topic, ``author_keys`` are the known authors.
    """

    lists: Mapping[str, Sequence[str]] = field(default_factory=dict)
    topic_ids: Mapping[str, int] = field(default_factory=dict)
    author_keys: Collection[str] = frozenset()

    def asked_topics(self) -> set[str]:
        return {topic_name(text) for name in NAMED_LISTS[:2] for text in self._typed(name)}

    def asked_authors(self) -> set[str]:
        return {author_key(text) for name in NAMED_LISTS[2:] for text in self._typed(name)}

    def _typed(self, name: str) -> list[str]:
        return [text for text in self.lists.get(name, ()) if text.strip()][:MAX_NAMED]


def topic_name(text: str) -> str:
    """The form a topic is looked up by: ``#12`` for a number, else its label, case folded."""
    number = _TOPIC_NUMBER.match(text.strip())
    return f"#{int(number.group(1))}" if number else collapse_whitespace(text).casefold()


def parse_preferences(
    form: Mapping[str, str], categories: Sequence[str], named: Named | None = None
) -> Preferences:
    """Read the form's fields; ``categories`` are the ticked ones (``other_categories`` adds).

    Raises :class:`BadPreferencesError` naming every field that cannot be taken, in the
    order the forms show them.
    """
    named = named or Named()
    read = _Reader()
    preferences = Preferences(
        categories=read("other_categories", lambda: _categories([*categories, *_others(form)]), []),
        interests=read("interests", lambda: _text(form.get("interests", ""), "interests"), ""),
        exclusions=read("exclusions", lambda: _text(form.get("exclusions", ""), "exclusions"), ""),
        followed_topics=read("followed_topics", lambda: _topics(named, "followed_topics"), []),
        muted_topics=read("muted_topics", lambda: _topics(named, "muted_topics"), []),
        followed_authors=read("followed_authors", lambda: _authors(named, "followed_authors"), []),
        muted_authors=read("muted_authors", lambda: _authors(named, "muted_authors"), []),
        frequency=read(
            "frequency", lambda: _frequency(form.get("frequency", "daily")), Frequency.DAILY
        ),
        weekday=read("weekday", lambda: _number(form.get("weekday", "0"), 0, 6, "weekday"), 0),
        delivery_hour=read("delivery_hour", lambda: _hour(form.get("delivery_hour", "7")), 7),
        time_zone=read("time_zone", lambda: _time_zone(form.get("time_zone", "UTC")), "UTC"),
        max_items=read("max_items", lambda: _max_items(form.get("max_items", "10")), 10),
        send_empty=form.get("send_empty", "") in ("on", "true", "1"),
    )
    if read.errors:
        raise BadPreferencesError(read.errors)
    return preferences


class _Reader:
    """Reads one field after another, keeping each field's problem instead of stopping."""

    def __init__(self) -> None:
        self.errors: dict[str, str] = {}

    def __call__(self, name: str, parse: Callable[[], T], fallback: T) -> T:
        try:
            return parse()
        except ValueError as error:
            self.errors[name] = str(error)
            return fallback


def phrases(text: str) -> list[str]:
    """Interests or exclusions written one per line (or separated by commas/semicolons)."""
    return [part.strip() for part in re.split(r"[\n,;]+", text) if part.strip()]


def _others(form: Mapping[str, str]) -> list[str]:
    """Categories typed in the free field, separated by commas or spaces."""
    return re.split(r"[\s,;]+", form.get("other_categories", "")[:MAX_TEXT])


def _topics(named: Named, list_name: str) -> list[int]:
    typed = named.lists.get(list_name, ())
    found = {text: named.topic_ids.get(topic_name(text)) for text in _listed(typed, "topics")}
    unknown = [text for text, topic in found.items() if topic is None]
    if unknown:
        raise ValueError(f"no topic is called {_quoted(unknown)}; pick one from the list")
    return sorted({topic for topic in found.values() if topic is not None})


def _authors(named: Named, list_name: str) -> list[str]:
    typed = named.lists.get(list_name, ())
    keys = {text: author_key(text) for text in _listed(typed, "authors")}
    unknown = [text for text, key in keys.items() if key not in named.author_keys]
    if unknown:
        raise ValueError(f"no author on Paperboy is called {_quoted(unknown)}")
    return sorted(set(keys.values()))


def _listed(typed: Sequence[str], what: str) -> list[str]:
    names = [_text(text, what) for text in typed if text.strip()]
    if len(names) > MAX_NAMED:
        raise ValueError(f"at most {MAX_NAMED} {what}")
    return names


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(name[:60]) for name in names[:5])


def _categories(values: Sequence[str]) -> list[str]:
    chosen = sorted({value.strip() for value in values if value.strip()})
    for category in chosen:
        if not _ARXIV_CATEGORY.match(category):
            raise ValueError(f"unknown arXiv category: {category[:40]!r} (write them like math.CO)")
    return chosen


def _text(value: str, name: str) -> str:
    if len(value) > MAX_TEXT:
        raise ValueError(f"{name}: at most {MAX_TEXT} characters")
    # Control characters have no place in a phrase; PostgreSQL text cannot even hold a NUL.
    return _CONTROL.sub("", value).strip()


def _frequency(value: str) -> Frequency:
    if value not in FREQUENCIES:
        raise ValueError(f"frequency must be one of {', '.join(FREQUENCIES)}")
    return Frequency(value)


def _hour(value: str) -> int:
    return _number(value, 0, 23, "delivery hour")


def _max_items(value: str) -> int:
    return _number(value, 1, MAX_ITEMS_LIMIT, "maximum items")


def _number(value: str, low: int, high: int, name: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{name} must be a whole number") from None
    if not low <= number <= high:
        raise ValueError(f"{name} must be between {low} and {high}")
    return number


def _time_zone(value: str) -> str:
    try:
        if len(value) > MAX_TIME_ZONE:
            raise ValueError(value)
        ZoneInfo(value)
    # OSError: the name is looked up as a file, and a name can be too long for one.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"unknown time zone: {value[:60]!r}; pick one from the list") from None
    return value
