"""The MCP server as a client Paperboy did not write meets it: the MCP Inspector's command
line (``tools/mcp-inspector``, pinned; ``npm ci`` there installs it) lists the tools over
streamable HTTP and calls every one with valid arguments, the reader's with their token.

Where the Inspector is not installed the module skips, saying how to install it; CI sets
``MCP_INSPECTOR_REQUIRED``, and there a missing Inspector fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.web.app import create_app
from tests.servers import served
from tests.web.conftest import HF_PAPER
from tests.web.test_mcp import Reader, person_of

pytestmark = pytest.mark.inspector

INSPECTOR_DIR = Path(__file__).resolve().parents[2] / "tools" / "mcp-inspector"
# The Inspector's command-line client itself: its ``mcp-inspector --cli`` launcher only starts
# this in a second Node process, which would double the time of every call.
INSPECTOR = INSPECTOR_DIR / "node_modules" / "@modelcontextprotocol" / "inspector" / "cli"
INSPECTOR /= "build/index.js"
PUBLIC = {"trending", "search", "paper", "similar_papers", "list_topics", "topic", "person"}
PUBLIC |= {"emerging_radar", "week_in_review"}
PERSONAL = {"for_you", "reading_list", "saved_searches", "save_paper", "create_list"}
PERSONAL |= {"file_paper", "follow", "save_search", "forget_search"}


@pytest.fixture(scope="module")
def inspector() -> Path:
    if not INSPECTOR.exists():
        why = f"the MCP Inspector is not installed: run `npm ci` in {INSPECTOR_DIR}"
        if os.environ.get("MCP_INSPECTOR_REQUIRED"):
            pytest.fail(why)
        pytest.skip(why)
    return INSPECTOR


@pytest.fixture(scope="module")
def mcp_url(site_settings: Settings) -> Iterator[str]:
    with served(create_app(site_settings)) as url:
        yield f"{url}/mcp"


class Inspector:
    """The Inspector's ``--cli`` mode against one server, optionally with a reader's token."""

    def __init__(self, program: Path, url: str, token: str | None = None) -> None:
        self.command = ["node", str(program), url, "--transport", "http"]
        if token:
            self.command += ["--header", f"Authorization: Bearer {token}"]

    def run(self, *arguments: str) -> dict[str, Any]:
        done = subprocess.run(
            [*self.command, *arguments], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer

    def call(self, tool: str, **arguments: object) -> dict[str, Any]:
        """The tool's structured answer."""
        result = self._call(tool, arguments)
        text = _text(result)
        assert not result.get("isError"), (tool, text)
        structured: dict[str, Any] = result["structuredContent"]
        assert json.loads(text) == structured  # the text part is the same answer, as JSON
        return structured

    def refusal(self, tool: str, **arguments: object) -> str:
        """The words of the tool error the call is answered with."""
        result = self._call(tool, arguments)
        assert result["isError"] is True, result
        return _text(result)

    def _call(self, tool: str, arguments: dict[str, object]) -> dict[str, Any]:
        # Each argument goes as the JSON of its value, as a user quotes it: an arXiv id
        # unquoted would read as a number.
        pairs = [f"{key}={json.dumps(value)}" for key, value in arguments.items()]
        flags = [flag for pair in pairs for flag in ("--tool-arg", pair)]
        return self.run("--method", "tools/call", "--tool-name", tool, *flags)


def _text(result: dict[str, Any]) -> str:
    return " ".join(part.get("text", "") for part in result["content"])


def test_the_inspector_lists_every_tool_with_its_schemas(inspector: Path, mcp_url: str) -> None:
    tools = Inspector(inspector, mcp_url).run("--method", "tools/list")["tools"]
    by_name = {tool["name"]: tool for tool in tools}
    assert set(by_name) == PUBLIC | PERSONAL
    assert all(tool["description"] and tool["outputSchema"] for tool in tools)
    assert by_name["paper"]["inputSchema"]["required"] == ["arxiv_id"]
    assert by_name["trending"]["annotations"]["readOnlyHint"] is True


def test_the_inspector_calls_every_public_tool(
    inspector: Path, mcp_url: str, site_settings: Settings
) -> None:
    cli = Inspector(inspector, mcp_url)
    papers = cli.call("trending", limit=3)["papers"]
    assert [p["rank"] for p in papers] == [1, 2, 3]
    topic_id = cli.call("list_topics")["topics"][0]["id"]
    assert cli.call("topic", topic_id=topic_id)["id"] == topic_id
    found = cli.call("search", query="diffusion", limit=5)
    assert found["total"] >= len(found["papers"]) > 0
    paper = cli.call("paper", arxiv_id=HF_PAPER)
    assert paper["paper"]["id"] == HF_PAPER and paper["links"]["pdf"].endswith(HF_PAPER)
    similar = cli.call("similar_papers", arxiv_id=HF_PAPER, limit=3)["papers"]
    assert 0 < len(similar) <= 3 and HF_PAPER not in [p["paper"]["id"] for p in similar]
    radar, review = cli.call("emerging_radar"), cli.call("week_in_review")
    assert isinstance(radar["emerging"], list) and review["weeks"]
    author = paper["paper"]["authors"][-1]
    person_id = person_of(site_settings, HF_PAPER, author["key"])
    person = cli.call("person", person_id=person_id)
    assert (person["kind"], person["person"], person["name"]) == (
        "person",
        person_id,
        author["name"],
    )
    assert HF_PAPER in [p["id"] for p in person["papers"]]
    assert "no person 99999999 is shown here" in cli.refusal("person", person_id=99_999_999)


def test_the_inspector_acts_for_a_reader_with_their_token(
    inspector: Path, mcp_url: str, client: TestClient, site_settings: Settings
) -> None:
    reader = Reader(site_settings, "inspector@example.org")
    try:
        cli = Inspector(inspector, mcp_url, reader.make_token(client))
        assert "saved" in cli.call("save_paper", arxiv_id=HF_PAPER)["done"]
        made = cli.call("create_list", name="To read")["done"]
        list_id = int(made.split()[1])
        cli.call("file_paper", arxiv_id=HF_PAPER, list_id=list_id)
        filed = cli.call("reading_list", list_id=list_id)
        assert filed["lists"] == [{"id": list_id, "name": "To read"}]
        assert [p["paper"]["paper"]["id"] for p in filed["papers"]] == [HF_PAPER]
        author = cli.call("paper", arxiv_id=HF_PAPER)["paper"]["authors"][0]["key"]
        assert "followed" in cli.call("follow", kind="author", target=author)["done"]
        cli.call("save_search", query="diffusion", category="cs.CV")
        searches = cli.call("saved_searches")["searches"]
        assert [(s["query"], s["category"]) for s in searches] == [("diffusion", "cs.CV")]
        assert "forgotten" in cli.call("forget_search", search_id=searches[0]["id"])["done"]
        assert cli.call("saved_searches")["searches"] == []
        assert isinstance(cli.call("for_you")["papers"], list)
    finally:
        reader.forget()
