"""``paperboy migrate`` that SIGKILLs itself just before its Nth SQL statement.

``python -m tests.migrations.killed_migrate N``: a crash at a chosen point of the migration,
the same point at every run, where a timer from outside would land on most points by chance
only (a whole migration takes a fraction of a second).
"""

from __future__ import annotations

import os
import signal
import sys

from sqlalchemy import Engine, event

from app.cli.main import main


def kill_before_statement(number: int) -> None:
    """From now on, the process dies (SIGKILL) as it is about to send statement ``number``."""
    sent = 0

    def count(*_args: object) -> None:
        nonlocal sent
        sent += 1
        if sent == number:
            os.kill(os.getpid(), signal.SIGKILL)

    event.listen(Engine, "before_cursor_execute", count)


if __name__ == "__main__":
    kill_before_statement(int(sys.argv[1]))
    sys.exit(main(["migrate"]))
