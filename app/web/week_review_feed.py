"""The week in review's Atom feed: one entry per week written up, newest first (pure)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

WEEK = timedelta(days=7)


def week_review_atom(weeks: list[tuple[date, dict[str, Any]]], site_url: str) -> bytes:
    """``weeks``: each week's Monday and its stored review, newest first."""
    feed = feed_head(
        "Paperboy: the week in review",
        f"{site_url}/week-in-review",
        f"{site_url}/feeds/week-in-review.atom",
        weeks[0][0] + WEEK if weeks else None,
    )
    for week, review in weeks:
        year, number, _ = week.isocalendar()
        page = f"{site_url}/week-in-review?week={year}-W{number:02d}"
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        text(entry, "title", f"The week of {week:%d %b %Y} in review")
        text(entry, "id", page)
        link(entry, page, "alternate")
        # Published on the Monday after the week: the day its review is whole.
        text(entry, "published", day_stamp(week + WEEK))
        text(entry, "updated", day_stamp(week + WEEK))
        text(entry, "summary", _summary(review), kind="text")
    return body(feed)


def _summary(review: dict[str, Any]) -> str:
    topics = "; ".join(f"{t['label']} ({t['trend']})" for t in review["topics"][:5])
    return (
        f"{review['papers']} papers; Hugging Face featured {review['featured']}, "
        f"{review['covered']} of them in the topics named. Topics: {topics}."
    )
