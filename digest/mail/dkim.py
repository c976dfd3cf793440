"""Optional DKIM signing: with a selector and a private key configured, every mail is signed.

The signed form is sent as the exact bytes that were signed, so nothing re-wraps a header
between signing and the wire.
"""

from __future__ import annotations

from app.core.config import Settings
from digest.mail.messages import OutgoingMail, sender_domain

SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"list-unsubscribe")


def wire_bytes(settings: Settings, message: OutgoingMail) -> bytes:
    """The message as sent: with a ``DKIM-Signature`` header when a key is configured."""
    raw = message.raw
    if not settings.dkim_selector or settings.dkim_private_key_path is None:
        return raw
    import dkim  # only deployments that sign need the package

    signature = dkim.sign(
        raw,
        settings.dkim_selector.encode(),
        sender_domain(settings.mail_from).encode(),
        settings.dkim_private_key_path.read_bytes(),
        include_headers=list(SIGNED_HEADERS),
    )
    return bytes(signature) + raw
