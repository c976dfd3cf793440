"""The bundled sample's latest day replayed: the responses the demo's live ingest reads, a
local HTTP server answering with them, and the demo's clock, which makes that day today.

The sample is a past week, so the demo's "now" is the afternoon of its latest announcement day
(:func:`demo_clock`): the live ingest asks for that day, and ``/status`` judges the data's
age by it, with the same rule as in production, and finds it current. Judged by the real clock,
the demo's data would be stale, and a real deployment's ``/status`` says so.

The responses are the sample's own latest day, written in the shapes arXiv's feed and Hugging
Face's Daily Papers API answer in.

The demo used to replay recordings of 2023 (arXiv's feed software run on its test database:
"Mysteries of the Universe" by "Very Real Sr."), which put a day two years before the sample
into the site, with papers no reader should see, and made ``/status`` red. These responses
hold only what the sample holds, for its latest announcement day:

* the RSS listing of the day (the layout of a real ``rss.arxiv.org`` feed, recorded in
  ``tests/fixtures/arxiv_rss``): every paper first listed that day, as ``new`` when its first
  category is in one of the feed's archives, else ``cross``;
* the Daily Papers page of the day (the layout of ``huggingface.co/api/daily_papers``, recorded
  in ``tests/fixtures/hf_daily``): the sample's signals of that day whose paper the sample
  holds, so the page asks arXiv for no paper the replay could not answer;
* a thumbnail for each of those papers, which the page names as Hugging Face's names its
  social cards: not Hugging Face's (the sample holds none), but a card Pillow draws here in a
  colour of the paper's own, fetched and stored by live ingest as a real one is.

The arXiv API is not replayed: the sample has no versions or submission times for it to
answer with, and made-up ones would be stored as the papers' metadata.

The demo's clock reads the afternoon of the sample's latest announcement day (US/Eastern),
moving on with the real clock, and never going back.

Every link the demo mails carries the time it was issued, and a link issued more than a minute
ahead of the clock that checks it is refused. So a clock made later (the site after a slow daily
job, a restarted demo) must never start behind a time an earlier one gave: each clock writes its
reading to a mark in the data folder whenever it has moved on ``MARK_EVERY`` since the last, and
a new clock starts past the last mark by more than that.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit
from xml.etree import ElementTree
from zoneinfo import ZoneInfo

from PIL import Image, ImageDraw
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.services.ingest import IngestReport, Source, ingest

EASTERN = ZoneInfo("America/New_York")  # the calendar arXiv announces in
_NAMESPACES = {
    "arxiv": "http://arxiv.org/schemas/atom",
    "dc": "http://purl.org/dc/elements/1.1/",
    "atom": "http://www.w3.org/2005/Atom",
}
Paper = Mapping[str, Any]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, gzipped or not."""
    raw = path.read_bytes()
    text = gzip.decompress(raw) if path.suffix == ".gz" else raw
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def latest_day(papers: Iterable[Paper]) -> date:
    """The sample's latest announcement day (a paper's first listing day)."""
    return max(date.fromisoformat(paper["listing_dates"][0]) for paper in papers)


def listing_feed(papers: Iterable[Paper], day: date, archives: Sequence[str]) -> bytes:
    """The RSS feed of ``archives`` (``("cs",)``) announcing ``day``: its papers first listed
    that day in one of those archives."""
    for prefix, uri in _NAMESPACES.items():
        ElementTree.register_namespace(prefix, uri)
    rss = ElementTree.Element("rss", version="2.0")
    channel = ElementTree.SubElement(rss, "channel")
    name = "+".join(archives)
    published = format_datetime(datetime.combine(day, time(), EASTERN))
    _texts(
        channel,
        [
            ("title", f"{', '.join(archives)} updates on arXiv.org"),
            ("link", f"http://rss.arxiv.org/rss/{name}"),
            ("description", f"{', '.join(archives)} updates on the arXiv.org e-print archive."),
            ("language", "en-us"),
            ("pubDate", published),
        ],
    )
    for paper in papers:
        kind = _announce_type(paper, day, archives)
        if kind is not None:
            _item(channel, paper, kind, published)
    feed: bytes = ElementTree.tostring(rss, encoding="utf-8", xml_declaration=True)
    return feed


