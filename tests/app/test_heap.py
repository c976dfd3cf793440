"""Long work leaves what was alive at its start out of collections and gives the process back
as it found it: a ranking command (which also collects less often) and the web site while it
serves."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from app.core.heap import YOUNG_OBJECTS, collected_rarely
from app.web.app import create_app
from tests.conftest import Database


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


def test_the_site_leaves_what_it_loaded_out_of_collections_while_it_serves(
    database: Database,
) -> None:
    app = create_app(database.settings.model_copy(update={"search_semantic": False}))
    with TestClient(app) as client:
        assert client.get("/api/version").status_code == 200
        # The app itself, built before it served, is among what collections skip.
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
