"""A local HTTP server replaying the recorded arXiv and Hugging Face responses of
``app/sample/recordings`` (``routes.json`` maps a path and its exact query to a file)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

RECORDINGS = Path(__file__).resolve().parents[2] / "sample" / "recordings"
Route = tuple[str, frozenset[tuple[str, str]]]


def load_routes(folder: Path = RECORDINGS) -> dict[Route, tuple[bytes, str]]:
    routes = json.loads((folder / "routes.json").read_text())
    return {
        (route["path"], frozenset(route["params"].items())): (
            (folder / route["file"]).read_bytes(),
            route["content_type"],
        )
        for route in routes
    }


def _handler(routes: dict[Route, tuple[bytes, str]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            params = frozenset(parse_qsl(parts.query, keep_blank_values=True))
            body, kind = routes.get((parts.path, params), (b"no recording", "text/plain"))
            self.send_response(200 if kind != "text/plain" else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the demo prints its own summary lines

    return Handler


@contextmanager
def replay_server(folder: Path = RECORDINGS) -> Iterator[str]:
    """Serve the recordings on a free port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(load_routes(folder)))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
