"""A command collects garbage less often and leaves what its imports made out of collections,
then gives the process back as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

from app.cli.collection import YOUNG_OBJECTS, collected_rarely, freeze_what_is_loaded
from app.cli.main import main
from app.core.config import get_settings


def test_inside_a_command_collections_are_rarer_and_what_is_loaded_is_frozen() -> None:
    before = gc.get_threshold()
    with collected_rarely():
        assert gc.get_threshold() == (YOUNG_OBJECTS, *before[1:])
        freeze_what_is_loaded()
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_command_gives_the_process_back_as_it_found_it(tmp_path: Path) -> None:
    before = gc.get_threshold()
    assert main(["migrate"], get_settings(data_dir=tmp_path)) == 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
