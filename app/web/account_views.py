"""View models of the subscription and sign-in pages (``templates/subscriptions``; pure).

Each page's template reads exactly one of these dataclasses, built once by the route; what a
template used to work out itself (which categories are ticked, which weekday is chosen, which
of pause and resume is offered) is decided here.

The preference fields of the subscribe and preferences forms are filled from :class:`Entered`
values: a subscriber's stored preferences (topics and authors shown by label and name), a new
reader's defaults, or what a refused POST sent, so that a form sent back with its errors keeps
everything the reader typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import groupby
from zoneinfo import available_timezones

from app.core.models import Frequency, MailKind, Subscriber, SubscriberStatus
from app.services.form_choices import Suggestions
from app.services.mail_outbox import MailState
from app.services.subscriptions import MAX_NAMED, NAMED_LISTS


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
    email: str = ""  # as typed, when the form comes back with its errors


@dataclass(frozen=True, slots=True)
class CheckInboxPage:
    """The answer to a subscribe or sign-in request, the same whatever the address's state."""

    email: str
    # Names the mail's status page (``/mail/{ticket}``).
    ticket: str
    sign_in: bool = False


@dataclass(frozen=True, slots=True)
class FeedbackPage:
    """The page a digest item's feedback link opens: the paper, and both choices as buttons.

    Opening it changes nothing (mail scanners open every link): each choice is a button that
    POSTs it with the link's token.
    """

    token: str
    csrf: str
    arxiv_id: str
    title: str | None  # None when the paper is no longer stored


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
    subscriber: Subscriber, form: PreferenceFields, token: str, unsubscribe_url: str
) -> PreferencesPage:
    return PreferencesPage(
        email=subscriber.email,
        status=subscriber.status,
        token=token,
        form=form,
        unsubscribe_url=unsubscribe_url,
        can_pause=subscriber.status is SubscriberStatus.ACTIVE,
        can_resume=subscriber.status is SubscriberStatus.PAUSED,
    )


@dataclass(frozen=True, slots=True)
class SigninPage:
    csrf: str
    orcid_sign_in: bool = False  # "Sign in with ORCID" is offered beside the mailed link


@dataclass(frozen=True, slots=True)
class OrcidPage:
    """How a sign-in with ORCID ended, and where to go next."""

    title: str
    text: str
    next_href: str
    next_label: str


@dataclass(frozen=True, slots=True)
class UnsubscribePage:
    csrf: str
    token: str


@dataclass(frozen=True, slots=True)
class PrivacyPage:
    """The privacy page says the same to everyone."""


# The preference fields of the subscribe and preferences forms.
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FREQUENCY_NAMES = {Frequency.DAILY: "Daily", Frequency.WEEKLY: "Weekly"}
DEFAULT_DELIVERY_HOUR = 7
DEFAULT_TIME_ZONE = "UTC"
# "localtime" is the host's own zone file and "Factory" means "zone not set": neither is a
# place a reader lives in.
_NOT_PLACES = {"localtime", "Factory"}
_OTHER_ZONES = "Other"
BLANK_NAME_SLOTS = 3  # empty inputs under a list of topics or authors, to add to it


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a checkbox list or a select: what it sends, what it says, whether set."""

    value: str
    text: str
    chosen: bool


@dataclass(frozen=True, slots=True)
class ZoneGroup:
    """The time zones of one region (``Europe``), for an ``<optgroup>``."""

    region: str
    zones: list[Choice]


@dataclass(frozen=True, slots=True)
class Entered:
    """The form's values as text, whatever filled them in."""

    ticked: Sequence[str]  # categories whose box is ticked
    other_categories: str
    interests: str = ""
    exclusions: str = ""
    frequency: str = Frequency.DAILY
    weekday: str = "0"
    delivery_hour: str = str(DEFAULT_DELIVERY_HOUR)
    time_zone: str = DEFAULT_TIME_ZONE
    max_items: str = "10"
    send_empty: bool = False
    named: Mapping[str, Sequence[str]] = field(default_factory=dict)  # NAMED_LISTS -> names


