"""Sending over SMTP with aiosmtplib: one connection reused, errors sorted temporary or permanent.

A temporary failure (no connection, a 4xx answer, a dropped line) is worth retrying later; a
permanent one (5xx, a refused recipient) is recorded and not retried.
"""

from __future__ import annotations

from email.message import Message
from types import TracebackType

import aiosmtplib

from app.core.config import Settings
from digest.mail.dkim import wire_bytes
from digest.mail.messages import OutgoingMail

TIMEOUT_SECONDS = 30


class DeliveryError(Exception):
    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class Mailer:
    """One SMTP connection for a run: ``async with Mailer(settings) as mailer``."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._smtp: aiosmtplib.SMTP | None = None

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
        raw = wire_bytes(self._settings, message)
        try:
            smtp = await self._connected()
            await smtp.sendmail(message.sender, [message.recipient], raw)
        except aiosmtplib.SMTPRecipientsRefused as error:
            codes = [refusal.code for refusal in error.recipients]
            raise DeliveryError(
                f"recipient refused: {error}", permanent=min(codes) >= 500
            ) from error
        except aiosmtplib.SMTPResponseException as error:
            await self.close()
            raise DeliveryError(
                f"SMTP {error.code}: {error.message}", permanent=error.code >= 500
            ) from error
        except (aiosmtplib.SMTPException, OSError) as error:
            await self.close()
            raise DeliveryError(f"SMTP unavailable: {error}", permanent=False) from error

    async def close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None and smtp.is_connected:
            try:
                await smtp.quit()
            except (aiosmtplib.SMTPException, OSError):
                smtp.close()

    async def _connected(self) -> aiosmtplib.SMTP:
        if self._smtp is None or not self._smtp.is_connected:
            self._smtp = _client(self._settings)
            await self._smtp.connect()
            if self._settings.smtp_username:
                await self._smtp.login(self._settings.smtp_username, self._settings.smtp_password)
        return self._smtp


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
