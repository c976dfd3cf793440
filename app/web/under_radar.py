"""Under the radar on the site: a week's picks (:func:`app.services.radar.under_radar_week`)
as its Atom feed gives them, and the labelled slot of a reader's "For you"."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from app.core.tex import readable
from app.services.radar import RadarRule, UnderRadarPick, UnderRadarWeek
from app.web.accuracy import UNDER_RADAR, RecordedFigure
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

SLOT_SIZE = 3


@dataclass(frozen=True, slots=True)
class RadarSlot:
    """The labelled under-the-radar slot of a reader's "For you": a few of the newest judged
    week's picks, from the topics they follow first."""

    week: date | None = None
    picks: list[UnderRadarPick] = field(default_factory=list)
    followed: frozenset[int] = frozenset()  # the topics among the picks the reader follows


@dataclass(frozen=True, slots=True)
class UnderRadarPage:
    """A week's picks as ``/under-the-radar`` shows them, saying when the site's history is
    too short for them to be judged: a pick's chance weighs how fast its topic grows against
    the announcement days before (the topic window), which a new site does not hold yet."""

    week: date | None
    picks: list[UnderRadarPick]
    judged_until: date | None
    rule: RadarRule
    judged_whole: bool
    days_before: int
    days_needed: int
    too_short: bool
    recorded: RecordedFigure = UNDER_RADAR


def under_radar_page(found: UnderRadarWeek, topic_window_days: int) -> UnderRadarPage:
    """``found`` for its page; ``topic_window_days``: the days a topic's growth is read over,
    the day itself among them."""
    needed = topic_window_days - 1
    return UnderRadarPage(
        week=found.week,
        picks=found.picks,
        judged_until=found.judged_until,
        rule=found.rule,
        judged_whole=found.judged_whole,
        days_before=found.days_before,
        days_needed=needed,
        too_short=found.week is not None and found.days_before < needed,
    )


def for_reader(
    picks: Sequence[UnderRadarPick],
    followed: Collection[int],
    muted: Collection[int],
    shown: Collection[str],
) -> list[UnderRadarPick]:
    """A reader's share of the week's picks: none of a muted topic or already among their
    cards; those of followed topics first, each part best first."""
    kept = [p for p in picks if p.topic_id not in muted and p.arxiv_id not in shown]
    mine = [p for p in kept if p.topic_id in followed]
    return (mine + [p for p in kept if p.topic_id not in followed])[:SLOT_SIZE]


def reader_slot(
    page: UnderRadarWeek, followed: Sequence[int], muted: Sequence[int], shown: Collection[str]
) -> RadarSlot:
    """The slot of a reader who follows and mutes these topics, from the newest judged week's
    page, leaving out the papers ``shown`` among their cards."""
    mine = set(followed)
    picks = for_reader(page.picks, mine, set(muted), shown)
    topics = frozenset(p.topic_id for p in picks if p.topic_id is not None and p.topic_id in mine)
    return RadarSlot(week=page.week, picks=picks, followed=topics)


def under_radar_atom(page: UnderRadarWeek, site_url: str) -> bytes:
    """The newest judged week's picks, one entry each."""
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
            f"Announced {pick.announced_on:%d %b %Y}{topic}: a {pick.chance_words}, yet "
            f"Hugging Face had not featured it."
        )
        text(entry, "summary", summary, kind="text")
    return body(feed)
