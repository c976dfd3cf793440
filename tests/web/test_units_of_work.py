"""Where a route's unit of work comes from (docs/architecture.md, "Units of work").

A route reads with the request's session (``SessionDep``) or calls a use case in
``app/services`` that opens its own; the web layer opens none itself, except where a search
must not hold a connection while it runs, and where a link preview is drawn.
"""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from app.web.app import ROUTERS
from app.web.context import get_session

WEB = Path(__file__).resolve().parents[2] / "app" / "web"
OPENERS = {"session_scope", "unit_of_work"}
# (module, function): the request's own session, the searches' short lookups, and a link
# preview's reading, closed before its drawing starts; an MCP tool's reads, which come with
# no request session.
NAMED_EXCEPTIONS = {
    ("mcp/public.py", "reading"),
    ("context.py", "get_session"),
    ("routes/search.py", "search_page"),
    ("routes/search.py", "search_view"),
    ("routes/search.py", "_without"),
    ("routes/search_feeds.py", "search_feed"),
    ("routes/api.py", "search_papers"),
    ("routes/previews.py", "_image"),
    ("routes/previews.py", "build"),
}


def _opens_a_session(call: ast.Call) -> bool:
    called = call.func
    if isinstance(called, ast.Name):
        return called.id in OPENERS
    if isinstance(called, ast.Attribute):
        return called.attr in OPENERS or called.attr == "sessions"
    return False


def _openings(path: Path) -> set[tuple[str, str]]:
    """(module, function) for each function of ``path`` that opens a session itself."""
    module = path.relative_to(WEB).as_posix()
    found = set()
    for function in ast.walk(ast.parse(path.read_text())):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            calls = (node for node in ast.walk(function) if isinstance(node, ast.Call))
            if any(_opens_a_session(call) for call in calls):
                found.add((module, function.name))
    return found


def test_the_web_opens_no_session_of_its_own_beyond_the_named_exceptions() -> None:
    opened = set().union(*(_openings(path) for path in sorted(WEB.rglob("*.py"))))
    assert opened - NAMED_EXCEPTIONS == set()


def _needs(dependant: Dependant, wanted: object) -> bool:
    return any(sub.call is wanted or _needs(sub, wanted) for sub in dependant.dependencies)


def test_no_write_goes_through_the_request_s_session() -> None:
    """A POST's write commits in its own unit of work before it answers, so the primary's
    position the answer carries (``app.web.read_routing``) is past it; the request's session
    commits only after the answer is sent, and with read replicas it may be a standby's."""
    routes = [route for router in ROUTERS for route in router.routes]
    using = {
        route.path: route.methods or set()
        for route in routes
        if isinstance(route, APIRoute) and _needs(route.dependant, get_session)
    }
    assert "/papers/{arxiv_id:path}" in using  # the pages read with it
    assert [path for path, methods in using.items() if methods - {"GET", "HEAD"}] == []
