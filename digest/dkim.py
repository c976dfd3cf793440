"""Optional DKIM signing: with a selector and a private key configured, every mail is signed.

The signed form is sent as the exact bytes that were signed, so nothing re-wraps a header
between signing and the wire.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage

from app.config import Settings
from digest.messages import sender_domain

SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"list-unsubscribe")


def signed_bytes(settings: Settings, message: EmailMessage) -> bytes | None:
    """The message as bytes with a ``DKIM-Signature`` header, or None when DKIM is off."""
    if not settings.dkim_selector or settings.dkim_private_key_path is None:
        return None
    import dkim  # only deployments that sign need the package

    raw = message.as_bytes(policy=policy.SMTP)
    signature = dkim.sign(
        raw,
        settings.dkim_selector.encode(),
        sender_domain(settings.mail_from).encode(),
        settings.dkim_private_key_path.read_bytes(),
        include_headers=list(SIGNED_HEADERS),
    )
    return bytes(signature) + raw
