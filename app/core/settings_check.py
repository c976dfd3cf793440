"""Production settings checked in words: :func:`production_problems` (pure) says what is wrong,
:func:`startup_settings` prints it at an entry point, one line per problem, never a traceback.

With ``PAPERBOY_ENV=production``, what would harm others refuses to start: a guessable secret
key (anyone could sign links as the site), no contact address for arXiv (its terms ask every
automated client for one), a public address readers cannot reach (every mailed link would be
broken). What harms only the operator warns: the development mail sink, no admin address for
alerts, the placeholder ``List-Id`` and From address. The entry points (``paperboy``, the web
app factory, ``python -m app.worker.scheduler``) exit with :data:`EXIT_REFUSED` on a refusal.

In every environment, :func:`setup_problems` refuses what cannot work: a database URL of the
wrong scheme (the right one suggested), a SQLite file in a folder that does not exist, a data
directory this user cannot write, SMTP settings that contradict each other (nothing is sent
to check them). A database server that turns the connection down is said in the same way
(:func:`database_refusal`), by the command that met it or, before it serves, by the web app.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import pwd
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app.core.config import PLACEHOLDER_SECRETS, Settings, get_settings
from app.core.db import make_engine
from app.core.db_faults import connection_problem, storage_problem, url_problem
from app.core.logs import JsonFormatter

EXIT_REFUSED = 1
MIN_SECRET_BYTES = 32
# A random key of 32+ characters has dozens of distinct ones; "abab…" is no secret.
MIN_SECRET_DISTINCT = 10
HOW_TO_MAKE_ONE = 'make one with: python3 -c "import secrets; print(secrets.token_urlsafe(48))"'
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})  # noqa: S104 (compared)
DEFAULTS = Settings.model_fields
DATABASE_URL = "PAPERBOY_DATABASE_URL"
REPLICA_URLS = "PAPERBOY_DATABASE_REPLICA_URLS"
# The ports whose protocol is fixed: implicit TLS on 465, STARTTLS (or none) on 587 and 25.
TLS_PORTS = frozenset({465})
STARTTLS_PORTS = frozenset({25, 587})


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
        _secret_key,
        _contact_email,
        _public_base_url,
        _smtp,
        _admin_email,
        _mail_from,
        _list_id,
    ]
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
        problems = setup_problems(settings) + production_problems(settings)
    for problem in problems:
        print(_said(problem, program, settings), file=out)
    refused = any(problem.severity is Severity.REFUSE for problem in problems)
    return None if refused else settings


def setup_problems(settings: Settings) -> list[Problem]:
    """What cannot work in any environment: the database URL, the data directory, SMTP."""
    checks: list[Callable[[Settings], Problem | None]] = [
        _database_url,
        _replica_urls,
        _sqlite_folder,
        _data_dir,
        _smtp_host,
        _smtp_port,
        _smtp_security,
        _smtp_login,
    ]
    return [problem for check in checks if (problem := check(settings)) is not None]


def database_refusal(program: str, error: DBAPIError, database_url: str) -> str | None:
    """The one line for a database error the operator fixes: a storage fault, or a server
    that turned the connection down; None for any other error."""
    if (storage := storage_problem(error, database_url)) is not None:
        return f"{program}: {storage}"
    if (refused := connection_problem(error, database_url)) is not None:
        return Problem(Severity.REFUSE, DATABASE_URL, refused).line(program)
    return None


def refuse_an_unusable_database(
    program: str, settings: Settings, stream: TextIO | None = None
) -> bool:
    """Connect once, as a server starts; print why not and return True if that fails in a
    way the operator fixes (other errors are left for the first request to meet)."""
    url = settings.resolved_database_url
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as error:
        if (line := database_refusal(program, error, url)) is None:
            return False
        print(said(line, settings), file=stream or sys.stderr)
        return True
    finally:
        engine.dispose()
    return False


def said(line: str, settings: Settings | None, level: int = logging.ERROR, **fields: object) -> str:
    """``line`` as printed: a JSON log line where the settings ask for JSON logs (read before
    logging is set up, or where it never is), else as it is."""
    if settings is None or not settings.log_json:
        return line
    record = logging.makeLogRecord(
        {
            "name": "paperboy.settings",
            "levelno": level,
            "levelname": logging.getLevelName(level),
            "msg": line,
            "fields": fields,
        }
    )
    return JsonFormatter().format(record)


def _said(problem: Problem, program: str, settings: Settings | None) -> str:
    level = logging.ERROR if problem.severity is Severity.REFUSE else logging.WARNING
    return said(problem.line(program), settings, level, setting=problem.setting)


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


def _database_url(settings: Settings) -> Problem | None:
    problem = url_problem(settings.resolved_database_url)
    return None if problem is None else Problem(Severity.REFUSE, DATABASE_URL, problem)


def _replica_urls(settings: Settings) -> Problem | None:
    """Standbys follow a PostgreSQL primary, and are PostgreSQL servers themselves."""
    urls = settings.database_replica_urls
    if not urls:
        return None
    if make_url(settings.resolved_database_url).get_backend_name() != "postgresql":
        message = "read replicas need a PostgreSQL primary in PAPERBOY_DATABASE_URL"
        return Problem(Severity.REFUSE, REPLICA_URLS, message)
    for url in urls:
        problem = url_problem(url)
        if problem is None and make_url(url).get_backend_name() != "postgresql":
            problem = "a read replica is a PostgreSQL streaming standby"
        if problem is not None:
            return Problem(Severity.REFUSE, REPLICA_URLS, problem)
    return None


def _sqlite_folder(settings: Settings) -> Problem | None:
    """A SQLite file named in a folder that is not there: a typo, more likely than a wish
    for a new folder (the default file's folder, the data directory, is made as needed)."""
    if not settings.database_url or url_problem(settings.database_url) is not None:
        return None
    url = make_url(settings.database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    folder = Path(url.database).parent
    if folder.is_dir():
        return None
    message = (
        f"the folder {folder} of the SQLite database does not exist: create it "
        f"(mkdir -p {folder}) or correct the path"
    )
    return Problem(Severity.REFUSE, DATABASE_URL, message)


def _data_dir(settings: Settings) -> Problem | None:
    """A data directory this user cannot write (or make). Where the SQLite database lives
    in it, the database's own refusal says so when a command writes (a read-only database
    may still be read)."""
    folder = settings.data_dir.absolute()
    if _holds_the_sqlite_database(settings, folder) or _may_write(folder):
        return None
    user = pwd.getpwuid(os.geteuid()).pw_name
    message = (
        f"{folder} is not writable by the user {user!r}: give it that user "
        f"(chown -R {user} {folder}) or set PAPERBOY_DATA_DIR to a folder it may write"
    )
    return Problem(Severity.REFUSE, "PAPERBOY_DATA_DIR", message)


def _holds_the_sqlite_database(settings: Settings, folder: Path) -> bool:
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() != "sqlite" or not url.database:
        return False
    return Path(url.database).absolute().parent == folder


def _may_write(folder: Path) -> bool:
    """Whether this process may write in ``folder``, or make it (its nearest existing parent)."""
    existing = next((path for path in (folder, *folder.parents) if path.exists()), folder)
    return existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)


def _smtp_host(settings: Settings) -> Problem | None:
    host = settings.smtp_host
    if _is_host(host):
        return None
    message = (
        f"{host!r} is not a host name: write the relay's name alone (smtp.example.org), "
        "its port in PAPERBOY_SMTP_PORT and its login in PAPERBOY_SMTP_USERNAME"
    )
    return Problem(Severity.REFUSE, "PAPERBOY_SMTP_HOST", message)


def _is_host(host: str) -> bool:
    """A name or an address alone: no scheme, port, login or path (a URL pasted in)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return bool(host) and not any(mark in host for mark in (":", "/", " ", "@"))
    return True


def _smtp_port(settings: Settings) -> Problem | None:
    if 1 <= settings.smtp_port <= 65535:
        return None
    message = f"{settings.smtp_port} is no TCP port: set the relay's (587, 465 or 25)"
    return Problem(Severity.REFUSE, "PAPERBOY_SMTP_PORT", message)


def _smtp_security(settings: Settings) -> Problem | None:
    port, security = settings.smtp_port, settings.smtp_security
    if security == "tls" and port in STARTTLS_PORTS:
        fix = "PAPERBOY_SMTP_SECURITY=starttls, or PAPERBOY_SMTP_PORT=465"
    elif security == "starttls" and port in TLS_PORTS:
        fix = "PAPERBOY_SMTP_SECURITY=tls, or PAPERBOY_SMTP_PORT=587"
    else:
        return None
    message = (
        f"{security} on port {port}, which speaks the other way: every send would hang; set {fix}"
    )
    return Problem(Severity.REFUSE, "PAPERBOY_SMTP_SECURITY", message)


def _smtp_login(settings: Settings) -> Problem | None:
    username, password = settings.smtp_username, settings.smtp_password
    if bool(username) == bool(password):
        return None
    given, missing = (
        ("PAPERBOY_SMTP_USERNAME", "PAPERBOY_SMTP_PASSWORD")
        if username
        else ("PAPERBOY_SMTP_PASSWORD", "PAPERBOY_SMTP_USERNAME")
    )
    message = f"is set without {missing}: set both for a relay that asks for a login, or neither"
    return Problem(Severity.REFUSE, given, message)
