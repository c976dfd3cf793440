"""The emerging-topic radar's Atom feed: one entry per flagged subject, newest week first
(pure)."""

from __future__ import annotations

from datetime import date
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.core.tex import readable
from app.web.emerging import EmergingCard
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

ENTRIES = 50


def emerging_atom(weeks: list[tuple[date, list[EmergingCard]]], site_url: str) -> bytes:
    """``weeks``: each week's Monday and its flags, newest first."""
    feed = feed_head(
        "Paperboy: emerging topics",
        f"{site_url}/emerging",
        f"{site_url}/feeds/emerging.atom",
        weeks[0][0] if weeks else None,
    )
    entries = [(week, card) for week, cards in weeks for card in cards][:ENTRIES]
    for week, card in entries:
        _entry(feed, week, card, site_url)
    return body(feed)


def _entry(feed: ET.Element, week: date, card: EmergingCard, site_url: str) -> None:
    year, number, _ = week.isocalendar()
    anchor = f"{site_url}/emerging?week={year}-W{number:02d}#emerging-{card.position + 1}"
    entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
    text(entry, "title", f"Week of {week:%d %b %Y}: {card.label}")
    # The week's flags are found again each day it publishes: a subject keeps its id by its
    # first paper, not by its place in the list.
    text(entry, "id", f"{site_url}/emerging/{year}-W{number:02d}/{card.first.arxiv_id}")
    link(entry, anchor, "alternate")
    text(entry, "published", day_stamp(week))
    text(entry, "updated", card.computed_at.isoformat().replace("+00:00", "Z"))
    new = f" Phrases new to it: {', '.join(card.new_phrases)}." if card.new_phrases else ""
    founding = "; ".join(f"{readable(p.title)} ({p.arxiv_id})" for p in card.founding)
    summary = (
        f"{card.recent_share:.2%} of the recent weeks' papers, "
        f"against {card.baseline_share:.2%} in the weeks before.{new} Founding papers: {founding}."
    )
    text(entry, "summary", summary, kind="text")
