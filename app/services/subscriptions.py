"""What the web's subscribe, preferences, sign-in and vote forms read and refuse: the reader a
preferences or unsubscribe link is for, the links and lifetimes a page names, an address and
preferences as posted, the named lists a form offers, and the refusals a request meets (too
many, a bad address, bad preferences, an unknown paper).

The use cases that store them are in :mod:`app.services.accounts`; these are the values,
reads and parsers a form needs before it calls one.
"""

from __future__ import annotations

from datetime import datetime

from accounts import links
from accounts.addresses import BadAddressError, parse_address
from accounts.preferences import (
    MAX_NAMED,
    NAMED_LISTS,
    BadPreferencesError,
    Named,
    parse_preferences,
)
from accounts.subscriptions import RateLimitedError
from accounts.votes import UnknownPaperError
from app.core.config import Settings
from app.core.models import Subscriber
from app.services import accounts
from app.services.reports import Deployment

__all__ = [
    "MAX_NAMED",
    "NAMED_LISTS",
    "BadAddressError",
    "BadPreferencesError",
    "Named",
    "RateLimitedError",
    "UnknownPaperError",
    "parse_address",
    "parse_preferences",
    "preferences_reader",
    "session_seconds",
    "unsubscribe_url",
    "unsubscribing_reader",
]


def preferences_reader(site: Deployment, token: str) -> Subscriber:
    """The subscriber a preferences link is for (read only; refused as the link is)."""
    return accounts.subscriber(site, token, links.PREFERENCES)


def unsubscribing_reader(site: Deployment, token: str) -> Subscriber:
    """The subscriber an unsubscribe link is for (read only; refused as the link is)."""
    return accounts.subscriber(site, token, links.UNSUBSCRIBE)


def unsubscribe_url(settings: Settings, subscriber: Subscriber, now: datetime) -> str:
    """The subscriber's one-click unsubscribe link, as their preferences page offers it."""
    return links.unsubscribe_urls(settings, subscriber, now).https


def session_seconds(settings: Settings) -> int:
    """How long a sign-in session's cookie lives."""
    lifetime = links.max_age(settings, links.SESSION)
    assert lifetime is not None  # a session always ends
    return int(lifetime.total_seconds())
