"""The database URL in words: a scheme Paperboy cannot use, refused before connecting, and a
connection the server turns down (nobody answers, no such database, a role it refuses), each
one line that says what to change in ``PAPERBOY_DATABASE_URL`` or on the server.

Connection errors carry no SQLSTATE (psycopg reports them before a session exists): the
server's and the operating system's words tell them apart. Storage faults (a read-only
database, a full disk) are :mod:`app.core.db_faults`'s.
"""

from __future__ import annotations

import re
from enum import StrEnum

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from app.core.db_faults import SQLITE_CANTOPEN

SETTING = "PAPERBOY_DATABASE_URL"
EXAMPLES = (
    "sqlite:////var/lib/paperboy/paperboy.sqlite3 or "
    "postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE"
)
# What Paperboy connects with: SQLite's built-in driver, psycopg 3 (SQLAlchemy's default).
USABLE_SCHEMES = frozenset({"sqlite", "sqlite+pysqlite", "postgresql", "postgresql+psycopg"})
# Other spellings of a database Paperboy runs on (Heroku's and libpq's postgres://, drivers
# that are not installed), and the scheme to write instead.
RIGHT_SCHEME = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "sqlite": "sqlite",
}


class ConnectionFault(StrEnum):
    NO_SERVER = "no server"
    NO_DATABASE = "no database"
    ROLE_REFUSED = "role refused"
    NO_FILE = "no file"


_SAID = (
    (ConnectionFault.NO_DATABASE, re.compile(r'database "(?P<name>[^"]*)" does not exist')),
    (ConnectionFault.ROLE_REFUSED, re.compile(r'role "[^"]*" does not exist')),
    (ConnectionFault.ROLE_REFUSED, re.compile(r"authentication failed for user")),
    (
        ConnectionFault.NO_SERVER,
        re.compile(
            r"Connection refused|failed to resolve host|could not translate host name|"
            r"timeout expired|No route to host|Network is unreachable|No such file or directory"
        ),
    ),
)


def url_problem(url: str) -> str | None:
    """What is wrong with the URL's scheme, before any connection (pure); None if usable."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return f"is not a database URL; write {EXAMPLES}"
    if parsed.drivername in USABLE_SCHEMES:
        return None
    right = RIGHT_SCHEME.get(parsed.drivername.partition("+")[0])
    if right is None:
        return f"{parsed.drivername}:// is not a database Paperboy runs on; write {EXAMPLES}"
    fixed = parsed.set(drivername=right).render_as_string(hide_password=True)
    return f"{parsed.drivername}:// names no driver Paperboy has; write {fixed}"


def connection_fault(error: DBAPIError) -> ConnectionFault | None:
    """Why the connection was refused, if it was; None for any other error."""
    driver_error = error.orig
    if getattr(driver_error, "sqlite_errorcode", 0) & 0xFF == SQLITE_CANTOPEN:
        return ConnectionFault.NO_FILE
    if getattr(driver_error, "sqlstate", None) is not None:
        return None  # a session existed: the statement failed, not the connection
    words = str(driver_error)
    return next((fault for fault, said in _SAID if said.search(words)), None)


def connection_problem(error: DBAPIError, database_url: str) -> str | None:
    """The one line for a refused connection: what the server said, what to change."""
    fault = connection_fault(error)
    if fault is None:
        return None
    url = make_url(database_url)
    if fault is ConnectionFault.NO_FILE:
        return (
            f"cannot open the SQLite database {url.database} (unable to open database file): "
            f"make its folder writable for the user that runs paperboy, or correct {SETTING}"
        )
    return _REFUSALS[fault](url, str(error.orig))


def _no_server(url: URL, words: str) -> str:
    reason = words.strip().splitlines()[0].rsplit("failed: ", 1)[-1]
    return (
        f"no database server answers at {_where(url)} ({reason}): start PostgreSQL there, "
        f"or correct the host and port in {SETTING}"
    )


def _no_database(url: URL, _words: str) -> str:
    owner = f" --owner={url.username}" if url.username else ""
    return (
        f"the server at {_where(url)} has no database {url.database!r}: create it "
        f"(createdb{owner} {url.database}) or correct the database name in {SETTING}"
    )


def _role_refused(url: URL, words: str) -> str:
    said = re.sub(r"\s+", " ", words.strip().splitlines()[0].rsplit("FATAL: ", 1)[-1]).strip()
    return (
        f"the server at {_where(url)} refused the role {url.username!r} ({said}): correct "
        f"the user and password in {SETTING}, or create the role "
        f"(createuser --pwprompt {url.username})"
    )


_REFUSALS = {
    ConnectionFault.NO_SERVER: _no_server,
    ConnectionFault.NO_DATABASE: _no_database,
    ConnectionFault.ROLE_REFUSED: _role_refused,
}


def _where(url: URL) -> str:
    return f"{url.host or 'localhost'}:{url.port or 5432}"
