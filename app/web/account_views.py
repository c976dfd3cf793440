"""View models of the subscription and sign-in pages (``templates/subscriptions``; pure).

Each page's template reads exactly one of these dataclasses, built once by the route; what a
template used to work out itself (which categories are ticked, which weekday is chosen, which
of pause and resume is offered) is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.core.models import Frequency, Subscriber, SubscriberStatus

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FREQUENCY_NAMES = {Frequency.DAILY: "Daily", Frequency.WEEKLY: "Weekly"}
DEFAULT_DELIVERY_HOUR = 7


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a checkbox list or a select: what it sends, what it says, whether set."""

    value: str
    text: str
    chosen: bool


@dataclass(frozen=True, slots=True)
class PreferenceFields:
    """The preference fields of the subscribe and preferences forms, filled in."""

    categories: list[Choice]
    frequencies: list[Choice]
    weekdays: list[Choice]
    interests: str
    exclusions: str
    delivery_hour: int
    time_zone: str
    max_items: int
    send_empty: bool
    followed_authors: str
    muted_authors: str
    followed_topics: str
    muted_topics: str


def preference_fields(offered: Sequence[str], subscriber: Subscriber) -> PreferenceFields:
    """The form as a subscriber left it; ``offered`` are the site's categories."""
    return PreferenceFields(
        categories=_categories(offered, subscriber.categories),
        frequencies=_frequencies(subscriber.frequency),
        weekdays=_weekdays(subscriber.weekday),
        interests=subscriber.interests,
        exclusions=subscriber.exclusions,
        delivery_hour=subscriber.delivery_hour,
        time_zone=subscriber.time_zone,
        max_items=subscriber.max_items,
        send_empty=subscriber.send_empty,
        followed_authors="\n".join(subscriber.followed_authors),
        muted_authors="\n".join(subscriber.muted_authors),
        followed_topics=", ".join(str(topic) for topic in subscriber.followed_topics),
        muted_topics=", ".join(str(topic) for topic in subscriber.muted_topics),
    )


def blank_fields(offered: Sequence[str], max_items: int) -> PreferenceFields:
    """The form a new reader starts from: every category, daily, at seven in UTC."""
    return PreferenceFields(
        categories=_categories(offered, []),
        frequencies=_frequencies(Frequency.DAILY),
        weekdays=_weekdays(0),
        interests="",
        exclusions="",
        delivery_hour=DEFAULT_DELIVERY_HOUR,
        time_zone="UTC",
        max_items=max_items,
        send_empty=False,
        followed_authors="",
        muted_authors="",
        followed_topics="",
        muted_topics="",
    )


def _categories(offered: Sequence[str], chosen: Sequence[str]) -> list[Choice]:
    # No category chosen means all of them: every box starts ticked.
    return [Choice(name, name, not chosen or name in chosen) for name in offered]


def _frequencies(chosen: Frequency) -> list[Choice]:
    return [Choice(value, text, value == chosen) for value, text in FREQUENCY_NAMES.items()]


def _weekdays(chosen: int) -> list[Choice]:
    return [Choice(str(day), name, day == chosen) for day, name in enumerate(WEEKDAYS)]


@dataclass(frozen=True, slots=True)
class MessagePage:
    """A page that only says something: what was done, or why nothing was."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class ActionPage:
    """What a mailed link offers, and the one button (a POST) that does it."""

    title: str
    text: str
    button: str
    action: str
    token: str
    csrf: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SubscribePage:
    csrf: str
    form: PreferenceFields


@dataclass(frozen=True, slots=True)
class CheckInboxPage:
    email: str


@dataclass(frozen=True, slots=True)
class PreferencesPage:
    email: str
    status: SubscriberStatus
    token: str
    form: PreferenceFields
    unsubscribe_url: str
    can_pause: bool
    can_resume: bool


def preferences_page(
    subscriber: Subscriber, offered: Sequence[str], token: str, unsubscribe_url: str
) -> PreferencesPage:
    return PreferencesPage(
        email=subscriber.email,
        status=subscriber.status,
        token=token,
        form=preference_fields(offered, subscriber),
        unsubscribe_url=unsubscribe_url,
        can_pause=subscriber.status is SubscriberStatus.ACTIVE,
        can_resume=subscriber.status is SubscriberStatus.PAUSED,
    )


@dataclass(frozen=True, slots=True)
class SigninPage:
    csrf: str


@dataclass(frozen=True, slots=True)
class UnsubscribePage:
    csrf: str
    token: str


@dataclass(frozen=True, slots=True)
class PrivacyPage:
    """The privacy page says the same to everyone."""
