"""The scorecard's Atom feed: one entry per scored day, newest first (pure)."""

from __future__ import annotations

from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.web.accuracy import AccuracyPage
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

ENTRIES = 30


def accuracy_atom(page: AccuracyPage, site_url: str) -> bytes:
    newest = page.days[0].day if page.days else None
    feed = feed_head(
        "Paperboy: were we right?",
        f"{site_url}/accuracy",
        f"{site_url}/feeds/accuracy.atom",
        newest,
    )
    for row in page.days[:ENTRIES]:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        found = row.skill
        text(
            entry,
            "title",
            f"{row.day:%d %b %Y}: Brier skill {found.brier_skill:.3f}, "
            f"{found.featured} of {found.papers} papers featured",
        )
        text(entry, "id", f"{site_url}/accuracy#day-{row.day.isoformat()}")
        link(entry, f"{site_url}/accuracy#day-{row.day.isoformat()}", "alternate")
        text(entry, "published", day_stamp(row.day))
        text(entry, "updated", day_stamp(row.day))
        summary = (
            f"The day's chances against what Hugging Face featured: Brier skill "
            f"{found.brier_skill:.3f} against the day's base rate, expected calibration error "
            f"{found.ece:.3f}, model {page.model_id}"
            + (" (a day it was trained on)." if row.in_training else ".")
        )
        text(entry, "summary", summary, kind="text")
    return body(feed)
