"""Paperboy as an MCP server (the Model Context Protocol, on its official Python SDK), for
assistants: the tools and resources of :mod:`app.web.mcp.server`, served over streamable
HTTP at ``/mcp`` by the web app and over stdio by ``paperboy mcp``.

The public tools (:mod:`app.web.mcp.public`) read what the site and the JSON API show; the
reader's own (:mod:`app.web.mcp.personal`) need a personal access token.
"""
