"""Paperboy's emails, rendered from templates and built as MIME messages: multipart text + HTML
with the headers every Paperboy email carries (pure).

Header values come from settings and from a rendered one-line subject; addresses are checked by
:func:`accounts.addresses.parse_address`, so no input can add a header (a CR or LF in
a header value is refused).

Each email is a folder ``templates/email/<name>/`` holding
``subject.txt``, ``body.txt`` and ``body.html`` (Jinja2; only the HTML is auto-escaped).
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.header import Header
from email.message import Message
from email.utils import format_datetime, formataddr, parseaddr
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from accounts.links import UnsubscribeLinks, sender_domain
from app.core.bundled import BundledFolder, bundled_folder
from app.core.tex import readable

BASE64_LINE = 76


@dataclass(frozen=True, slots=True)
class Envelope:
    sender: str
    recipient: str
    sent_at: datetime
    # None for mail that is not a digest.
    unsubscribe: UnsubscribeLinks | None = None
    list_id: str | None = None
    # The Message-ID an earlier try of this mail carried (None: a new one).
    message_id: str | None = None


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    """A message ready for the wire: its envelope addresses, its Message-ID, its bytes."""

    sender: str
    recipient: str
    message_id: str
    raw: bytes

    @classmethod
    def of(cls, message: Message) -> OutgoingMail:
        """A message built with the ``email`` package (one recipient), as it goes out."""
        raw = message.as_bytes(policy=policy.SMTP)
        sender, recipient = parseaddr(str(message["From"]))[1], parseaddr(str(message["To"]))[1]
        return cls(sender, recipient, str(message["Message-ID"] or ""), raw)


def build_message(envelope: Envelope, email: RenderedEmail) -> OutgoingMail:
    """multipart/alternative: the text part, then the HTML part, both UTF-8 in base64.

    Written directly rather than through the ``email`` package, whose header parsing, folding
    and generator cost more than selecting and rendering a digest; the structure is fixed and
    every value is one line (a checked address, a one-line subject, our own tokens).
    """
    message_id = envelope.message_id or make_message_id(envelope.sender)
    boundary = f"=_paperboy_{secrets.token_hex(12)}"
    lines = [f"{name}: {_encoded(value)}" for name, value in _headers(envelope, email, message_id)]
    lines += [
        "MIME-Version: 1.0",
        f'Content-Type: multipart/alternative; boundary="{boundary}"',
        "",
        _part(boundary, "plain", email.text),
        _part(boundary, "html", email.html),
        f"--{boundary}--",
        "",
    ]
    raw = "\r\n".join(lines).encode("ascii")
    return OutgoingMail(
        sender=_sender(envelope.sender)[1],
        recipient=envelope.recipient,
        message_id=message_id,
        raw=raw,
    )


def _headers(envelope: Envelope, email: RenderedEmail, message_id: str) -> list[tuple[str, str]]:
    headers = [
        ("From", _from_header(envelope.sender)),
        ("To", envelope.recipient),
        ("Subject", email.subject),
        ("Date", format_datetime(envelope.sent_at)),
        ("Message-ID", message_id),
        ("Auto-Submitted", "auto-generated"),
    ]
    if envelope.list_id:
        headers.append(("List-Id", envelope.list_id))
    if envelope.unsubscribe:
        links = envelope.unsubscribe
        headers.append(("List-Unsubscribe", f"<{links.https}>, <{links.mailto}>"))
        # RFC 8058: a mail client unsubscribes in one click only through an https link.
        if links.https.startswith("https://"):
            headers.append(("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"))
    return headers


def _part(boundary: str, subtype: str, body: str) -> str:
    encoded = base64.b64encode(body.encode("utf-8")).decode("ascii")
    # Lines of 76 (RFC 2045), cut from one encoding: base64.encodebytes makes a call per line.
    lines = "\r\n".join([encoded[i : i + BASE64_LINE] for i in range(0, len(encoded), BASE64_LINE)])
    return (
        f'--{boundary}\r\nContent-Type: text/{subtype}; charset="utf-8"\r\n'
        f"Content-Transfer-Encoding: base64\r\n\r\n{lines}"
    )


def _encoded(value: str) -> str:
    """One header value: checked to be one line, then RFC 2047-encoded if not ASCII."""
    if "\r" in value or "\n" in value:
        # Unreachable from checked input; refuse rather than let a value add a header.
        raise ValueError(f"a header value must be one line: {value[:60]!r}")
    return value if value.isascii() else Header(value, "utf-8").encode(linesep="\r\n")


# The sender is one setting, parsed for every mail of a run: parse it once.
@cache
def _sender(sender: str) -> tuple[str, str]:
    return parseaddr(sender)


@cache
def _from_header(sender: str) -> str:
    return formataddr(_sender(sender), charset="utf-8")


def make_message_id(sender: str) -> str:
    return f"<{secrets.token_hex(12)}@{sender_domain(sender)}>"


TEMPLATES = bundled_folder(BundledFolder.TEMPLATES)


@dataclass(frozen=True, slots=True)
class RenderedEmail:
    subject: str
    text: str
    html: str


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"], default_for_string=False),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # Templates ship with the code: checking their files at every render of a digest run
        # (three stat calls a mail) buys nothing.
        auto_reload=False,
    )
    env.filters["readable"] = readable
    return env


def render_email(name: str, context: dict[str, Any]) -> RenderedEmail:
    env = environment()
    subject = env.get_template(f"email/{name}/subject.txt").render(context)
    return RenderedEmail(
        # One line, always: a hostile title can never add a header through the subject.
        subject=" ".join(subject.split()),
        text=env.get_template(f"email/{name}/body.txt").render(context),
        html=env.get_template(f"email/{name}/body.html").render(context),
    )
