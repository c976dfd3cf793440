"""The under-the-radar Atom feed: the newest judged week's picks, one entry each (pure)."""

from __future__ import annotations

from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.core.tex import readable
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text
from app.web.under_radar import UnderRadarPage


def under_radar_atom(page: UnderRadarPage, site_url: str) -> bytes:
    feed = feed_head(
        "Paperboy: under the radar",
        f"{site_url}/under-the-radar",
        f"{site_url}/feeds/under-the-radar.atom",
        page.judged_until,
    )
    for pick in page.picks:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        text(entry, "title", readable(pick.title))
        text(entry, "id", f"{site_url}/under-the-radar/{pick.arxiv_id}")
        link(entry, f"{site_url}/papers/{pick.arxiv_id}", "alternate")
        text(entry, "published", day_stamp(pick.announced_on))
        text(entry, "updated", day_stamp(pick.announced_on))
        topic = f" in the topic {pick.topic_label}" if pick.topic_label else ""
        summary = (
            f"Announced {pick.announced_on:%d %b %Y}{topic}: a {pick.chance:.0%} chance to be "
            f"featured from its text and topic alone, yet Hugging Face had not featured it."
        )
        text(entry, "summary", summary, kind="text")
    return body(feed)