@dataclass(frozen=True, slots=True)
class PreferenceFields:
    """The preference fields of the subscribe and preferences forms, filled in."""

    categories: list[Choice]
    other_categories: str
    frequencies: list[Choice]
    weekdays: list[Choice]
    interests: str
    exclusions: str
    delivery_hour: str
    time_zones: list[ZoneGroup]
    # True while the reader has not chosen a zone: the browser's own may be preselected.
    guess_time_zone: bool
    max_items: str
    send_empty: bool
    named: dict[str, list[str]]  # each list of NAMED_LISTS, with blank inputs to add to it
    suggestions: Suggestions
    errors: dict[str, str]


def form_fields(
    offered: Sequence[str],
    entered: Entered,
    suggestions: Suggestions,
    errors: Mapping[str, str] | None = None,
    *,
    guess_time_zone: bool = False,
) -> PreferenceFields:
    """The form showing ``entered``; ``offered`` are the categories the site follows.

    ``guess_time_zone`` for a new reader's blank form only: a stored or sent zone is a choice.
    """
    return PreferenceFields(
        categories=[Choice(name, name, name in entered.ticked) for name in offered],
        other_categories=entered.other_categories,
        frequencies=[
            Choice(value, text, value == entered.frequency)
            for value, text in FREQUENCY_NAMES.items()
        ],
        weekdays=[
            Choice(str(day), name, str(day) == entered.weekday) for day, name in enumerate(WEEKDAYS)
        ],
        interests=entered.interests,
        exclusions=entered.exclusions,
        delivery_hour=entered.delivery_hour,
        time_zones=time_zone_groups(entered.time_zone),
        guess_time_zone=guess_time_zone,
        max_items=entered.max_items,
        send_empty=entered.send_empty,
        named={name: _with_blanks(entered.named.get(name, ())) for name in NAMED_LISTS},
        suggestions=suggestions,
        errors=dict(errors or {}),
    )


def _with_blanks(names: Sequence[str]) -> list[str]:
    return [*names, *[""] * BLANK_NAME_SLOTS]


def blank(offered: Sequence[str], max_items: int) -> Entered:
    """What a new reader starts from: every category, daily, at seven in UTC."""
    return Entered(ticked=list(offered), other_categories="", max_items=str(max_items))


def stored(
    offered: Sequence[str],
    subscriber: Subscriber,
    topic_labels: Mapping[int, str],
    author_names: Mapping[str, str],
) -> Entered:
    """A subscriber's preferences; topics by latest label and authors by name where known."""
    chosen = subscriber.categories
    topics = {
        name: [topic_labels.get(t, f"#{t}") for t in getattr(subscriber, name)]
        for name in NAMED_LISTS[:2]
    }
    authors = {
        name: [author_names.get(k, k) for k in getattr(subscriber, name)]
        for name in NAMED_LISTS[2:]
    }
    return Entered(
        # No category chosen means all of them: every box starts ticked.
        ticked=list(chosen) or list(offered),
        other_categories=", ".join(name for name in chosen if name not in offered),
        interests=subscriber.interests,
        exclusions=subscriber.exclusions,
        frequency=subscriber.frequency,
        weekday=str(subscriber.weekday),
        delivery_hour=str(subscriber.delivery_hour),
        time_zone=subscriber.time_zone,
        max_items=str(subscriber.max_items),
        send_empty=subscriber.send_empty,
        named={**topics, **authors},
    )


def posted(
    fields: Mapping[str, str], ticked: Sequence[str], named: Mapping[str, Sequence[str]]
) -> Entered:
    """What a POST sent, to show again beside its errors."""
    return Entered(
        ticked=ticked,
        other_categories=fields.get("other_categories", ""),
        interests=fields.get("interests", ""),
        exclusions=fields.get("exclusions", ""),
        frequency=fields.get("frequency", ""),
        weekday=fields.get("weekday", ""),
        delivery_hour=fields.get("delivery_hour", ""),
        time_zone=fields.get("time_zone", ""),
        max_items=fields.get("max_items", ""),
        send_empty="send_empty" in fields,
        named={name: _typed(named.get(name, ())) for name in NAMED_LISTS},
    )


