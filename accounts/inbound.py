"""Mail sent to the ``mailto:`` unsubscribe address of a digest (RFC 2369), read from a pipe.

A mail client that uses the ``List-Unsubscribe`` mailto sends an empty mail whose subject is
``unsubscribe-TOKEN``; the mail server hands it to ``paperboy unsubscribe-mail`` (a pipe alias).
This module only finds the token (pure); the command checks it and unsubscribes.
"""

from __future__ import annotations

import email
import email.policy
import re

# Inbound mail is read up to this size: an unsubscribe request is a few hundred bytes.
MAX_MESSAGE_BYTES = 1_000_000
_TOKEN = re.compile(r"\bunsubscribe-([A-Za-z0-9_.\-]+)", re.IGNORECASE)


class InboundMailError(ValueError):
    """The mail is not an unsubscribe request Paperboy can read; the message says why."""


def unsubscribe_token(raw: bytes) -> str:
    """The token in the subject of an unsubscribe mail (a reply's ``Re:`` and the like allowed)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise InboundMailError(f"mail larger than {MAX_MESSAGE_BYTES} bytes")
    message = email.message_from_bytes(raw, policy=email.policy.default)
    subject = str(message.get("Subject", ""))
    found = _TOKEN.search(subject)
    if found is None:
        raise InboundMailError("no unsubscribe-TOKEN in the subject")
    return found[1]
