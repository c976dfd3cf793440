"""Every route of the app walked with hostile input: no request gets a server error.

schemathesis fuzzes the JSON API from its schema (``.ci/schemathesis.sh``); the pages, forms,
cookies and tokens are left out of that schema, so this walk draws from the app's own route
table instead: each path and method, with path parameters, query strings, form fields, the
site's cookies and the headers a form's origin check reads filled with non-ASCII and control
characters, huge integers and malformed tokens. Half the forms carry a valid CSRF pair and
this site's origin, and valid tokens of a confirmed reader (every link of a mail, a sign-in
link, a session cookie) are among the values drawn, so the walk gets past the first checks to
what each form does.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, inspect, select, table

from accounts import links, signin
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import confirm, request_subscription
from app.core.config import Settings
from app.core.db import make_session_factory, session_scope
from app.core.models import Base
from tests.web.conftest import HF_PAPER, HOSTILE_ID, LAST_DAY
from tests.web.helpers import a_topic_of

PATH_PARAMETER = re.compile(r"\{(\w+)(:path)?\}")
CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')
COOKIES = ("paperboy_session", "paperboy_csrf")
# The pages' handlers read their forms themselves, so no signature lists these: every name a
# form, a link or the API reads.
FIELDS = (
    "token",
    "csrf",
    "value",
    "email",
    "action",
    "q",
    "since",
    "until",
    "category",
    "date",
    "week",
    "month",
    "period",
    "topic",
    "p",
    "limit",
    "sort",
    "delivery_hour",
    "frequency",
    "weekday",
    "time_zone",
    "max_items",
    "send_empty",
    "interests",
    "exclusions",
    "categories",
    "followed_authors",
    "followed_topics",
    "muted_authors",
    "muted_topics",
    "list",
    "note",
    "name",
    # The discussion's, its mail switches' and the shared lists' forms.
    "body",
    "reply_to",
    "once",
    "reason",
    "decision",
    "replies",
    "papers",
    "discussed",
    "arxiv_id",
    "title",
    "description",
    "shown",
)
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Their 503 is their answer ("something needs the operator"), which uptime checkers watch for.
HEALTH_REPORTS = frozenset({"/readyz", "/status", "/status.json"})


@dataclass(frozen=True)
class Walk:
    client: TestClient
    routes: list[tuple[str, str]]
    real_values: list[str]
    reader: dict[str, str]  # a confirmed reader's token for each page that takes one
    session: str  # and their session cookie
    csrf: tuple[str, str]  # (cookie, form field)
    site: str


def every_route(app: FastAPI) -> list[tuple[str, str]]:
    """(path template, method) for every route, mounted files included."""
    found = []
    for route in iter_route_contexts(app.routes):
        assert route.path is not None
        methods = route.methods or {"GET", "HEAD"}  # a mount (static files) lists none
        path = route.path if route.methods else f"{route.path}/{{name:path}}"
        found += [(path, method) for method in sorted(methods)]
    return found


def csrf_pair(client: TestClient) -> tuple[str, str]:
    response = client.get("/subscribe")
    field = CSRF_FIELD.search(response.text)
    assert field is not None and "paperboy_csrf" in response.cookies
    return response.cookies["paperboy_csrf"], field[1]


def reader_tokens(settings: Settings, engine: Engine) -> tuple[dict[str, str], str]:
    """Every token a confirmed reader holds: their mail's links, a sign-in link, a session."""
    now, address = datetime.now(UTC), parse_address("walker@example.org")
    with session_scope(make_session_factory(engine)) as session:
        preferences = parse_preferences({}, settings.categories)
        reader = request_subscription(session, settings, address, preferences, "walk", now)
        assert reader is not None
        confirm(session, settings, _token(links.confirm_url(settings, reader, now)), now)
        key = signin.key_for(session, address.key, now)
        pages = _mailed_tokens(settings, reader, now) | {
            "/signin/confirm": _token(links.signin_url(settings, address.delivery, key, now))
        }
        return pages, signin.session_token(settings, session, address.key, now)


def _mailed_tokens(settings: Settings, reader: links.LinkHolder, now: datetime) -> dict[str, str]:
    preferences = _token(links.preferences_url(settings, reader, now))
    return {
        "/subscribe/confirm": _token(links.confirm_url(settings, reader, now)),
        "/subscriptions/preferences": preferences,
        "/subscriptions/export": preferences,
        "/subscriptions/delete": preferences,
        "/unsubscribe": _token(links.unsubscribe_urls(settings, reader, now)[0]),
        "/subscriptions/feedback": _token(links.feedback_url(settings, reader, HF_PAPER, now)),
        "/comments/mail-off": _token(
            links.comment_mail_off_urls(settings, reader, "replies", now).https
        ),
    }


def _token(url: str) -> str:
    return url.split("token=", 1)[1].split("&", 1)[0]


def rows(engine: Engine, name: str) -> int:
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(table(name))) or 0