# The fields the preferences page always sends (text boxes, menus): one left out of a POST
# keeps what is stored, never clears it.
ALWAYS_SENT = (
    "interests",
    "exclusions",
    "frequency",
    "weekday",
    "delivery_hour",
    "time_zone",
    "max_items",
)


def with_stored(
    fields: Mapping[str, str], lists: Mapping[str, Sequence[str]], kept: Entered
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """A POST's fields and lists, with what it left out taken from ``kept`` (the stored
    preferences as the page shows them): a named list with no box sent, the categories when
    neither a box nor the other-categories field came, any field of :data:`ALWAYS_SENT`."""
    filled = dict(fields)
    for name in ALWAYS_SENT:
        filled.setdefault(name, getattr(kept, name))
    filled_lists = {name: list(values) for name, values in lists.items()}
    for name in NAMED_LISTS:
        if not filled_lists.get(name):
            filled_lists[name] = list(kept.named.get(name, ()))
    if not filled_lists.get("categories") and "other_categories" not in fields:
        filled_lists["categories"] = list(kept.ticked)
        filled["other_categories"] = kept.other_categories
    return filled, filled_lists


def _typed(names: Sequence[str]) -> list[str]:
    # At most as many as a list may hold: a POST of thousands is not echoed back whole.
    return [text for text in names if text.strip()][:MAX_NAMED]


def time_zone_groups(chosen: str) -> list[ZoneGroup]:
    """Every IANA zone by region, ``chosen`` selected (and listed even if it is not a zone)."""
    names = _zone_names() if chosen in _zone_names() else (*_zone_names(), chosen)
    return [
        ZoneGroup(region, [Choice(name, _place(name), name == chosen) for name in zones])
        for region, zones in groupby(sorted(names, key=_region_order), key=_region)
    ]


def _place(name: str) -> str:
    """A zone as the list shows it: ``America/New_York`` is "America/New York"."""
    return name.replace("_", " ")


@cache
def _zone_names() -> tuple[str, ...]:
    return tuple(sorted(available_timezones() - _NOT_PLACES))


def _region(name: str) -> str:
    if name == DEFAULT_TIME_ZONE:
        return name
    return name.split("/", 1)[0] if "/" in name else _OTHER_ZONES


def _region_order(name: str) -> tuple[bool, bool, str, str]:
    # UTC first, for the many readers who choose it; regions alphabetically, "Other" last.
    region = _region(name)
    return (region != DEFAULT_TIME_ZONE, region == _OTHER_ZONES, region, name)


@dataclass(frozen=True, slots=True)
class MailStatusPage:
    """Where a confirmation or sign-in mail stands (``/mail/{ticket}``), and where to ask again.

    ``state`` is "sent", "sending", "waiting" or "given up" (``digest.mail.outbox.Progress``);
    ``retry_at`` (UTC, HH:MM) and ``attempt`` say when a waiting mail is tried next, ``error`` the
    server's words. Nothing here tells whether the address was subscribed already.
    """

    state: str
    attempt: int
    retry_at: str
    error: str
    ask_again: str  # the form that asks for the mail again


def mail_status_page(state: MailState) -> MailStatusPage:
    ask_again = "/signin" if state.kind is MailKind.SIGN_IN else "/subscribe"
    retry_at = "" if state.next_attempt_at is None else f"{state.next_attempt_at:%H:%M} UTC"
    return MailStatusPage(
        state=state.progress.value,
        attempt=state.attempts + 1,
        retry_at=retry_at,
        error=state.error or "",
        ask_again=ask_again,
    )
