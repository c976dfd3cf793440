"""The SQLite file a web process opened, watched: deleted or replaced under it, the process
must not go on as if nothing happened.

Open connections keep reading and writing the file they opened, even after it was deleted
(its data then dies with the process) or replaced by another (a restored backup stays
unseen). So the file's identity (device and inode) is remembered when the engine first
connects; ``/readyz`` compares it with what the path holds now and answers 503 when they
differ, and requests that would write are refused with 503 until the process is restarted.
A PostgreSQL database has no such file: nothing to watch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from fastapi import HTTPException, Request
from sqlalchemy import Engine, event

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RESTART = "restart Paperboy once the right file is in place"


class FileTrouble(StrEnum):
    MISSING = "database file missing"
    REPLACED = "database file replaced"


@dataclass
class DatabaseFile:
    path: Path | None
    identity: tuple[int, int] | None = field(default=None)

    @classmethod
    def of(cls, engine: Engine) -> DatabaseFile:
        """The watched file of ``engine``, remembered at its first connection."""
        database = engine.url.database
        if engine.dialect.name != "sqlite" or not database or database == ":memory:":
            return cls(None)
        watched = cls(Path(database).resolve())
        watched.remember()
        event.listen(engine, "connect", lambda *_: watched.remember())
        return watched

    def remember(self) -> None:
        if self.identity is None and self.path is not None:
            self.identity = _identity(self.path)

    def trouble(self) -> FileTrouble | None:
        if self.path is None or self.identity is None:
            return None
        now = _identity(self.path)
        if now is None:
            return FileTrouble.MISSING
        return FileTrouble.REPLACED if now != self.identity else None

    def explain(self, trouble: FileTrouble) -> str:
        return f"{trouble.value} ({self.path}) while Paperboy was running; {RESTART}"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


async def refuse_writes_to_a_lost_file(request: Request) -> None:
    """An app-wide dependency: a write would land in a deleted file or the replaced one."""
    if request.method in SAFE_METHODS:
        return
    watched: DatabaseFile = request.app.state.database_file
    trouble = watched.trouble()
    if trouble is not None:
        raise HTTPException(503, watched.explain(trouble))
