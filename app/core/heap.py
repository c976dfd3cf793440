"""The process's garbage collector around long work: what is alive at the start left out.

Python's collector now and then walks every object it tracks. Paperboy imports modules that
hold hundreds of thousands (the web framework, the MCP SDK, the search index and the app's
own tables), and they stay alive until the process ends; walking them again and again is
wasted time, and for a web server under steady load a large share of each request's cost.
:func:`alive_objects_frozen` moves what is alive into Python's permanent generation for the
length of a block, so that collections walk only what the block itself makes. A frozen
object is still freed when its last reference goes; only a cycle among frozen objects waits
for the block's end.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# New objects between collections of the youngest generation, far above Python's default.
YOUNG_OBJECTS = 20_000


@contextmanager
def alive_objects_frozen() -> Iterator[None]:
    """Within the block, what is alive at its start is left out of collections; after, the
    process is given back as it was. Objects frozen by someone else before are left as they
    were: the freezing is theirs to undo."""
    freezing = gc.get_freeze_count() == 0
    if freezing:
        gc.freeze()
    try:
        yield
    finally:
        if freezing:
            gc.unfreeze()


@contextmanager
def collected_rarely() -> Iterator[None]:
    """As :func:`alive_objects_frozen`, and the youngest objects collected every
    ``YOUNG_OBJECTS`` new ones: for a job of seconds that makes a great many short-lived
    objects. The thresholds are restored after (tests run commands in one process)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, *thresholds[1:])
    try:
        with alive_objects_frozen():
            yield
    finally:
        gc.set_threshold(*thresholds)