def _announce_type(paper: Paper, day: date, archives: Sequence[str]) -> str | None:
    categories: list[str] = paper["categories"]
    if paper["listing_dates"][0] != day.isoformat():
        return None
    if _archive(categories[0]) in archives:
        return "new"
    return "cross" if any(_archive(category) in archives for category in categories) else None


def _archive(category: str) -> str:
    return category.split(".", 1)[0]


def _item(channel: ElementTree.Element, paper: Paper, kind: str, published: str) -> None:
    item = ElementTree.SubElement(channel, "item")
    arxiv_id = paper["id"]
    _texts(
        item,
        [
            ("title", paper["title"]),
            ("link", f"https://arxiv.org/abs/{arxiv_id}"),
            (
                "description",
                f"arXiv:{arxiv_id} Announce Type: {kind} \nAbstract: {paper['summary']}",
            ),
            ("guid", f"oai:arXiv.org:{arxiv_id}"),
            *(("category", category) for category in paper["categories"]),
            ("pubDate", published),
            (f"{{{_NAMESPACES['arxiv']}}}announce_type", kind),
            (f"{{{_NAMESPACES['dc']}}}creator", ", ".join(paper["authors"])),
        ],
    )
    item.find("guid").set("isPermaLink", "false")  # type: ignore[union-attr]


def _texts(parent: ElementTree.Element, children: Iterable[tuple[str, str]]) -> None:
    for tag, text in children:
        ElementTree.SubElement(parent, tag).text = text


def daily_papers(
    signals: Iterable[Paper], day: date, known: Iterable[str], base_url: str = ""
) -> bytes:
    """The Daily Papers page of ``day``: the signals of that day whose paper is ``known``,
    each naming its thumbnail on ``base_url`` (none without one)."""
    stored = set(known)
    items = [
        _daily_item(signal)
        for signal in signals
        if signal["daily_date"] == day.isoformat() and signal["arxiv_id"] in stored
    ]
    for item in items if base_url else []:
        item["thumbnail"] = base_url + thumbnail_path(item["paper"]["id"])
    return json.dumps(items, indent=2).encode()


def thumbnail_path(arxiv_id: str) -> str:
    return f"/social-thumbnails/papers/{arxiv_id}.png"


