"""The MCP server of one deployment: its tools and resources, the streamable HTTP endpoint the
web app mounts at ``/mcp``, and the stdio loop ``paperboy mcp`` runs.

Each tool's description is its docstring and its input and output schemas are its typed
arguments and answer. A refusal (``app.core.refusals``: a paper not stored, a malformed
identifier, a refused token, a rate limit) becomes a tool error in the refusal's words; the
SDK answers arguments its schema refuses, and an unknown tool, in words of its own. Nothing
a caller sends can make the endpoint answer 5xx: a crash in a tool is a tool error too, with
no detail. The HTTP endpoint is stateless with JSON answers, so any web worker may answer
any request and nothing is held between calls.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib.metadata import version
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.core.refusals import Refusal
from app.web.context import WebContext, build_context
from app.web.forms import PERIOD_NAMES as PERIODS
from app.web.mcp.personal import ReaderTools
from app.web.mcp.public import PublicTools

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "Paperboy ranks the day's arXiv papers by their chance of trending. Start with "
    "`trending` (a day's, week's or month's edition) or `search`; `paper` explains one. "
    "The reader's own tools (for_you, reading_list, save_paper, ...) need their personal "
    "access token."
)
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
Tool = TypeVar("Tool", bound=Callable[..., Any])


def answering(tool: Tool) -> Tool:
    """``tool`` with its refusals raised as tool errors, whose words the caller reads (the SDK
    hides the words of any other exception)."""

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except Refusal as refused:
            raise ToolError(str(refused)) from None

    return call  # type: ignore[return-value]


def build_server(context: WebContext, stdio_token: str | None = None) -> MCPServer:
    """The deployment's MCP server (``stdio_token``: the reader's token for stdio)."""
    server: MCPServer = MCPServer(
        "paperboy", instructions=INSTRUCTIONS, version=version("paperboy"), log_level="WARNING"
    )
    public, personal = PublicTools(context), ReaderTools(context, stdio_token)
    for name, tool in _public(public).items():
        server.add_tool(answering(tool), name=name, annotations=READS)
    for name, tool in _personal(personal).items():
        annotations = READS if name in PERSONAL_READS else WRITES
        server.add_tool(answering(tool), name=name, annotations=annotations)
    _add_resources(server, public)
    return server


def _public(tools: PublicTools) -> dict[str, Callable[..., Any]]:
    return {
        "trending": tools.trending,
        "search": tools.search,
        "paper": tools.paper,
        "similar_papers": tools.similar,
        "list_topics": tools.topics,
        "topic": tools.topic,
        "person": tools.person,
        "emerging_radar": tools.radar,
        "week_in_review": tools.week_review,
    }


PERSONAL_READS = frozenset({"for_you", "reading_list", "saved_searches"})


def _personal(tools: ReaderTools) -> dict[str, Callable[..., Any]]:
    return {
        "for_you": tools.for_you,
        "reading_list": tools.reading_list,
        "saved_searches": tools.saved_searches,
        "save_paper": tools.save_paper,
        "create_list": tools.create_list,
        "file_paper": tools.file_paper,
        "follow": tools.follow,
        "save_search": tools.save_search,
        "forget_search": tools.forget_search,
    }


def _add_resources(server: MCPServer, tools: PublicTools) -> None:
    @server.resource(
        "paperboy://editions/{period}/{day}",
        name="edition",
        description="An edition's papers, as `trending` answers them (`day`: any day in it)",
        mime_type="application/json",
    )
    def edition(period: str, day: str) -> str:
        if period not in PERIODS:
            raise ValueError("period is day, week or month")
        return _json(answering(tools.trending)(period=PERIODS[period], day=day, limit=100))

    @server.resource(
        "paperboy://papers/{arxiv_id}",
        name="paper",
        description="A paper, as `paper` answers it (new-style arXiv ids: 2512.14133)",
        mime_type="application/json",
    )
    def paper(arxiv_id: str) -> str:
        return _json(answering(tools.paper)(arxiv_id=arxiv_id))


def _json(answer: Any) -> str:
    return json.dumps(answer.model_dump(mode="json"), ensure_ascii=False)


def http_routes(server: MCPServer) -> list[BaseRoute]:
    """The ``/mcp`` endpoint's routes, for the web app to add to its own; the app's
    lifespan runs ``server.session_manager.run()`` around them."""
    endpoint = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        # The web app's own host check answers for the host in production; a token, never a
        # cookie, is what reaches a reader's data, so a rebound name finds nothing private.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    # A stateless server keeps no stream for a client to listen on: the protocol's answer to
    # GET is then 405, where the SDK would hold the request open for good.
    no_stream = Route(MCP_PATH, _no_stream, methods=["GET"], include_in_schema=False)
    return [no_stream, *endpoint.routes]


async def _no_stream(_request: Request) -> Response:
    return PlainTextResponse(
        "this MCP endpoint is stateless: POST each request",
        status_code=405,
        headers={"Allow": "POST"},
    )


def serve_stdio(settings: Settings, token: str | None, clock: Clock = utc_now) -> None:
    """Answer one assistant over stdin and stdout until it hangs up."""
    engine = make_engine(settings, role="web")
    try:
        context = build_context(settings, make_session_factory(engine), clock)
        anyio.run(build_server(context, token).run_stdio_async)
    finally:
        engine.dispose()
