"""A real local HTTP server that replays recorded responses and logs when requests arrive.

Routes are keyed by path and the exact set of query parameters. A route may hold several
replies, served in turn (the last one repeats), to replay e.g. a 503 followed by a 200.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

RouteKey = tuple[str, frozenset[tuple[str, str]]]


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    # Send only this many body bytes, then drop the connection (a reset mid-body).
    cut_after: int | None = None
    # Wait this long before answering (to provoke a client timeout).
    delay: float = 0.0


@dataclass(frozen=True)
class Arrival:
    at: float  # time.time(), comparable across processes
    path: str
    params: dict[str, str]
    headers: dict[str, str]


class RecordedServer:
    def __init__(self) -> None:
        self.routes: dict[RouteKey, list[Reply]] = {}
        self.arrivals: list[Arrival] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, path: str, params: Mapping[str, str], *replies: Reply) -> None:
        self.routes[(path, frozenset(params.items()))] = list(replies)

    def reply_for(self, path: str, params: dict[str, str]) -> Reply:
        with self._lock:
            replies = self.routes.get((path, frozenset(params.items())))
            if not replies:
                return Reply(404, b"no recording for this request", {"Content-Type": "text/plain"})
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def log(self, arrival: Arrival) -> None:
        with self._lock:
            self.arrivals.append(arrival)

    def serve(self) -> threading.Thread:
        thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler_for(server: RecordedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            params = dict(parse_qsl(parts.query, keep_blank_values=True))
            server.log(
                Arrival(
                    at=time.time(),
                    path=parts.path,
                    params=params,
                    headers=dict(self.headers.items()),
                )
            )
            # A client that gave up (a timeout test) leaves nothing to answer.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(server.reply_for(parts.path, params))

        def _send(self, reply: Reply) -> None:
            time.sleep(reply.delay)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.send_header("Connection", "close")
            self.end_headers()
            body = reply.body if reply.cut_after is None else reply.body[: reply.cut_after]
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output quiet

    return Handler


@contextmanager
def recorded_server() -> Iterator[RecordedServer]:
    server = RecordedServer()
    server.serve()
    try:
        yield server
    finally:
        server.close()