def drawn_card(arxiv_id: str) -> bytes:
    """A social card's shape in the paper's own colour (from its id), as a PNG."""
    red, green, blue = hashlib.sha256(arxiv_id.encode()).digest()[:3]
    card = Image.new("RGB", (600, 315), (red // 2 + 64, green // 2 + 64, blue // 2 + 64))
    drawing = ImageDraw.Draw(card)
    drawing.rectangle((40, 60, 560, 90), fill=(250, 250, 245))
    for line in range(4):
        drawing.rectangle((40, 130 + 35 * line, 520 - 60 * line, 145 + 35 * line), fill="white")
    out = io.BytesIO()
    card.save(out, "PNG")
    return out.getvalue()


def _daily_item(signal: Paper) -> dict[str, Any]:
    organization = _organization(signal)
    paper = {
        "id": signal["arxiv_id"],
        "authors": [{"name": name, "hidden": False} for name in signal.get("authors", [])],
        "publishedAt": signal.get("published_at"),
        "submittedOnDailyAt": signal.get("submitted_on_daily_at"),
        "title": signal["title"],
        "summary": signal.get("summary", ""),
        "upvotes": signal["upvotes"],
        "ai_keywords": signal.get("ai_keywords") or [],
        "githubRepo": signal.get("github_repo"),
        "githubStars": signal.get("github_stars"),
        "projectPage": signal.get("project_page"),
        "submittedOnDailyBy": {"user": signal.get("submitted_by")},
    }
    return {
        "paper": {key: value for key, value in paper.items() if value is not None},
        "publishedAt": signal.get("daily_published_at"),
        "title": signal["title"],
        "numComments": signal.get("num_comments") or 0,
        "submittedBy": {"name": signal.get("submitted_by")},
        **({"organization": organization} if organization else {}),
    }


def _organization(signal: Paper) -> dict[str, str] | None:
    """The page's organization object: its display name, and its slug (the name an
    organization's page is found by) where the sample knows it."""
    if not signal.get("organization"):
        return None
    slug = {"name": signal["organization_slug"]} if signal.get("organization_slug") else {}
    return {**slug, "fullname": signal["organization"]}


SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample"
SAMPLE = SAMPLE_DIR / "arxiv_listings_sample.jsonl.gz"
SAMPLE_SIGNALS = SAMPLE_DIR / "hf_daily_sample.jsonl"
Route = tuple[str, frozenset[tuple[str, str]]]


def sample_routes(
    archives: Sequence[str], base_url: str = ""
) -> tuple[date, dict[Route, tuple[bytes, str]]]:
    """The sample's latest announcement day, and the responses of that day by path and query:
    the RSS feed of ``archives``, the Hugging Face Daily Papers page and, served at
    ``base_url``, its papers' thumbnails."""
    papers = read_jsonl(SAMPLE)
    day = latest_day(papers)
    feed = listing_feed(papers, day, archives)
    signals = read_jsonl(SAMPLE_SIGNALS)
    page = daily_papers(signals, day, (paper["id"] for paper in papers), base_url)
    cards: dict[Route, tuple[bytes, str]] = {
        (thumbnail_path(item["paper"]["id"]), frozenset()): (
            drawn_card(item["paper"]["id"]),
            "image/png",
        )
        for item in json.loads(page)
        if "thumbnail" in item
    }
    return day, {
        (f"/rss/{'+'.join(archives)}", frozenset()): (feed, "application/rss+xml"),
        ("/api/daily_papers", frozenset({("date", day.isoformat())})): (page, "application/json"),
        **cards,
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
    """Serve ``routes`` on a free port; yields the base URL (``routes`` may be filled then:
    the answers name the server's own address)."""
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
    arXiv API is not replayed: see above)."""
    listing = ingest(settings, sessions, now, source=Source.RSS, categories=archives)
    signals = ingest(settings, sessions, now, source=Source.HF, categories=archives)
    return IngestReport(listing.sources + signals.sources)


# The hour on the sample's latest day: that day's announcement is out (20:00 the evening
# before), the next one not yet.
DEMO_HOUR = time(14, 0)
MARK_FILE = "demo-clock"
MARK_EVERY = timedelta(seconds=5)


class DemoClock:
    """The demo's now; with a ``mark`` file, it starts past every reading a clock with the
    same mark gave before (thread-safe: the site reads it from many threads)."""

    def __init__(self, day: date, mark: Path | None = None, real: Clock = utc_now) -> None:
        start = datetime.combine(day, DEMO_HOUR, EASTERN)
        last = None if mark is None else read_mark(mark)
        if last is not None:
            start = max(start, last + 2 * MARK_EVERY)
        self._start, self._started, self._real, self._mark = start, real(), real, mark
        self._marked: datetime | None = None
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        now = self._start + (self._real() - self._started)
        if self._mark is not None and (self._marked is None or now - self._marked >= MARK_EVERY):
            self._write_mark(self._mark, now)
        return now

    def _write_mark(self, mark: Path, now: datetime) -> None:
        with self._lock:
            if self._marked is not None and now <= self._marked:
                return
            handle, temporary = tempfile.mkstemp(dir=mark.parent, prefix=f".{mark.name}.")
            with os.fdopen(handle, "w") as out:
                out.write(now.isoformat())
            Path(temporary).replace(mark)
            self._marked = now


def read_mark(mark: Path) -> datetime | None:
    """The last reading a demo clock marked, or None (no mark, or one that is no time)."""
    try:
        marked = datetime.fromisoformat(mark.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return marked if marked.tzinfo is not None else None


def demo_clock(day: date, data_dir: Path | None = None, real: Clock = utc_now) -> Clock:
    """The demo's clock for the sample's latest ``day``, marked in ``data_dir`` if given."""
    return DemoClock(day, None if data_dir is None else data_dir / MARK_FILE, real)
