"""Hugging Face's recorded daily pages, served with their thumbnails pointed at generated images.

Only the thumbnails' addresses are recorded (the CDN's images are not): each item's
``thumbnail`` is rewritten to the local server, which answers a PNG Pillow draws, the size
of Hugging Face's social cards and a colour of its own per paper.
"""

from __future__ import annotations

import io
import json
from datetime import date
from typing import Any

from PIL import Image

from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from tests.conftest import FIXTURES, Database
from tests.ingest.recorded_server import RecordedServer, Reply

JSON = {"Content-Type": "application/json"}
PNG = {"Content-Type": "image/png"}
CARD_SIZE = (1200, 648)


def recorded_items(day: date) -> list[dict[str, Any]]:
    """The raw recorded answer of ``/api/daily_papers?date=day``, decoded."""
    path = FIXTURES / "hf_daily" / f"daily_papers_{day.isoformat()}.json"
    items: list[dict[str, Any]] = json.loads(path.read_bytes())
    return items


def png(size: tuple[int, int] = CARD_SIZE, colour: tuple[int, int, int] = (30, 90, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def thumbnail_path(arxiv_id: str) -> str:
    return f"/social-thumbnails/papers/{arxiv_id}.png"


def serve_day(
    server: RecordedServer, day: date, items: list[dict[str, Any]], images: bool = True
) -> None:
    """Serve ``items`` as the day's page, each thumbnail pointed at the server, which answers
    a generated image for each (unless ``images`` is false: the test adds its own)."""
    for number, item in enumerate(items):
        arxiv_id = item["paper"]["id"]
        item["thumbnail"] = f"{server.url}{thumbnail_path(arxiv_id)}"
        if images:
            colour = (number * 13 % 256, 90, 200)
            server.add(thumbnail_path(arxiv_id), {}, Reply(200, png(colour=colour), PNG))
    body = json.dumps(items).encode()
    server.add("/api/daily_papers", {"date": day.isoformat()}, Reply(200, body, JSON))


def store_papers_of(database: Database, items: list[dict[str, Any]]) -> None:
    """Store the page's papers from its own metadata, as if arXiv ingest had run before."""
    records = [
        PaperRecord(
            arxiv_id=item["paper"]["id"],
            version=1,
            title=item["paper"]["title"],
            abstract=item["paper"]["summary"],
            authors=tuple(author["name"] for author in item["paper"]["authors"]),
            categories=("cs.CV",),
        )
        for item in items
    ]
    with database.sessions.begin() as session:
        store_records(session, records)


def without_thumbnails(body: bytes) -> bytes:
    """A recorded page with its thumbnails' addresses left out: the tests of something else
    serve it, so that ingest asks no CDN on the internet (``test_hf_thumbnails`` serves them)."""
    items = json.loads(body)
    for item in items:
        item.pop("thumbnail", None)
    return json.dumps(items).encode()
