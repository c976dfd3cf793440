"""``paperboy mcp``: Paperboy's MCP server over stdio, for an assistant that starts it as a
command (``app.web.mcp``; the web app serves the same tools at ``/mcp``).

stdout carries the protocol alone: what the command says (a refused setting, a database
out of date) goes to stderr. The reader's own tools act for the reader whose personal access
token is in ``PAPERBOY_MCP_TOKEN``; without one, they answer that they need it.
"""

from __future__ import annotations

import argparse
import os

from app.core.config import Settings
from app.core.settings_check import EXIT_REFUSED
from app.services.preflight import refuse_to_serve
from app.web.mcp.server import serve_stdio

PROGRAM = "paperboy mcp"
TOKEN_VARIABLE = "PAPERBOY_MCP_TOKEN"  # noqa: S105  (the variable's name)


def run_mcp(_args: argparse.Namespace, settings: Settings) -> int:
    if refuse_to_serve(settings, PROGRAM):
        return EXIT_REFUSED
    serve_stdio(settings, os.environ.get(TOKEN_VARIABLE) or None)
    return 0
