"""The web context: its memo outlives the request that filled it; its dependencies never
block the event loop."""

import inspect
from collections.abc import Iterator

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine
from app.web.context import build_context


def test_an_edition_kept_by_the_memo_survives_the_rollback_of_the_request_that_loaded_it(
    site_settings: Settings,
) -> None:
    with open_engine(site_settings) as engine:
        _check_memo_survives_rollback(site_settings, engine)


def _check_memo_survives_rollback(site_settings: Settings, engine: Engine) -> None:
    context = build_context(site_settings, make_session_factory(engine))
    failing = context.sessions()
    loaded = context.edition(failing, "day", None)
    assert loaded is not None
    failing.rollback()  # the request failed after reading the edition
    failing.close()
    later = context.sessions()
    kept = context.edition(later, "day", None)
    assert kept is loaded  # from the memo, no query
    assert kept.published_at is not None and kept.pool_size > 0  # still readable
    later.close()


def test_every_dependency_runs_on_the_event_loop(client: TestClient) -> None:
    # A plain def dependency costs every request a trip to the thread pool and back; the
    # ones here are attribute reads and checks, so each must be async.
    blocking = {
        f"{route.path}: {dependency.call.__qualname__}"
        for route in client.app.routes  # type: ignore[attr-defined]
        if isinstance(route, APIRoute)
        for dependency in _all_dependencies(route.dependant)
        if dependency.call is not None
        and not inspect.iscoroutinefunction(dependency.call)
        and not inspect.isasyncgenfunction(dependency.call)
    }
    assert blocking == set()


def _all_dependencies(dependant: Dependant) -> Iterator[Dependant]:
    for dependency in dependant.dependencies:
        yield dependency
        yield from _all_dependencies(dependency)
