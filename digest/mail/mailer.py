"""Sending over SMTP with aiosmtplib: one connection reused, each failure sorted by whose it is.

A mail goes in two halves, so that its sender can record it in flight in between:
:meth:`Mailer.begin` (``MAIL FROM``, ``RCPT TO``) and :meth:`Mailer.finish` (``DATA``). A
failure says where it came (:class:`SmtpStep`) and whether it is worth retrying (a 4xx
answer, a dropped line) or permanent (a 5xx answer). A ``421`` answer closes the channel: the
next mail reconnects, as it does after a dropped line.

Optional DKIM signing: with a selector and a private key configured, every mail is signed.
The signed form is sent as the exact bytes that were signed, so nothing re-wraps a header
between signing and the wire.
"""

from __future__ import annotations

from collections.abc import Awaitable
from email.message import Message
from enum import StrEnum
from types import TracebackType
from typing import TypeVar

import aiosmtplib

from accounts.links import sender_domain
from app.core.config import Settings
from digest.mail.messages import OutgoingMail

TIMEOUT_SECONDS = 30
# "Service not available, closing transmission channel" (RFC 5321, 3.8): the server hangs up.
CLOSING_CHANNEL = 421
T = TypeVar("T")


class SmtpStep(StrEnum):
    """Where in the conversation a mail failed, which says whose trouble it is."""

    # Connecting, TLS, login, MAIL FROM, RSET: the server's (or its settings'), every mail's.
    SESSION = "session"
    # RCPT TO: this recipient's.
    RECIPIENT = "recipient"
    # DATA: this message's (refused, or the line dropped while it was on it).
    MESSAGE = "message"


class DeliveryError(Exception):
    def __init__(self, message: str, *, permanent: bool, step: SmtpStep = SmtpStep.SESSION) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.step = step


# How a failure reads in the ledger: the step, then the server's own words.
_ANSWERED = {
    SmtpStep.SESSION: "SMTP {code}: {words}",
    SmtpStep.RECIPIENT: "recipient refused: {code} {words}",
    SmtpStep.MESSAGE: "message refused: {code} {words}",
}
_NO_ANSWER = {
    SmtpStep.SESSION: "SMTP unavailable: {error}",
    SmtpStep.RECIPIENT: "connection lost in RCPT: {error}",
    SmtpStep.MESSAGE: "connection lost in DATA: {error}",
}


class Mailer:
    """One SMTP connection for a run: ``async with Mailer(settings) as mailer``."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._smtp: aiosmtplib.SMTP | None = None
        # The signed bytes of the mail between begin and finish (the server holds its envelope).
        self._begun: bytes | None = None

    async def __aenter__(self) -> Mailer:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def send(self, message: OutgoingMail | Message) -> None:
        """Send one message, or raise :class:`DeliveryError` saying whether to retry."""
        if isinstance(message, Message):
            message = OutgoingMail.of(message)
        await self.begin(message)
        await self.finish()

    async def begin(self, message: OutgoingMail) -> None:
        """Sign the message and give the server its envelope (connecting if need be)."""
        raw = wire_bytes(self._settings, message)
        smtp = await self._step(SmtpStep.SESSION, self._ready())
        options = [f"SIZE={len(raw)}"] if smtp.supports_extension("size") else []
        await self._step(SmtpStep.SESSION, smtp.mail(message.sender, options=options))
        self._begun = raw
        await self._step(SmtpStep.RECIPIENT, smtp.rcpt(message.recipient))

    async def finish(self) -> None:
        """DATA: the begun message itself; the server has accepted it once this returns."""
        raw, self._begun = self._begun, None
        if raw is None or self._smtp is None:
            raise RuntimeError("finish() without a begun mail")
        await self._step(SmtpStep.MESSAGE, self._smtp.data(raw))

    async def close(self) -> None:
        smtp, self._smtp, self._begun = self._smtp, None, None
        if smtp is not None and smtp.is_connected:
            try:
                await smtp.quit()
            except (aiosmtplib.SMTPException, OSError):
                smtp.close()

    async def _ready(self) -> aiosmtplib.SMTP:
        """A connection with no mail begun on it: a new one, or the last one reset."""
        if self._smtp is not None and self._smtp.is_connected and self._begun is not None:
            await self._reset(self._smtp)
        if self._smtp is None or not self._smtp.is_connected:
            self._smtp = _client(self._settings)
            await self._smtp.connect()
            if self._settings.smtp_username:
                await self._smtp.login(self._settings.smtp_username, self._settings.smtp_password)
        return self._smtp

    async def _reset(self, smtp: aiosmtplib.SMTP) -> None:
        """Abandon the mail begun last (its recipient refused, or its sender gone on)."""
        self._begun = None
        try:
            await smtp.rset()
        except (aiosmtplib.SMTPException, OSError):
            self._hang_up()  # a fresh connection starts clean

    async def _step(self, step: SmtpStep, command: Awaitable[T]) -> T:
        try:
            return await command
        except aiosmtplib.SMTPResponseException as error:
            # A refused greeting or login leaves a connection no mail can use; a refused
            # recipient or message leaves one the next mail resets and uses.
            if error.code == CLOSING_CHANNEL or step is SmtpStep.SESSION:
                self._hang_up()
            said = _ANSWERED[step].format(code=error.code, words=error.message)
            raise DeliveryError(said, permanent=error.code >= 500, step=step) from error
        except (aiosmtplib.SMTPException, OSError) as error:
            self._hang_up()
            lost = _NO_ANSWER[step].format(error=error)
            raise DeliveryError(lost, permanent=False, step=step) from error

    def _hang_up(self) -> None:
        """Drop the connection without a word: the server has, or is about to."""
        smtp, self._smtp, self._begun = self._smtp, None, None
        if smtp is not None:
            smtp.close()


def _client(settings: Settings) -> aiosmtplib.SMTP:
    return aiosmtplib.SMTP(
        hostname=settings.smtp_host,
        port=settings.smtp_port,
        use_tls=settings.smtp_security == "tls",
        start_tls=settings.smtp_security == "starttls",
        timeout=TIMEOUT_SECONDS,
    )


async def send_one(settings: Settings, message: OutgoingMail | Message) -> None:
    """Send a single message on its own connection (confirmations, sign-in links)."""
    async with Mailer(settings) as mailer:
        await mailer.send(message)


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
