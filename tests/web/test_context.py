"""The web context: its memo outlives the request that filled it; its dependencies never
block the event loop; a request's session ends even while every page thread is taken."""

import inspect
from collections.abc import Iterator

import anyio
from anyio import to_thread
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine
from app.web.context import WebContext, build_context, get_session


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


def test_a_session_ends_while_every_page_thread_waits(site_settings: Settings) -> None:
    # Under load every page thread may wait for a connection that only finished requests can
    # give back: their ends must not wait for one of those threads.
    with open_engine(site_settings) as engine:
        context = build_context(site_settings, make_session_factory(engine))
        ended = anyio.run(_end_with_every_page_thread_taken, context)
    assert ended


async def _end_with_every_page_thread_taken(context: WebContext) -> bool:
    pages = to_thread.current_default_thread_limiter()
    takers = [object() for _ in range(int(pages.total_tokens))]
    for taker in takers:
        await pages.acquire_on_behalf_of(taker)
    try:
        # A guard against a hang, not a timing: the end needs no thread a taker holds.
        with anyio.fail_after(60):
            request = get_session(context)
            session = await anext(request)
            session.execute(text("SELECT 1"))  # a read: the end commits
            async for _ in request:
                pass
    finally:
        for taker in takers:
            pages.release_on_behalf_of(taker)
    return not session.in_transaction()
