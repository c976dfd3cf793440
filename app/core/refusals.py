"""What a refused request means, whoever refuses it: the domain packages, the use cases and
the web's own parameters raise these, and the web answers each meaning with one status
(``app.web.errors``), so no route translates an error into a status itself.

A refusal's message is for the person or program that asked: it says what to change. The
classes carry no HTTP; the mapping to status codes lives with the web app alone.
"""

from __future__ import annotations


# Named for what they mean to the asker (not found, limited), not as errors of the code.
class Refusal(Exception):  # noqa: N818
    """A request turned down for a reason the one who asked can act on."""


class NotFound(Refusal):
    """What the request names is not held here (or not shown to this reader)."""


class BadInput(Refusal):
    """The request cannot be understood or kept as sent; the message says which part."""


class BadChoice(BadInput):
    """A form or parameter value that is none of the values it may take."""


class Refused(Refusal):
    """Understood, but this reader (or this client) may not do it."""


class Conflict(Refusal):
    """What the request would do clashes with what someone else already did."""


class Limited(Refusal):
    """Too many requests from this client or for this address; ``retry_after`` in seconds
    when it is known."""

    def __init__(self, reason: str, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class Busy(Refusal):
    """Everyone's share of the work is taken right now; asking again shortly may work."""

    def __init__(self, reason: str, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class Unavailable(Busy):
    """A service outside Paperboy that this step needs does not answer; nothing was changed."""
