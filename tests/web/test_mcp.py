"""The MCP server as an assistant meets it: the SDK's own client over streamable HTTP (the
site served by uvicorn) and over stdio (``paperboy mcp`` spawned), every tool called, bad
input answered in words, and a reader's token reaching their own data until revoked."""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, TextResourceContents
from sqlalchemy import select

from accounts import access_tokens, reader, signin
from accounts.subscriptions import delete_everything
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import PaperPerson, TokenScope
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.servers import served
from tests.web.conftest import DAYS, HF_PAPER

Call = tuple[str, dict[str, Any]]


@pytest.fixture(scope="module")
def mcp_url(site_settings: Settings) -> Iterator[str]:
    with served(create_app(site_settings)) as url:
        yield f"{url}/mcp"


def _calls(url: str, calls: list[Call], token: str | None = None) -> list[CallToolResult]:
    """Each call's answer, through one client session (``token``: the reader's)."""

    async def run() -> list[CallToolResult]:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        http = create_mcp_http_client(headers=headers)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(run)


def _text(result: CallToolResult) -> str:
    return " ".join(getattr(part, "text", "") for part in result.content)


def _answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    answer: dict[str, Any] | None = result.structured_content
    assert answer is not None
    return answer


def person_of(settings: Settings, arxiv_id: str, author_key: str) -> int:
    """The person the site's split of the names made of ``author_key`` on ``arxiv_id``."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        found = session.scalar(
            select(PaperPerson.person_id).where(
                PaperPerson.arxiv_id == arxiv_id, PaperPerson.author_key == author_key
            )
        )
    assert found is not None, (arxiv_id, author_key)
    return found


def test_every_public_tool_answers_typed_data(mcp_url: str, site_settings: Settings) -> None:
    first = _calls(mcp_url, [("trending", {"limit": 3}), ("list_topics", {})])
    papers, topics = _answer(first[0])["papers"], _answer(first[1])["topics"]
    assert len(papers) == 3 and [p["rank"] for p in papers] == [1, 2, 3]
    assert all("chance" in p and "explanation" in p for p in papers)
    paper_id, topic_id = papers[0]["paper"]["id"], topics[0]["id"]
    author = papers[0]["paper"]["authors"][0]
    person_id = person_of(site_settings, paper_id, author["key"])
    answers = _calls(
        mcp_url,
        [
            ("trending", {"period": "week", "day": DAYS[-1], "topic": topic_id}),
            ("search", {"query": "diffusion", "limit": 5}),
            ("paper", {"arxiv_id": HF_PAPER}),
            ("similar_papers", {"arxiv_id": paper_id, "limit": 3}),
            ("topic", {"topic_id": topic_id}),
            ("person", {"person_id": person_id}),
            ("emerging_radar", {}),
            ("week_in_review", {}),
        ],
    )
    week, found, paper, similar, topic, person, radar, review = map(_answer, answers)
    assert (person["kind"], person["person"], person["name"]) == (
        "person",
        person_id,
        author["name"],
    )
    assert paper_id in [p["id"] for p in person["papers"]]
    assert week["period"] == "week" and all(p["topic"]["id"] == topic_id for p in week["papers"])
    assert found["total"] >= len(found["papers"]) > 0
    assert paper["paper"]["id"] == HF_PAPER and paper["links"]["pdf"].endswith(HF_PAPER)
    assert paper["paper"]["editions"] and paper["explanation"]
    assert paper_id not in [p["paper"]["id"] for p in similar["papers"]]
    assert topic["id"] == topic_id
    assert "emerging" in radar and review["weeks"]


def test_a_get_is_told_the_endpoint_keeps_no_stream(client: TestClient) -> None:
    # A stateless server offers no stream to listen on: 405 at once, never a request held open.
    answer = client.get("/mcp", headers={"accept": "text/event-stream"})
    assert (answer.status_code, answer.headers["allow"]) == (405, "POST")


def test_a_search_leaves_out_the_papers_a_minus_word_names(mcp_url: str) -> None:
    plain, without = _calls(
        mcp_url,
        [
            ("search", {"query": "diffusion", "limit": 50}),
            ("search", {"query": "diffusion -video", "limit": 50}),
        ],
    )
    every, kept = _answer(plain)["papers"], _answer(without)["papers"]

    def names_video(paper: dict[str, Any]) -> bool:
        return "video" in (paper["paper"]["title"] + paper["paper"]["summary"]).lower()

    # Both answers may fill the limit; what tells is which papers they hold.
    assert any(names_video(p) for p in every) and kept
    assert not any(names_video(p) for p in kept)
    kept_ids = {p["paper"]["id"] for p in kept}
    assert all(p["paper"]["id"] in kept_ids for p in every if not names_video(p))


def test_the_resources_of_an_edition_and_a_paper_read_as_json(mcp_url: str) -> None:
    async def run() -> list[str]:
        async with Client(mcp_url) as client:
            templates = await client.list_resource_templates()
            assert {t.name for t in templates.resource_templates} == {"edition", "paper"}
            read = [
                await client.read_resource(f"paperboy://editions/day/{DAYS[-1]}"),
                await client.read_resource(f"paperboy://papers/{HF_PAPER}"),
            ]
        return [r.contents[0].text for r in read if isinstance(r.contents[0], TextResourceContents)]

    edition, paper = map(json.loads, anyio.run(run))
    assert edition["edition"] == DAYS[-1] and edition["papers"]
    assert paper["paper"]["id"] == HF_PAPER


INVALID: list[Call] = [
    ("trending", {"period": "year"}),
    ("trending", {"limit": "many"}),
    ("trending", {"day": "19/12/2025"}),
    ("search", {"query": "x" * 100_000}),
    ("search", {"query": 42}),
    ("paper", {"arxiv_id": "not an id"}),
    ("paper", {"arxiv_id": "2512.00000"}),
    ("similar_papers", {"arxiv_id": HF_PAPER, "limit": 10**9}),
    ("topic", {"topic_id": -1}),
    ("person", {"person_id": "someone"}),
    ("emerging_radar", {"week": "2025-W99"}),
    ("week_in_review", {"week": ["2025-W51"]}),
    ("for_you", {}),
    ("reading_list", {"list_id": 0}),
    ("saved_searches", {}),
    ("save_paper", {"arxiv_id": HF_PAPER}),
    ("create_list", {"name": ""}),
    ("file_paper", {"arxiv_id": None}),
    ("follow", {"kind": "planet", "target": "x"}),
    ("save_search", {"query": "q" * 201}),
    ("forget_search", {"search_id": 0}),
    ("no_such_tool", {}),
]


def test_every_tool_answers_bad_input_with_a_tool_error_in_words(mcp_url: str) -> None:
    names = {name for name, _ in INVALID}
    listed = anyio.run(_tool_names, mcp_url)
    # list_topics takes no arguments; any sent are ignored, as its schema allows
    assert listed | {"no_such_tool"} == names | {"list_topics"}
    for (name, arguments), result in zip(INVALID, _calls(mcp_url, INVALID), strict=True):
        assert result.is_error, (name, arguments)
        said = _text(result)
        assert said and "Traceback" not in said, (name, said)
        assert len(said) < 2000, (name, len(said))  # a huge argument is not echoed whole
    unknown = _calls(mcp_url, INVALID[-1:])[0]
    assert "Unknown tool: no_such_tool" in _text(unknown)
    assert "personal access token" in _text(_calls(mcp_url, [("for_you", {})])[0])


async def _tool_names(url: str) -> set[str]:
    async with Client(url) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


class Reader:
    """A signed-in reader of the served site, and their tokens."""

    def __init__(self, settings: Settings, address: str) -> None:
        self.settings, self.address = settings, address
        with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
            cookie = signin.session_token(settings, s, address, datetime.now(UTC))
        self.headers = {"cookie": f"{SESSION_COOKIE}={cookie}", "accept": "application/json"}

    def make_token(self, client: TestClient, scope: str = "write") -> str:
        form = {"name": "My assistant", "scope": scope, "lifetime": "30"}
        made = client.post("/for-you/tokens", data=form, headers=self.headers)
        assert made.status_code == 200 and made.headers["cache-control"] == "private, no-store"
        token: str = made.json()["token"]
        return token

    def forget(self) -> None:
        with open_engine(self.settings) as engine, session_scope(make_session_factory(engine)) as s:
            found = reader.find(s, self.address)
            if found is not None:
                delete_everything(s, found)


@pytest.fixture
def readers(
    site_settings: Settings, request: pytest.FixtureRequest
) -> Iterator[tuple[Reader, Reader]]:
    # Each test its own readers: xdist may run this module's tests side by side on one store.
    tag = f"{zlib.crc32(request.node.name.encode()):08x}"
    ada = Reader(site_settings, f"ada-{tag}@example.org")
    bob = Reader(site_settings, f"bob-{tag}@example.org")
    yield ada, bob
    ada.forget()
    bob.forget()


def test_a_token_reaches_its_readers_own_data_until_it_is_revoked(
    mcp_url: str, client: TestClient, readers: tuple[Reader, Reader]
) -> None:
    ada, bob = readers
    token = ada.make_token(client)
    assert (
        token.startswith("pbt_") and token not in client.get("/for-you", headers=ada.headers).text
    )
    picked = _saved_marks(_calls(mcp_url, [("for_you", {})], token)[0])
    first = next(iter(picked))
    assert picked[first] is False
    saved, listed, mine = _calls(
        mcp_url,
        [("save_paper", {"arxiv_id": first}), ("reading_list", {}), ("for_you", {})],
        token,
    )
    assert "saved" in _answer(saved)["done"]
    assert [p["paper"]["paper"]["id"] for p in _answer(listed)["papers"]] == [first]
    assert _saved_marks(mine)[first] is True  # Ada's For you shows what Ada saved
    bobs_list, bobs_picks = _calls(
        mcp_url, [("reading_list", {}), ("for_you", {})], bob.make_token(client)
    )
    # Bob's token reaches Bob's own list and For you, not Ada's
    assert _answer(bobs_list)["papers"] == [] and _saved_marks(bobs_picks)[first] is False
    page = client.get("/for-you", headers=ada.headers).text
    token_id = page.split('action="/for-you/tokens/')[1].split("/")[0]
    revoked = client.post(f"/for-you/tokens/{token_id}/revoke", headers=ada.headers)
    assert revoked.status_code == 200
    for after in _calls(mcp_url, [("for_you", {}), ("reading_list", {})], token):
        assert after.is_error and "revoked" in _text(after)


def _saved_marks(for_you: CallToolResult) -> dict[str, bool]:
    """Each paper of a For you answer, in order, and whether the reader saved it."""
    return {p["paper"]["paper"]["id"]: p["saved"] for p in _answer(for_you)["papers"]}


def test_a_read_only_malformed_unknown_or_expired_token_is_refused(
    mcp_url: str, client: TestClient, readers: tuple[Reader, Reader], site_settings: Settings
) -> None:
    ada, _ = readers
    reading = ada.make_token(client, scope="read")
    write, read = _calls(
        mcp_url, [("save_paper", {"arxiv_id": HF_PAPER}), ("saved_searches", {})], reading
    )
    assert write.is_error and "may only read" in _text(write)
    assert _answer(read)["searches"] == []
    for bad, why in [("pbt_short", "malformed"), ("pbt_" + "A" * 43, "not known")]:
        result = _calls(mcp_url, [("for_you", {})], bad)[0]
        assert result.is_error and why in _text(result) and bad not in _text(result)
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        row = reader.find(s, ada.address)
        assert row is not None
        past = datetime.now(UTC) - timedelta(days=40)
        old = access_tokens.create_token(s, row, "old", TokenScope.READ, 30, past)
    expired = _calls(mcp_url, [("for_you", {})], old)[0]
    assert expired.is_error and "expired" in _text(expired)


def test_a_token_form_that_cannot_be_kept_is_refused_and_stores_nothing(
    client: TestClient, readers: tuple[Reader, Reader]
) -> None:
    ada, _ = readers
    for form in [
        {"name": "", "scope": "read"},
        {"name": "x", "scope": "admin"},
        {"name": "x", "scope": "read", "lifetime": "7"},
        {"name": "x" * 61},
    ]:
        refused = client.post("/for-you/tokens", data=form, headers=ada.headers)
        assert refused.status_code == 400, form
    assert 'id="access-tokens"' not in client.get("/for-you", headers=ada.headers).text


def test_paperboy_mcp_answers_over_stdio_with_the_readers_token(
    site_settings: Settings, client: TestClient, readers: tuple[Reader, Reader]
) -> None:
    token = readers[0].make_token(client)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {
        "PAPERBOY_DATABASE_URL": site_settings.resolved_database_url,
        "PAPERBOY_DATA_DIR": str(site_settings.data_dir),
        "PAPERBOY_SEARCH_SEMANTIC": "false",
        "PAPERBOY_MCP_TOKEN": token,
    }
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "app.cli.main", "mcp"], env=environment
    )

    async def run() -> list[CallToolResult]:
        async with Client(command) as stdio:
            names = {tool.name for tool in (await stdio.list_tools()).tools}
            assert {"trending", "for_you", "save_paper"} <= names
            return [
                await stdio.call_tool("trending", {"limit": 1}),
                await stdio.call_tool("save_search", {"query": "diffusion"}),
                await stdio.call_tool("saved_searches", {}),
            ]

    trending, saved, searches = anyio.run(run)
    assert len(_answer(trending)["papers"]) == 1 and not saved.is_error
    assert [s["query"] for s in _answer(searches)["searches"]] == ["diffusion"]


def test_the_data_export_lists_every_token_but_never_its_secret(
    mcp_url: str, client: TestClient, readers: tuple[Reader, Reader]
) -> None:
    ada, _ = readers
    used, unused = ada.make_token(client), ada.make_token(client, scope="read")
    assert not _calls(mcp_url, [("reading_list", {})], used)[0].is_error
    page = client.get("/for-you", headers=ada.headers).text
    assert "last used" in page and "never used" in page
    unused_id = page.split('action="/for-you/tokens/')[1].split("/")[0]  # newest first
    client.post(f"/for-you/tokens/{unused_id}/revoke", headers=ada.headers)
    exported = client.get("/for-you/data.json", headers=ada.headers)
    assert exported.status_code == 200
    first, second = exported.json()["access_tokens"]
    assert (first["name"], first["scope"], second["scope"]) == ("My assistant", "write", "read")
    assert first["last_used_at"] and first["revoked_at"] is None
    assert second["last_used_at"] is None and second["revoked_at"]
    assert datetime.fromisoformat(first["created_at"]) <= datetime.fromisoformat(
        first["last_used_at"]
    )
    for token in (used, unused):
        for secret in (token, access_tokens.digest_of(token), token[4:12]):
            assert secret not in exported.text
