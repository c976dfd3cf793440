"""The responses the demo's live ingest reads: the bundled sample's own latest day, written in
the shapes arXiv's feed and Hugging Face's Daily Papers API answer in.

The demo used to replay recordings of 2023 (arXiv's feed software run on its test database:
"Mysteries of the Universe" by "Very Real Sr."), which put a day two years before the sample
into the site, with papers no reader should see, and made ``/status`` red. These responses
hold only what the sample holds, for its latest announcement day:

* the RSS listing of the day (the layout of a real ``rss.arxiv.org`` feed, recorded in
  ``tests/fixtures/arxiv_rss``): every paper first listed that day, as ``new`` when its first
  category is in one of the feed's archives, else ``cross``;
* the Daily Papers page of the day (the layout of ``huggingface.co/api/daily_papers``, recorded
  in ``tests/fixtures/hf_daily``): the sample's signals of that day whose paper the sample
  holds, so the page asks arXiv for no paper the replay could not answer.

The arXiv API is not replayed: the sample has no versions or submission times for it to
answer with, and made-up ones would be stored as the papers' metadata.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from zoneinfo import ZoneInfo

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


def daily_papers(signals: Iterable[Paper], day: date, known: Iterable[str]) -> bytes:
    """The Daily Papers page of ``day``: the signals of that day whose paper is ``known``."""
    stored = set(known)
    items = [
        _daily_item(signal)
        for signal in signals
        if signal["daily_date"] == day.isoformat() and signal["arxiv_id"] in stored
    ]
    return json.dumps(items, indent=2).encode()


def _daily_item(signal: Paper) -> dict[str, Any]:
    organization = {"fullname": signal["organization"]} if signal.get("organization") else None
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
