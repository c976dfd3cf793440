"""Production settings checked in words: :func:`production_problems` (pure) says what is wrong,
:func:`startup_settings` prints it at an entry point, one line per problem, never a traceback.

With ``PAPERBOY_ENV=production``, what would harm others refuses to start: a guessable secret
key (anyone could sign links as the site), no contact address for arXiv (its terms ask every
automated client for one), a public address readers cannot reach (every mailed link would be
broken). What harms only the operator warns: the development mail sink, no admin address for
alerts, the placeholder ``List-Id`` and From address. The entry points (``paperboy``, the web
app factory, ``python -m app.worker.scheduler``) exit with :data:`EXIT_REFUSED` on a refusal.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TextIO
from urllib.parse import urlsplit

from pydantic import ValidationError

from app.core.config import PLACEHOLDER_SECRETS, Settings, get_settings
from app.core.logs import JsonFormatter

EXIT_REFUSED = 1
MIN_SECRET_BYTES = 32
# A random key of 32+ characters has dozens of distinct ones; "abab…" is no secret.
MIN_SECRET_DISTINCT = 10
HOW_TO_MAKE_ONE = 'make one with: python3 -c "import secrets; print(secrets.token_urlsafe(48))"'
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})  # noqa: S104 (compared)
DEFAULTS = Settings.model_fields


class Severity(StrEnum):
    REFUSE = "refused"
    WARN = "warning"


@dataclass(frozen=True)
class Problem:
    severity: Severity
    setting: str
    message: str

    def line(self, program: str) -> str:
        return f"{program}: {self.severity}: {self.setting}: {self.message}"


def production_problems(settings: Settings) -> list[Problem]:
    """Every problem of ``settings`` for a production deployment; none in development."""
    if settings.env != "production":
        return []
    checks: list[Callable[[Settings], Problem | None]] = [
        _secret_key, _contact_email, _public_base_url, _smtp, _admin_email, _mail_from, _list_id,
    ]  # fmt: skip
    return [problem for check in checks if (problem := check(settings)) is not None]


def invalid_settings(error: ValidationError) -> list[Problem]:
    """One refusal per setting pydantic could not read."""
    return [
        Problem(Severity.REFUSE, _variable(entry["loc"]), entry["msg"]) for entry in error.errors()
    ]


def startup_settings(
    program: str, settings: Settings | None = None, stream: TextIO | None = None
) -> Settings | None:
    """The settings an entry point may run with, or None once it has printed why not.

    ``settings`` None reads them from the environment. Warnings are printed and let it run.
    """
    out = stream or sys.stderr
    try:
        settings = settings or get_settings()
    except ValidationError as error:
        problems = invalid_settings(error)
    else:
        problems = production_problems(settings)
    for problem in problems:
        print(_said(problem, program, settings), file=out)
    refused = any(problem.severity is Severity.REFUSE for problem in problems)
    return None if refused else settings


def _said(problem: Problem, program: str, settings: Settings | None) -> str:
    """The problem's line; a JSON log line where the settings ask for JSON logs."""
    if settings is None or not settings.log_json:
        return problem.line(program)
    level = logging.ERROR if problem.severity is Severity.REFUSE else logging.WARNING
    record = logging.makeLogRecord(
        {
            "name": "paperboy.settings",
            "levelno": level,
            "levelname": logging.getLevelName(level),
            "msg": problem.line(program),
            "fields": {"setting": problem.setting},
        }
    )
    return JsonFormatter().format(record)


def _variable(location: tuple[int | str, ...]) -> str:
    return f"PAPERBOY_{str(location[0]).upper()}" if location else "PAPERBOY_*"


def _secret_key(settings: Settings) -> Problem | None:
    secret = settings.secret_key
    size = len(secret.encode())
    if secret.strip().lower() in PLACEHOLDER_SECRETS:
        why = "is a well-known placeholder"
    elif size < MIN_SECRET_BYTES:
        why = f"is {size} bytes long, fewer than {MIN_SECRET_BYTES}"
    elif len(set(secret)) < MIN_SECRET_DISTINCT:
        why = f"has fewer than {MIN_SECRET_DISTINCT} distinct characters"
    else:
        return None
    message = f"{why}: anyone could sign links and forms as this site; {HOW_TO_MAKE_ONE}"
    return Problem(Severity.REFUSE, "PAPERBOY_SECRET_KEY", message)


def _contact_email(settings: Settings) -> Problem | None:
    if settings.offline or _looks_like_address(settings.contact_email):
        return None
    message = (
        "must be a mailbox you read: it goes to arXiv in the User-Agent of every request, "
        "as arXiv's terms ask of automated clients (or set PAPERBOY_OFFLINE=true)"
    )
    return Problem(Severity.REFUSE, "PAPERBOY_CONTACT_EMAIL", message)


def _public_base_url(settings: Settings) -> Problem | None:
    url = urlsplit(settings.public_base_url)
    host = (url.hostname or "").lower()
    if url.scheme not in ("http", "https") or not host or _is_local(host):
        message = (
            f"{settings.public_base_url!r} is not an address readers can reach, and every "
            "link in mails and feeds is built from it; set the site's https:// address"
        )
        return Problem(Severity.REFUSE, "PAPERBOY_PUBLIC_BASE_URL", message)
    if url.scheme != "https":
        message = "is not https: sign-in links and cookies travel in clear, and there is no HSTS"
        return Problem(Severity.WARN, "PAPERBOY_PUBLIC_BASE_URL", message)
    return None


def _smtp(settings: Settings) -> Problem | None:
    default = (DEFAULTS["smtp_host"].default, DEFAULTS["smtp_port"].default)
    if (settings.smtp_host, settings.smtp_port) != default:
        return None
    message = (
        f"{settings.smtp_host}:{settings.smtp_port} is the development mail sink: no mail "
        "reaches readers; set PAPERBOY_SMTP_HOST and PAPERBOY_SMTP_PORT to your relay"
    )
    return Problem(Severity.WARN, "PAPERBOY_SMTP_HOST", message)


def _admin_email(settings: Settings) -> Problem | None:
    if settings.admin_email:
        return None
    message = "is empty: nobody is mailed when a job fails or a source goes stale"
    return Problem(Severity.WARN, "PAPERBOY_ADMIN_EMAIL", message)


def _mail_from(settings: Settings) -> Problem | None:
    if settings.mail_from != DEFAULTS["mail_from"].default:
        return None
    message = "is the placeholder paperboy@localhost: receiving servers will reject or bin it"
    return Problem(Severity.WARN, "PAPERBOY_MAIL_FROM", message)


def _list_id(settings: Settings) -> Problem | None:
    if settings.digest_list_id != DEFAULTS["digest_list_id"].default:
        return None
    message = "is the placeholder digest.paperboy.localhost; name the list on your own domain"
    return Problem(Severity.WARN, "PAPERBOY_DIGEST_LIST_ID", message)


def _looks_like_address(address: str) -> bool:
    local, at, domain = address.strip().rpartition("@")
    return bool(at and local and "." in domain)


def _is_local(host: str) -> bool:
    return host in LOCAL_HOSTS or host.endswith(".localhost")