@pytest.fixture(scope="module")
def walk(site_settings: Settings, client: TestClient, migrated_engine: Engine) -> Iterator[Walk]:
    """The filled site, with what the walk wrote (subscribers, votes) removed after it."""
    stored = set(inspect(migrated_engine).get_table_names())
    names = [table.name for table in Base.metadata.sorted_tables if table.name in stored]
    untouched = [name for name in names if rows(migrated_engine, name) == 0]
    lenient = TestClient(client.app, raise_server_exceptions=False, follow_redirects=False)
    topic_id, _ = a_topic_of(site_settings, LAST_DAY)
    known = [HOSTILE_ID, HF_PAPER, str(topic_id), "jose-perez", "2025-12-19", "2025-W51"]
    reader, session = reader_tokens(site_settings, migrated_engine)
    known += [*reader.values(), session]
    routes = every_route(lenient.app)  # type: ignore[arg-type]
    csrf, site = csrf_pair(lenient), site_settings.public_base_url
    yield Walk(
        client=lenient,
        routes=routes,
        real_values=known,
        reader=reader,
        session=session,
        csrf=csrf,
        site=site,
    )
    with migrated_engine.begin() as connection:
        for name in reversed(names):  # children before their parents
            if name in untouched:
                connection.execute(table(name).delete())


def _base64ish(parts: tuple[bytes, bytes]) -> str:
    return ".".join(base64.urlsafe_b64encode(part).decode().rstrip("=") for part in parts)


TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
CONTROL = st.text(
    st.characters(max_codepoint=0x1F) | st.sampled_from("\x7f\x85\u2028\u202e\ufeff\u200b"),
    min_size=1,
    max_size=6,
)
HUGE = st.one_of(
    st.integers(min_value=2**31).map(str),
    st.integers(max_value=-(2**31)).map(str),
    st.sampled_from([str(2**63), str(2**64), "9" * 40, "1e999", "NaN", "-0", "0x10"]),
)
TOKENS = st.one_of(
    st.tuples(st.binary(max_size=40), st.binary(max_size=32)).map(_base64ish),
    st.text("é☃中\u00a0ß", min_size=1, max_size=8).map(lambda s: f"{s}.{s}"),
    st.text("abcdefABCDEF0123456789-_.", max_size=60),
)


def hostile(real: list[str]) -> st.SearchStrategy[str]:
    near = st.one_of(TEXT, CONTROL, HUGE, TOKENS, st.sampled_from(real))
    addresses = st.tuples(near, st.sampled_from(["@example.org", "@exämple.org", "@"])).map("".join)
    one = near | addresses
    return st.one_of(one, st.tuples(one, one).map("".join))


@dataclass(frozen=True)
class Call:
    method: str
    url: str
    query: dict[str, str]
    form: dict[str, str | list[str]] | None
    headers: dict[bytes, bytes]


def _header_safe(text: str) -> bytes:
    """Any text a client could send in a header: raw UTF-8, without the line breaks and NUL
    that end or break a header on the wire."""
    return re.sub("[\r\n\x00]", "", text).encode()


@st.composite
def calls(draw: st.DrawFn, walk: Walk) -> Call:
    path, method = draw(st.sampled_from(walk.routes))
    values = hostile(walk.real_values)

    def fill(match: re.Match[str]) -> str:
        return quote(draw(values), safe="/" if match[2] else "")

    url = PATH_PARAMETER.sub(fill, path)
    query = draw(st.dictionaries(st.sampled_from(FIELDS), values, max_size=3))
    cookies = draw(st.dictionaries(st.sampled_from(COOKIES), values, max_size=2))
    form: dict[str, str | list[str]] | None = None
    headers = {}
    if method in WRITES:
        form = dict(draw(st.dictionaries(st.sampled_from(FIELDS), values, max_size=5)))
        if draw(st.booleans()):
            form["categories"] = draw(st.lists(values, max_size=3))
    if draw(st.booleans()):  # a reader's own link, or a page a signed-in reader sends
        if path in walk.reader:
            (form if form is not None else query)["token"] = walk.reader[path]
        cookies["paperboy_session"] = walk.session
    if form is not None and draw(st.booleans()):  # sent from this site's own form
        cookies["paperboy_csrf"], form["csrf"] = walk.csrf
        headers = {"origin": walk.site, "sec-fetch-site": "same-origin"}
    else:
        chosen = draw(st.dictionaries(st.sampled_from(["origin", "sec-fetch-site"]), values))
        headers = dict(chosen)
    headers["cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
    return Call(
        method=method,
        url=url,
        query=query,
        form=form,
        headers={k.encode(): _header_safe(v) for k, v in headers.items()},
    )


@given(data=st.data())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_route_answers_hostile_input_with_a_server_error(
    walk: Walk, data: st.DataObject
) -> None:
    call = data.draw(calls(walk))
    walk.client.cookies.clear()  # only the drawn cookies, never ones an earlier answer set
    response = walk.client.request(
        call.method, call.url, params=call.query, data=call.form, headers=call.headers
    )
    status = response.status_code
    report = status == 503 and call.url in HEALTH_REPORTS
    assert status < 500 or report, f"{call}\n{status}: {response.text[:300]}"
