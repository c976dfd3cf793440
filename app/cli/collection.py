"""How a ranking command's process collects cyclic garbage.

Ranking a day makes a great many short-lived objects after importing modules that hold a great
many more. Python collects its youngest objects often, and now and then walks all of them;
for a job of seconds that walking is a large share of its time. A ranking command collects
less often, and what is alive when it starts (its modules) is frozen, so that collections no
longer walk it. Long-running commands (the scheduler, the demo's server) keep Python's
defaults.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# New objects between collections of the youngest generation, far above Python's default.
YOUNG_OBJECTS = 20_000


@contextmanager
def collected_rarely() -> Iterator[None]:
    """Within the block, collect every ``YOUNG_OBJECTS`` new objects and leave what is alive
    at its start out of collections (unless something froze objects before: that is left as
    it was); the process's settings are restored after (tests run commands in one process)."""
    thresholds = gc.get_threshold()
    freezing = gc.get_freeze_count() == 0
    gc.set_threshold(YOUNG_OBJECTS, *thresholds[1:])
    if freezing:
        gc.freeze()
    try:
        yield
    finally:
        if freezing:
            gc.unfreeze()
        gc.set_threshold(*thresholds)
