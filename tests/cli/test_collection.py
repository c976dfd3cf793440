"""A ranking command collects garbage less often and leaves what is loaded out of collections,
then gives the process back as it found it."""

from __future__ import annotations

import gc

from app.cli.ranking import YOUNG_OBJECTS, collected_rarely


def test_inside_collections_are_rarer_and_what_was_alive_is_frozen_then_all_is_restored() -> None:
    before = gc.get_threshold()
    with collected_rarely():
        assert gc.get_threshold() == (YOUNG_OBJECTS, *before[1:])
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_objects_frozen_before_stay_frozen() -> None:
    gc.freeze()
    try:
        with collected_rarely():
            assert gc.get_threshold()[0] == YOUNG_OBJECTS
        # Still frozen (thawing empties the frozen set; a frozen object may still be freed).
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
