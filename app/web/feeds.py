"""Feeds of an edition for readers: RSS 2.0, Atom 1.0 and JSON Feed 1.1 (pure).

Every feed is built from the same :class:`FeedSpec`; XML goes through ElementTree, which
escapes text, after characters XML cannot hold (C0 controls) are dropped. Every summary is
plain text (an abstract may hold ``<script>`` or ``<b>``, which must show as text): Atom says
so with ``type="text"``, JSON Feed with ``content_text``; RSS descriptions are HTML by custom
and readers render them, so there the text is HTML-escaped first (each paragraph a ``<p>``).

Every item names the paper's authors: Atom as ``<author><name>``, JSON Feed as ``authors``, and
RSS as Dublin Core ``<dc:creator>``, since RSS 2.0's own ``<author>`` must be an email address.

The small Atom feeds built beside pages (the scorecard, the radar, the week in review) share
the parts at the end: the feed's head, text and link elements, and a day as an Atom time.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from email.utils import format_datetime
from typing import Any
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.core.tex import readable
from app.web.view_models import Card

ATOM = "http://www.w3.org/2005/Atom"
DUBLIN_CORE = "http://purl.org/dc/elements/1.1/"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MEDIA_TYPES = {
    "rss": "application/rss+xml; charset=utf-8",
    "atom": "application/atom+xml; charset=utf-8",
    "json": "application/feed+json; charset=utf-8",
}


@dataclass(frozen=True)
class FeedSpec:
    title: str
    description: str
    site_url: str  # the public base URL, no trailing slash
    page_path: str  # the page this feed mirrors, e.g. "/?category=cs.LG"
    feed_path: str  # this feed's own path, e.g. "/feeds/daily.rss"
    updated: datetime
    cards: list[Card]


def clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def paper_url(spec: FeedSpec, card: Card) -> str:
    return f"{spec.site_url}/papers/{card.paper.arxiv_id}"


def published(card: Card, fallback: datetime) -> datetime:
    """When arXiv announced the paper (the feed's own time when unknown)."""
    day: date | None = card.paper.announced_on
    return fallback if day is None else datetime.combine(day, time(0), UTC)


def first_published(card: Card, fallback: datetime) -> datetime:
    """When the paper first appeared: its v1 submission where known, else its announcement."""
    announced = published(card, fallback)
    submitted = card.paper.submitted_at
    if submitted is None:
        return announced
    return min(submitted if submitted.tzinfo else submitted.replace(tzinfo=UTC), announced)


def paragraphs(card: Card) -> list[str]:
    """The abstract, then why the paper is in the edition (plain text)."""
    parts = [readable(card.paper.abstract)]
    if card.score is not None:
        parts.append(_why(card))
    if card.topic is not None:
        parts.append(f"Topic: {card.topic.label}.")
    return [clean(part) for part in parts]


def _why(card: Card) -> str:
    """The rank, the chance and the reasons in the words the page uses; the score's parts
    only for a scorer that gives no reasons."""
    rank = f"Rank {card.rank}" + (f", {card.chance_words}" if card.chance_words else "")
    if card.reasons_shown:
        return f"{rank}. Why: {'; '.join(r.text for r in card.reasons_shown)}."
    why = ", ".join(f"{part.name} {part.value:.3f}" for part in card.components)
    return f"{rank}, score {card.score:.3f} ({why})."


def summary(card: Card) -> str:
    return "\n\n".join(paragraphs(card))


def summary_html(card: Card) -> str:
    """The summary as HTML whose text is the summary: no markup of the abstract survives."""
    return "".join(f"<p>{html.escape(part, quote=False)}</p>" for part in paragraphs(card))


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = clean(text)
    return element


def rss(spec: FeedSpec) -> bytes:
    root = ET.Element("rss", {"version": "2.0", "xmlns:atom": ATOM, "xmlns:dc": DUBLIN_CORE})
    channel = _sub(root, "channel")
    _sub(channel, "title", spec.title)
    _sub(channel, "link", spec.site_url + spec.page_path)
    _sub(channel, "description", html.escape(spec.description, quote=False))
    _sub(channel, "lastBuildDate", format_datetime(spec.updated, usegmt=True))
    _sub(
        channel,
        "atom:link",
        href=spec.site_url + spec.feed_path,
        rel="self",
        type="application/rss+xml",
    )
    for card in spec.cards:
        _rss_item(_sub(channel, "item"), spec, card)
    return _xml(root)


def _rss_item(item: ET.Element, spec: FeedSpec, card: Card) -> None:
    _sub(item, "title", readable(card.paper.title))
    _sub(item, "link", paper_url(spec, card))
    _sub(item, "guid", paper_url(spec, card), isPermaLink="true")
    _sub(item, "description", summary_html(card))
    _sub(item, "pubDate", format_datetime(published(card, spec.updated), usegmt=True))
    for name in card.paper.authors:
        _sub(item, "dc:creator", name)
    for category in card.paper.categories:
        _sub(item, "category", category)


def atom(spec: FeedSpec) -> bytes:
    root = ET.Element("feed", {"xmlns": ATOM})
    _sub(root, "title", spec.title)
    _sub(root, "subtitle", spec.description)
    _sub(root, "id", spec.site_url + spec.feed_path)
    _sub(root, "updated", spec.updated.isoformat())
    _sub(root, "link", href=spec.site_url + spec.page_path, rel="alternate")
    _sub(root, "link", href=spec.site_url + spec.feed_path, rel="self")
    _sub(_sub(root, "author"), "name", "Paperboy")
    for card in spec.cards:
        entry = _sub(root, "entry")
        _sub(entry, "title", readable(card.paper.title))
        _sub(entry, "id", paper_url(spec, card))
        _sub(entry, "link", href=paper_url(spec, card), rel="alternate")
        _sub(entry, "published", first_published(card, spec.updated).isoformat())
        _sub(entry, "updated", published(card, spec.updated).isoformat())
        for name in card.paper.authors or ("Unknown",):
            _sub(_sub(entry, "author"), "name", name)
        for category in card.paper.categories:
            _sub(entry, "category", term=category)
        _sub(entry, "summary", summary(card), type="text")
    return _xml(root)


def json_feed(spec: FeedSpec) -> bytes:
    body: dict[str, Any] = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": spec.title,
        "description": spec.description,
        "home_page_url": spec.site_url + spec.page_path,
        "feed_url": spec.site_url + spec.feed_path,
        "language": "en",
        "items": [_json_item(spec, card) for card in spec.cards],
    }
    return json.dumps(body, ensure_ascii=False).encode()


