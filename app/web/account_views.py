"""View models of the subscription and sign-in pages (``templates/subscriptions``; pure).

Each page's template reads exactly one of these dataclasses, built once by the route; what a
template used to work out itself (which categories are ticked, which weekday is chosen, which
of pause and resume is offered) is decided here; the preference fields themselves in
:mod:`app.web.preference_form`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.models import Subscriber, SubscriberStatus
from app.web.preference_form import PreferenceFields


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
    email: str


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


@dataclass(frozen=True, slots=True)
class UnsubscribePage:
    csrf: str
    token: str


@dataclass(frozen=True, slots=True)
class PrivacyPage:
    """The privacy page says the same to everyone."""
