"""Database faults said in one line: a database that cannot take writes (read-only, or its disk
full), a database server that went away (a restart, a failover), which a process waits out,
and a database URL Paperboy cannot use or whose server turns the connection down.

Told apart from other database errors by the driver's own codes (SQLite's result code,
PostgreSQL's SQLSTATE), so that a command says what happened and what to do instead of
printing a driver's traceback. Every step writes in transactions that such an error rolls
back, so what was stored before stays, and running the step again once the fault is lifted
finishes the work.

The database URL in words: a scheme Paperboy cannot use is refused before connecting, and a
connection the server turns down (nobody answers, no such database, a role it refuses) is one
line that says what to change in ``PAPERBOY_DATABASE_URL`` or on the server. Connection errors
carry no SQLSTATE (psycopg reports them before a session exists): the server's and the
operating system's words tell them apart.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
from enum import StrEnum
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError


class StorageFault(StrEnum):
    READ_ONLY = "read-only"
    FULL = "full"


# SQLite's primary result codes: the low byte of the extended code Python reports.
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
# Under this much free space, SQLite's "disk I/O error" is the disk being full: it cannot even
# make the shared-memory file (32 KiB) and the first pages of its write-ahead log.
SQLITE_ROOM_BYTES = 1 << 20
POSTGRES_FAULTS = {
    "25006": StorageFault.READ_ONLY,  # read_only_sql_transaction (also a standby server)
    "53100": StorageFault.FULL,  # disk_full
}
# A connection the server refuses (it could not write its cache file) has no SQLSTATE, only
# the server's words, which end with the operating system's.
OS_WORDS = {
    os.strerror(errno.ENOSPC): StorageFault.FULL,
    os.strerror(errno.EROFS): StorageFault.READ_ONLY,
}
# Some such refusals carry no operating-system words at all: a new connection that finds the
# relation cache invalidated rewrites its init file, and a write that fails there (creating the
# file succeeded, so the folder is writable) is the disk being full.
SERVER_WORDS = {
    "could not write init file": StorageFault.FULL,
}
CONNECT_WORDS = OS_WORDS | SERVER_WORDS

# A server going away or not back yet: class 08 (connection exception), then administrator
# and crash shutdown and "the database system is starting up" (or shutting down).
CONNECTION_CLASS = "08"
SERVER_AWAY_STATES = frozenset({"57P01", "57P02", "57P03"})

# What happened, and what to do about it on each database.
_WHAT = {
    StorageFault.READ_ONLY: "the database is read-only",
    StorageFault.FULL: "the database's disk is full",
}
_REMEDY = {
    (StorageFault.READ_ONLY, "sqlite"): (
        "make the database file and its folder writable for the user that runs paperboy "
        "(or the disk, if it was mounted read-only)"
    ),
    (StorageFault.READ_ONLY, "postgresql"): (
        "let it take writes (default_transaction_read_only off for the database and the "
        "role, or PAPERBOY_DATABASE_URL on the primary server rather than a standby)"
    ),
    (StorageFault.FULL, "sqlite"): "free space on the disk that holds it",
    (StorageFault.FULL, "postgresql"): "free space on the disk that holds the server's data",
}


def storage_fault(error: DBAPIError, database_url: str | URL) -> StorageFault | None:
    """What ``error`` says of the database's storage; None when it is another kind of error.

    SQLite opening a database on a disk with no room left says only "disk I/O error": then the
    free space of the database's folder decides.
    """
    driver_error = error.orig
    sqlstate = getattr(driver_error, "sqlstate", None)
    if sqlstate is not None:
        return POSTGRES_FAULTS.get(sqlstate)
    code = getattr(driver_error, "sqlite_errorcode", None)
    if code is None:
        words = str(driver_error)
        return next((fault for said, fault in CONNECT_WORDS.items() if said in words), None)
    primary = code & 0xFF
    if primary == SQLITE_READONLY:
        return StorageFault.READ_ONLY
    if primary == SQLITE_FULL:
        return StorageFault.FULL
    if primary in (SQLITE_IOERR, SQLITE_CANTOPEN) and _sqlite_disk_is_full(database_url):
        return StorageFault.FULL
    return None


def connection_lost(error: DBAPIError) -> bool:
    """Whether ``error`` says the database server is away (its connection cut or refused), not
    that a statement or the stored data is wrong: the same work succeeds once it is back.

    A refused connection has no SQLSTATE, only the driver's words; SQLite has no server.
    """
    if error.connection_invalidated:
        return True
    driver_error = error.orig
    sqlstate = getattr(driver_error, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate.startswith(CONNECTION_CLASS) or sqlstate in SERVER_AWAY_STATES
    if getattr(driver_error, "sqlite_errorcode", None) is not None:
        return False
    words = str(driver_error)
    a_storage_fault = any(said in words for said in CONNECT_WORDS)  # the server is up
    return isinstance(error, OperationalError) and not a_storage_fault


def _sqlite_disk_is_full(database_url: str | URL) -> bool:
    database = make_url(database_url).database
    if not database or database == ":memory:":
        return False
    try:
        return shutil.disk_usage(Path(database).parent).free < SQLITE_ROOM_BYTES
    except OSError:
        return False


def storage_problem(error: DBAPIError, database_url: str | URL) -> str | None:
    """The one line for a storage fault: what happened, the driver's words, what to do."""
    fault = storage_fault(error, database_url)
    if fault is None:
        return None
    backend = make_url(database_url).get_backend_name()
    remedy = _REMEDY.get((fault, backend), "fix it")
    return (
        f"{_WHAT[fault]} ({driver_words(error)}): {remedy}, then run the command again; "
        "what was stored before is kept"
    )


def describe_database_error(error: SQLAlchemyError, database_url: str | URL) -> str:
    """One line for any database error: a storage fault's, else the driver's first line."""
    if isinstance(error, DBAPIError):
        return storage_problem(error, database_url) or driver_words(error)
    return first_line(str(error))


def driver_words(error: DBAPIError) -> str:
    """The driver's message, without SQLAlchemy's statement and parameters."""
    return first_line(str(error.orig)) or type(error.orig).__name__


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


class _SecondaryDriverErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored ")


def quiet_secondary_driver_errors() -> None:
    """Drop psycopg's warning of the error it met closing a pipeline, a COPY or a transaction
    while the first error propagated: a command reports that first one, in its own line."""
    driver_logger = logging.getLogger("psycopg")
    if not any(isinstance(f, _SecondaryDriverErrors) for f in driver_logger.filters):
        driver_logger.addFilter(_SecondaryDriverErrors())


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