def _json_item(spec: FeedSpec, card: Card) -> dict[str, Any]:
    return {
        "id": paper_url(spec, card),
        "url": paper_url(spec, card),
        "external_url": card.links["abstract"],
        "title": readable(card.paper.title),
        "content_text": summary(card),
        "date_published": published(card, spec.updated).isoformat(),
        "authors": [{"name": name} for name in card.paper.authors],
        "tags": list(card.paper.categories),
    }


def _xml(root: ET.Element) -> bytes:
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body


RENDERERS = {"rss": rss, "atom": atom, "json": json_feed}


# The parts of the small Atom feeds built beside pages.
def feed_head(title: str, page_url: str, feed_url: str, updated: date | None) -> ET.Element:
    """A feed element with its title, id, updated time, links and author."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    text(feed, "title", title)
    text(feed, "id", page_url)
    text(feed, "updated", day_stamp(updated) if updated else "1970-01-01T00:00:00Z")
    link(feed, page_url, "alternate")
    link(feed, feed_url, "self")
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    text(author, "name", "Paperboy")
    return feed


def text(parent: ET.Element, tag: str, value: str, kind: str | None = None) -> None:
    """A text element; ``kind``: its ``type`` attribute (Atom's text constructs)."""
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}")
    if kind is not None:
        element.set("type", kind)
    element.text = clean(value)


def link(parent: ET.Element, href: str, rel: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}link", rel=rel, href=href)


def day_stamp(day: date) -> str:
    """Midnight UTC of ``day`` as Atom writes a time."""
    return datetime.combine(day, time(0), UTC).isoformat().replace("+00:00", "Z")


def body(feed: ET.Element) -> bytes:
    written: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return written
