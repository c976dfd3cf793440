"""Every route of the app, served by uvicorn, asked for values at and past the ends of what a
URL may name: no answer is a server error.

The routes come from the app's own route table (pages, feeds, previews, the API, static
files), with the path and query parameters each handler and its dependencies declare, so a
new route is walked as soon as it exists. The values are ``tests/extremes.py``'s (which
schemathesis draws from too), by the kind of each parameter (its declared type, else its
name): identifiers with versions past ``int()``'s digit limit, the first and last day, week
and month of the calendar and those past them, integers past 64 bits, control and
bidirectional characters, NUL, very long text.

One example of the property is a column of those values: every route is asked once for each
of its parameters, that parameter at the column's value of its kind and the others at values
that reach the handler, so what a parser hands on is reached rather than stopped by another
parameter's refusal; Hypothesis adds common query parameters the handler may not declare,
with any extreme value. Every column is an explicit example, so each value of each kind
reaches each parameter of each route on every run.
"""

from __future__ import annotations

import enum
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.utils import get_flat_params
from fastapi.params import Path, Query
from fastapi.routing import RouteContext, iter_route_contexts
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.web.app import create_app
from tests import extremes
from tests.servers import served
from tests.web.conftest import HF_PAPER

PATH_PARAMETER = re.compile(r"\{(\w+)(:path)?\}")
# A value of each kind that reaches a handler, for the parameters a request does not aim at.
USUAL: dict[tuple[str, ...], str] = {
    extremes.IDENTIFIERS: HF_PAPER,
    extremes.DAYS: "2025-12-19",
    extremes.WEEKS: "2025-W51",
    extremes.MONTHS: "2025-12",
    extremes.PERIODS: "day",
    extremes.INTEGERS: "1",
    extremes.TEXTS: "jose-perez",
}
WIDTH = max(len(kind) for kind in extremes.KINDS.values())  # a column per value of the longest
# Names the pages, feeds and API read, whether or not a handler declares them.
COMMON = ("date", "week", "month", "period", "page", "p", "limit", "q", "since", "until", "topic")
# Their 503 is their answer ("something needs the operator"), which uptime checkers watch for.
HEALTH_REPORTS = frozenset({"/readyz", "/status", "/status.json"})


@dataclass(frozen=True)
class Call:
    method: str
    url: str
    query: dict[str, str]

    def __repr__(self) -> str:
        query = {name: _short(value) for name, value in self.query.items()}
        return f"{self.method} {_short(self.url)} {query}"


def _short(text: str) -> str:
    """Short enough to read in a failure report; its start shows which extreme it is."""
    return text if len(text) <= 80 else f"{text[:60]}…({len(text)} characters)"


@dataclass(frozen=True)
class Parameter:
    name: str  # as a request sends it (``list`` for ``list_id = Query(alias="list")``)
    kind: tuple[str, ...]
    usual: str
    in_path: bool


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # the template, e.g. /papers/{arxiv_id:path}
    parameters: tuple[Parameter, ...]

    def calls(self, column: int, extra: dict[str, str]) -> list[Call]:
        """A request per parameter: it at the column's value of its kind, the other path
        parameters at their usual values, the other query parameters absent."""
        return [self._call(aim, column, extra) for aim in self.parameters or (None,)]

    def _call(self, aim: Parameter | None, column: int, extra: dict[str, str]) -> Call:
        values = {p.name: p.usual for p in self.parameters if p.in_path}
        if aim is not None:
            values[aim.name] = aim.kind[column % len(aim.kind)]
        url = PATH_PARAMETER.sub(lambda m: quote(values[m[1]], safe="/" if m[2] else ""), self.path)
        aimed = {} if aim is None or aim.in_path else {aim.name: values[aim.name]}
        return Call(method=self.method, url=url, query=extra | aimed)


def every_route(app: FastAPI) -> list[Route]:
    """Each method of each route in the app's table, with what its handler declares."""
    found = []
    for context in iter_route_contexts(app.routes):
        assert context.path is not None
        path = context.path if context.methods else f"{context.path}/{{name:path}}"  # a mount
        declared = _declared(context)
        in_path = [name for name, _ in PATH_PARAMETER.findall(path)]
        declared |= {name: str for name in in_path if name not in declared}
        parameters = tuple(_parameter(n, a, n in in_path) for n, a in declared.items())
        found += [Route(m, path, parameters) for m in sorted(context.methods or {"GET"})]
    return found


