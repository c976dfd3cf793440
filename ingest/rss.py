"""arXiv's RSS 2.0 / Atom 1.0 listing feeds (``rss.arxiv.org/rss|atom/<cat>+<cat>``).

A feed carries the latest announcement only. Each item says how it is announced
(``arxiv:announce_type``): ``new`` and ``cross`` put the paper in that day's listing;
``replace`` and ``replace-cross`` are a new version of an older paper, which updates it and
never makes it a new paper. Parsing is pure (bytes in, items out); :func:`fetch_feed` is the
conditional GET around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import feedparser
import requests

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.names import collapse_whitespace
from ingest.errors import FeedFormatError, FetchError
from ingest.records import PaperRecord, RecordError, arxiv_categories, checked
from ingest.safe_xml import local_name, parse_xml

ANNOUNCED_TYPES = frozenset({"new", "cross"})
REPLACED_TYPES = frozenset({"replace", "replace-cross"})
_ABSTRACT_PREFIX = re.compile(r"^arXiv:\S+\s+Announce Type:\s*\S+\s*(?:Abstract:\s*)?", re.I)
_AUTHOR_SEPARATOR = re.compile(r",\s*|\s+and\s+")
_FEED_ROOTS = frozenset({"rss", "feed"})


@dataclass(frozen=True, slots=True)
class FeedItem:
    record: PaperRecord
    announce_type: str
    # The announcement day the feed lists the item under (also for replacements).
    listed_on: date


@dataclass(frozen=True, slots=True)
class Listing:
    items: list[FeedItem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FetchedFeed:
    body: bytes
    etag: str | None
    last_modified: str | None


def feed_url(settings: Settings, categories: tuple[str, ...]) -> str:
    base = settings.arxiv_rss_url.rstrip("/")
    return f"{base}/{settings.arxiv_feed_format}/{'+'.join(categories)}"


def parse_listing(body: bytes) -> Listing:
    """The items of a feed; items that cannot become a paper are listed in ``rejected``."""
    root = parse_xml(body, "listing feed")
    if local_name(root) not in _FEED_ROOTS:
        raise FeedFormatError(f"listing feed: expected RSS or Atom, got <{local_name(root)}>")
    listing = Listing()
    for number, entry in enumerate(feedparser.parse(body).entries, start=1):
        try:
            listing.items.append(parse_item(entry))
        except (FeedFormatError, RecordError) as error:
            listing.rejected.append(f"item {number}: {error}")
    return listing


def parse_item(entry: Any) -> FeedItem:
    arxiv_id = _identifier(entry)
    title = collapse_whitespace(entry.get("title", ""))
    if not title:
        raise FeedFormatError(f"{arxiv_id} has no title")
    announce_type = str(entry.get("arxiv_announce_type", "")).strip()
    if announce_type not in ANNOUNCED_TYPES | REPLACED_TYPES:
        raise FeedFormatError(f"{arxiv_id}: unknown announce type {announce_type!r}")
    listed_on = _listed_on(entry, arxiv_id)
    terms = [str(tag.get("term") or "").strip() for tag in entry.get("tags", [])]
    categories = arxiv_categories(terms)
    record = PaperRecord(
        arxiv_id=arxiv_id.base,
        version=arxiv_id.version,
        title=title,
        abstract=collapse_whitespace(_ABSTRACT_PREFIX.sub("", entry.get("summary", ""))),
        authors=_authors(entry.get("author", "")),
        categories=categories,
        primary_category=_primary(terms, categories),
        doi=entry.get("arxiv_doi") or None,
        license=entry.get("rights") or None,
        announced_on=listed_on if announce_type in ANNOUNCED_TYPES else None,
    )
    return FeedItem(checked(record), announce_type, listed_on)


def _primary(terms: list[str], categories: tuple[str, ...]) -> str | None:
    """The item's first category, when it is an arXiv category: the primary one.

    arXiv's feed software (arXiv/arxiv-feed @ 110b5ab) writes an item's categories from the
    paper's abstract metadata, ``metadata.abs_categories.split(" ")`` (feed/fetch_data.py, line
    178), one ``<category>`` each in that order (feed/serializers/serializer.py), and arXiv
    writes that list primary first. The recorded feeds agree: arXiv's test papers 1234.56xx,
    whose primary is astro-ph, list astro-ph first even when cross-listed in cs or math, and
    2310.16106 lists cs.IT, its primary.
    """
    return categories[0] if terms and categories and terms[0] == categories[0] else None


def _identifier(entry: Any) -> Any:
    raw = entry.get("id") or entry.get("link") or ""
    if not raw:
        raise FeedFormatError("no arXiv id")
    try:
        return parse_arxiv_id(raw)
    except InvalidArxivIdError as error:
        raise FeedFormatError(str(error)) from error


def _listed_on(entry: Any, arxiv_id: object) -> date:
    raw = entry.get("published", "")
    try:
        stamp = parsedate_to_datetime(raw) if "," in raw else datetime.fromisoformat(raw)
    except (TypeError, ValueError) as error:
        raise FeedFormatError(f"{arxiv_id}: no announcement date ({raw!r})") from error
    # The feed's own offset is US/Eastern, the calendar arXiv announces in.
    return stamp.date()


def _authors(text: str) -> tuple[str, ...]:
    names = (collapse_whitespace(part) for part in _AUTHOR_SEPARATOR.split(text))
    return tuple(name for name in names if name)


def fetch_feed(
    session: requests.Session, url: str, etag: str | None, last_modified: str | None
) -> FetchedFeed | None:
    """GET the feed, or None when the server says it has not changed (HTTP 304)."""
    headers = {"If-None-Match": etag or "", "If-Modified-Since": last_modified or ""}
    response = session.get(url, headers={k: v for k, v in headers.items() if v})
    if response.status_code == 304:
        return None
    if response.status_code != 200:
        raise FetchError(_refusal(url, response), response.status_code, response.content)
    return FetchedFeed(
        response.content, response.headers.get("ETag"), response.headers.get("Last-Modified")
    )


def _refusal(url: str, response: requests.Response) -> str:
    """arXiv answers a bad category with an error feed whose description says why."""
    try:
        root = parse_xml(response.content, "error feed")
    except FeedFormatError:
        return f"HTTP {response.status_code} from {url}"
    description = root.findtext("channel/description") or root.findtext(
        "{http://www.w3.org/2005/Atom}subtitle"
    )
    return f"HTTP {response.status_code} from {url}: {collapse_whitespace(description or '')}"
