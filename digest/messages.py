"""MIME messages: multipart text + HTML with the headers every Paperboy email carries (pure).

Header values come from settings and from a rendered one-line subject; addresses are checked by
:func:`normalise_address`, so no input can add a header (the email package refuses CR/LF too).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr

from digest.render import RenderedEmail

_ADDRESS = re.compile(r"^[^@\s<>()\[\],;:\"\\]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
MAX_ADDRESS_LENGTH = 254


class BadAddressError(ValueError):
    """An email address Paperboy will not store or write to."""


def normalise_address(raw: str) -> str:
    """A plain ``local@domain`` address (domain lower-cased), or :class:`BadAddressError`."""
    address = raw.strip()
    if len(address) > MAX_ADDRESS_LENGTH or not _ADDRESS.match(address):
        raise BadAddressError("please give a valid email address, like ada@example.org")
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


@dataclass(frozen=True, slots=True)
class Envelope:
    sender: str
    recipient: str
    sent_at: datetime
    # List-Unsubscribe: (https URL, mailto URL); None for mail that is not a digest.
    unsubscribe: tuple[str, str] | None = None
    list_id: str | None = None


def build_message(envelope: Envelope, email: RenderedEmail) -> EmailMessage:
    message = EmailMessage()
    message["From"] = envelope.sender
    message["To"] = Address(addr_spec=envelope.recipient)
    message["Subject"] = email.subject
    message["Date"] = format_datetime(envelope.sent_at)
    message["Message-ID"] = make_message_id(envelope.sender)
    message["Auto-Submitted"] = "auto-generated"
    if envelope.list_id:
        message["List-Id"] = envelope.list_id
    if envelope.unsubscribe:
        https, mailto = envelope.unsubscribe
        message["List-Unsubscribe"] = f"<{https}>, <{mailto}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(email.text)
    message.add_alternative(email.html, subtype="html")
    return message


def sender_domain(sender: str) -> str:
    return parseaddr(sender)[1].rpartition("@")[2] or "localhost"


def make_message_id(sender: str) -> str:
    return f"<{secrets.token_hex(12)}@{sender_domain(sender)}>"