def _declared(context: RouteContext) -> dict[str, object]:
    """The type of each path and query parameter a route's handler and its dependencies
    declare, by the name a request sends."""
    dependant = getattr(context, "dependant", None)
    if dependant is None:
        return {}
    fields = get_flat_params(dependant)
    return {
        f.alias: f.field_info.annotation for f in fields if isinstance(f.field_info, Path | Query)
    }


def _parameter(name: str, annotation: object, in_path: bool) -> Parameter:
    kind = _kind(name, annotation)
    allowed = _allowed(annotation)  # a choice (a format, a verb) reaches the handler by its name
    usual = allowed[0] if allowed else USUAL[kind]
    return Parameter(name=name, kind=kind, usual=usual, in_path=in_path)


def _kind(name: str, annotation: object) -> tuple[str, ...]:
    if name in extremes.BY_NAME:
        return extremes.KINDS[extremes.BY_NAME[name]]
    if _is(annotation, date):
        return extremes.DAYS
    if _is(annotation, int):
        return extremes.INTEGERS
    return extremes.TEXTS


def _is(annotation: object, wanted: type) -> bool:
    """Whether ``annotation`` is ``wanted``, also as ``wanted | None``."""
    return annotation is wanted or wanted in typing.get_args(annotation)


def _allowed(annotation: object) -> list[str]:
    """The values a ``Literal`` or an enum allows, also inside ``X | None``."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(member.value) for member in annotation]
    if typing.get_origin(annotation) is typing.Literal:
        return [str(value) for value in typing.get_args(annotation)]
    return [value for arg in typing.get_args(annotation) for value in _allowed(arg)]


@dataclass(frozen=True)
class Walk:
    client: httpx.Client
    routes: list[Route]

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints the test's arguments with a failure: the routes' values would
        # run to megabytes, past the size at which it warns (an error in this suite).
        printer.text(f"Walk({len(self.routes)} routes)")


@pytest.fixture(scope="module")
def walk(site_settings: Settings) -> Iterator[Walk]:
    """A client of the filled site served by uvicorn, and the routes of its app."""
    app = create_app(site_settings)
    # A connection per request: uvicorn closes one after a server error, and the request
    # after it would fail on the closed connection instead of getting its answer.
    fresh = httpx.Limits(max_keepalive_connections=0)
    with served(app) as url, httpx.Client(base_url=url, timeout=30, limits=fresh) as client:
        yield Walk(client=client, routes=every_route(app))


def test_the_walk_takes_every_route_and_what_each_declares(walk: Walk) -> None:
    routes = {(route.method, route.path): route for route in walk.routes}
    paper = routes["GET", "/api/papers/{arxiv_id:path}"].parameters
    identifier = Parameter(name="arxiv_id", kind=extremes.IDENTIFIERS, usual=HF_PAPER, in_path=True)
    assert paper == (identifier,)
    assert ("GET", "/previews/papers/{arxiv_id:path}.png") in routes
    assert ("GET", "/static/{name:path}") in routes
    radar = routes["GET", "/under-the-radar"].parameters
    assert radar == (Parameter(name="week", kind=extremes.WEEKS, usual="2025-W51", in_path=False),)
    feed = {p.name: p for p in routes["GET", "/feeds/topic/{topic_id}.{fmt}"].parameters}
    assert feed["topic_id"].kind == extremes.INTEGERS and feed["fmt"].usual == "rss"


F = TypeVar("F", bound=Callable[..., None])


def every_column(test: F) -> F:
    """Every column as an explicit example, without extra parameters."""
    for column in range(WIDTH):
        test = example(column=column, extra={})(test)
    return test


@every_column
@given(
    column=st.integers(0, WIDTH - 1),
    extra=st.dictionaries(st.sampled_from(COMMON), st.sampled_from(extremes.EVERY), max_size=2),
)
@settings(
    max_examples=16,
    deadline=None,
    derandomize=True,  # the same walk on every run: CI's answer never depends on luck
    suppress_health_check=[HealthCheck.too_slow],
)
def test_no_route_answers_a_value_at_or_past_its_ends_with_a_server_error(
    walk: Walk, column: int, extra: dict[str, str]
) -> None:
    failed = []
    for route in walk.routes:
        for call in route.calls(column, extra):
            answer = walk.client.request(call.method, call.url, params=call.query)
            if answer.status_code >= 500 and not (
                answer.status_code == 503 and call.url in HEALTH_REPORTS
            ):
                failed.append(f"{call!r} -> {answer.status_code}: {answer.text[:120]}")
    assert not failed, "\n".join(failed)
