"""What the web's subscribe, preferences, sign-in and vote forms read and refuse: a mailed
link's kinds and lifetimes, an address and preferences as posted, the named lists a form
offers, and the refusals a request meets (too many, a bad address, bad preferences, an
unknown paper).

The use cases that store them are in :mod:`app.services.accounts`; these are the values
and parsers a form needs before it calls one.
"""

from __future__ import annotations

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

__all__ = [
    "MAX_NAMED",
    "NAMED_LISTS",
    "BadAddressError",
    "BadPreferencesError",
    "Named",
    "RateLimitedError",
    "UnknownPaperError",
    "links",
    "parse_address",
    "parse_preferences",
]
