"""A local HTTP server answering the demo's live ingest with the bundled sample's own latest
day (:mod:`app.cli.demo.responses`).

The sample is a past week, so the demo's "now" is the afternoon of its latest announcement day
(:mod:`app.cli.demo.clock`): the live ingest asks for that day, and ``/status`` judges the data's
age by it, with the same rule as in production, and finds it current. Judged by the real clock,
the demo's data would be stale, and a real deployment's ``/status`` says so.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from sqlalchemy.orm import Session, sessionmaker

from app.cli.demo import responses
from app.core.config import Settings
from app.services.ingest import IngestReport, Source, ingest

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample"
SAMPLE = SAMPLE_DIR / "arxiv_listings_sample.jsonl.gz"
SAMPLE_SIGNALS = SAMPLE_DIR / "hf_daily_sample.jsonl"
Route = tuple[str, frozenset[tuple[str, str]]]


def sample_routes(archives: Sequence[str]) -> tuple[date, dict[Route, tuple[bytes, str]]]:
    """The sample's latest announcement day, and the responses of that day by path and query:
    the RSS feed of ``archives`` and the Hugging Face Daily Papers page."""
    papers = responses.read_jsonl(SAMPLE)
    day = responses.latest_day(papers)
    feed = responses.listing_feed(papers, day, archives)
    signals = responses.read_jsonl(SAMPLE_SIGNALS)
    page = responses.daily_papers(signals, day, (paper["id"] for paper in papers))
    return day, {
        (f"/rss/{'+'.join(archives)}", frozenset()): (feed, "application/rss+xml"),
        ("/api/daily_papers", frozenset({("date", day.isoformat())})): (page, "application/json"),
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
def replay_server(routes: dict[Route, tuple[bytes, str]]) -> Iterator[str]:
    """Serve ``routes`` on a free port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(routes))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def replayed_ingest(
    settings: Settings, sessions: sessionmaker[Session], now: datetime, archives: tuple[str, ...]
) -> IngestReport:
    """The live ingest of the replayed day: its RSS listing, then its Hugging Face page (the
    arXiv API is not replayed: see :mod:`app.cli.demo.responses`)."""
    listing = ingest(settings, sessions, now, source=Source.RSS, categories=archives)
    signals = ingest(settings, sessions, now, source=Source.HF, categories=archives)
    return IngestReport(listing.sources + signals.sources)
