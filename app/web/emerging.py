"""The emerging-topic radar's page and its Atom feed: a week's flags
(:func:`app.services.radar.emerging_week`) drawn as cards with their weekly bars, and one
feed entry per flagged subject, newest week first.

A week with no flags says why: the store does not reach back over the radar's weeks, or no
subject burst.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from sqlalchemy.orm import Session

from app.core.tex import readable
from app.services.radar import EmergingFlag, PaperLink, RadarParams, emerging_week
from app.web.accuracy import EMERGING, RecordedFigure
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

BAR_WIDTH = 12
BAR_HEIGHT = 40
ENTRIES = 50


@dataclass(frozen=True, slots=True)
class Bar:
    week: date
    papers: int
    x: int
    height: float


@dataclass(frozen=True, slots=True)
class EmergingCard:
    position: int
    label: str
    new_phrases: list[str]
    bars: list[Bar]  # papers per week, oldest first
    baseline_share: float
    recent_share: float
    week_share: float
    founding: list[PaperLink]
    first: PaperLink
    topic_id: int | None
    topic_label: str | None
    computed_at: datetime

    @property
    def rise(self) -> float:
        """How many times its baseline share the recent weeks' share is."""
        return self.recent_share / self.baseline_share if self.baseline_share else float("inf")


@dataclass(frozen=True, slots=True)
class EmergingPage:
    week: date | None  # the Monday of the week shown
    weeks: list[date]  # every week with flags, newest first
    cards: list[EmergingCard]
    too_short: str | None
    params: RadarParams
    short_history: bool = False  # no baseline: too few weeks stored for the radar to judge
    recorded: RecordedFigure = EMERGING
    bar_width: int = BAR_WIDTH
    bar_height: int = BAR_HEIGHT


def emerging_page(session: Session, week: date | None, model: str) -> EmergingPage:
    """The flags of ``week`` (a Monday; None: the newest week with flags)."""
    found = emerging_week(session, week, model)
    return EmergingPage(
        week=found.week,
        weeks=found.weeks,
        cards=[_card(flag) for flag in found.flags],
        too_short=found.too_short,
        params=found.params,
        short_history=found.short_history,
    )


def _card(flag: EmergingFlag) -> EmergingCard:
    return EmergingCard(
        position=flag.position,
        label=flag.label,
        new_phrases=flag.new_phrases,
        bars=_bars(flag.weekly_papers),
        baseline_share=flag.baseline_share,
        recent_share=flag.recent_share,
        week_share=flag.week_share,
        founding=flag.founding,
        first=flag.first,
        topic_id=flag.topic_id,
        topic_label=flag.topic_label,
        computed_at=flag.computed_at,
    )


def _bars(weekly: list[tuple[date, int]]) -> list[Bar]:
    tallest = max([*(papers for _, papers in weekly), 1])
    return [
        Bar(
            week=week,
            papers=papers,
            x=n * BAR_WIDTH,
            height=round(BAR_HEIGHT * papers / tallest, 1),
        )
        for n, (week, papers) in enumerate(weekly)
    ]


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
