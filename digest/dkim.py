"""Optional DKIM signing: with a selector and a private key configured, every mail is signed."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from app.config import Settings
from digest.messages import sender_domain

SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"list-unsubscribe")


def sign_if_configured(settings: Settings, message: EmailMessage) -> EmailMessage:
    if not settings.dkim_selector or settings.dkim_private_key_path is None:
        return message
    import dkim  # only deployments that sign need the package

    raw = message.as_bytes(policy=policy.SMTP)
    signature = dkim.sign(
        raw,
        settings.dkim_selector.encode(),
        sender_domain(settings.mail_from).encode(),
        settings.dkim_private_key_path.read_bytes(),
        include_headers=list(SIGNED_HEADERS),
    )
    signed = message_from_bytes(signature + raw, policy=policy.SMTP)
    assert isinstance(signed, EmailMessage)
    return signed
