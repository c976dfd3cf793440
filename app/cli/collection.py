"""How a command's process collects cyclic garbage.

A command such as ``paperboy rank`` makes millions of short-lived objects after importing
modules that hold millions more. Python collects its youngest objects every few hundred new
ones, and every so often walks all of them; for a job of a few seconds that walking is a large
share of its time. A command collects less often, and what its modules made at import is
frozen, so collections no longer walk it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# New objects between collections of the youngest generation (Python's default is 700).
YOUNG_OBJECTS = 20_000


@contextmanager
def collected_rarely() -> Iterator[None]:
    """Collect every ``YOUNG_OBJECTS`` new objects inside the block; the process's settings
    are restored after, and anything frozen is thawed (tests run many commands in one
    process)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, *thresholds[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def freeze_what_is_loaded() -> None:
    """Leave every object alive now out of later collections: what imports made lives as long
    as the command."""
    gc.freeze()
