"""What the first pages weigh: bytes of HTML and JSON as built, on the wire, and DOM elements.

    .venv/bin/python -m benchmarks.page_weight [--data-dir DIR]

Serves ``create_app`` in this process (Starlette's test client, no network) over a data
directory that holds a ranked database (by default the demo's, built by ``paperboy demo
--no-serve`` into ``var/page-weight`` when missing) and asks each page with no encoding, with
gzip and with brotli, as a browser does. Prints, per page: its bytes, the bytes on the wire for
each encoding and the number of elements its HTML opens.
"""

from __future__ import annotations

import argparse
from html.parser import HTMLParser
from pathlib import Path

from fastapi.testclient import TestClient

from app.cli.main import main as paperboy
from app.core.config import Settings, get_settings
from app.web.app import create_app

PAGES = ("/", "/?period=week", "/api/daily_papers?limit=100", "/feeds/daily.atom")
ENCODINGS = ("identity", "gzip", "br")


class ElementCount(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("var/page-weight"))
    args = parser.parse_args()
    settings = get_settings(data_dir=args.data_dir, search_semantic=False)
    if not (args.data_dir / "paperboy.sqlite3").exists():
        paperboy(["demo", "--no-serve"], settings)
    measure(settings)


def measure(settings: Settings) -> None:
    print("| page | bytes | gzip on the wire | brotli on the wire | elements |")
    print("|---|---:|---:|---:|---:|")
    with TestClient(create_app(settings)) as client:
        for path in PAGES:
            sizes = [_wire(client, path, encoding) for encoding in ENCODINGS]
            body = client.get(path, headers={"Accept-Encoding": "identity"}).text
            count = ElementCount()
            count.feed(body)
            elements = count.elements if body.lstrip().startswith("<!doctype html") else "-"
            cells = " | ".join(f"{size:,}" for size in sizes)
            print(f"| {path} | {cells} | {elements} |")


def _wire(client: TestClient, path: str, encoding: str) -> int:
    answer = client.get(path, headers={"Accept-Encoding": encoding})
    return int(answer.headers.get("content-length", len(answer.content)))


if __name__ == "__main__":
    main()
