"""The parts of the small Atom feeds built beside pages (the scorecard, the radar): the feed's
head, text and link elements, and a day as an Atom time (pure)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.web.feeds import ATOM, clean


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
