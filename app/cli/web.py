"""``paperboy web``: serve the site with uvicorn's workers, after checking once, in this
parent process, that it can serve at all.

uvicorn's supervisor respawns a worker that exits, so a worker refusing bad settings would be
started again for ever while the port refuses connections; checked here first, the command
exits 1 with the reason in one line per problem and no worker starts.
"""

from __future__ import annotations

import argparse

import uvicorn

from app.core.config import Settings
from app.core.settings_check import EXIT_REFUSED
from app.services.preflight import refuse_to_serve

APP = "app.web.app:create_app"


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--proxy-headers",
        action="store_true",
        help="trust X-Forwarded-For/-Proto from --forwarded-allow-ips (behind a proxy)",
    )
    parser.add_argument(
        "--forwarded-allow-ips", default="127.0.0.1", help="the proxy's addresses, comma-separated"
    )


def run_web(args: argparse.Namespace, settings: Settings) -> int:
    if refuse_to_serve(settings):
        return EXIT_REFUSED
    uvicorn.run(
        APP,
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=args.proxy_headers,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    return 0
