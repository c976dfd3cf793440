"""The scorecard's Atom feed: one entry per scored day, newest first (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.web.accuracy import AccuracyPage
from app.web.feeds import ATOM

ENTRIES = 30


def accuracy_atom(page: AccuracyPage, site_url: str) -> bytes:
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _text(feed, "title", "Paperboy: were we right?")
    _text(feed, "id", f"{site_url}/accuracy")
    newest = page.days[0].day if page.days else None
    _text(feed, "updated", _stamp(newest) if newest else "1970-01-01T00:00:00Z")
    _link(feed, f"{site_url}/accuracy", "alternate")
    _link(feed, f"{site_url}/feeds/accuracy.atom", "self")
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "Paperboy")
    for row in page.days[:ENTRIES]:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        found = row.skill
        _text(
            entry,
            "title",
            f"{row.day:%d %b %Y}: Brier skill {found.brier_skill:.3f}, "
            f"{found.featured} of {found.papers} papers featured",
        )
        _text(entry, "id", f"{site_url}/accuracy#day-{row.day.isoformat()}")
        _link(entry, f"{site_url}/accuracy#day-{row.day.isoformat()}", "alternate")
        _text(entry, "published", _stamp(row.day))
        _text(entry, "updated", _stamp(row.day))
        summary = (
            f"The day's chances against what Hugging Face featured: Brier skill "
            f"{found.brier_skill:.3f} against the day's base rate, expected calibration error "
            f"{found.ece:.3f}, model {page.model_id}"
            + (" (a day it was trained on)." if row.in_training else ".")
        )
        ET.SubElement(entry, f"{{{ATOM}}}summary", type="text").text = summary
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return body


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}{tag}").text = text


def _link(parent: ET.Element, href: str, rel: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}link", rel=rel, href=href)


def _stamp(day: object) -> str:
    moment = datetime.combine(day, time(0), UTC)  # type: ignore[arg-type]
    return moment.isoformat().replace("+00:00", "Z")
