"""The public scorecard's page (``/accuracy``) and its Atom feed: the serving model's record
(:func:`app.services.accuracy.model_record`) drawn as charts and tables, and one feed entry
per scored day, newest first.

Figures computed on too few days or papers to judge: the minimums below which a page says
so, and the figures recorded on enough data (``docs/benchmarks.md``) that it points to instead.

A page never prints a bare Brier skill over two days, nor a week's "what grew" with no weeks
before it to grow from: it names what is missing and where the figure that can be judged is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from xml.etree import ElementTree as ET  # builds, never parses: no untrusted XML is read here

from sqlalchemy.orm import Session

from app.core.explanations import chance_words
from app.services.accuracy import Bin, CalledPaper, ModelRecord, ScoredDay, Skill, model_record
from app.web.feeds import ATOM, body, day_stamp, feed_head, link, text

# Brier skill and calibration error swing by more than the model's whole lift from one day to
# the next (a day holds one to a dozen featured papers); two weeks of weekdays is where the
# scorecard's figure settled within its goal in the benchmark that records it.
MIN_SCORECARD_DAYS = 10
# Calibration bins are judged on the featured papers they hold: with fewer, each bin's share
# featured is zero or one paper's worth, and the reliability diagram shows noise.
MIN_SCORECARD_FEATURED = 30
# The week in review calls a topic new or rising against its own mean of these weeks before
# (ranking.week_review's window): with fewer stored, every topic reads as new.
REVIEW_WEEKS_BEFORE = 4


@dataclass(frozen=True, slots=True)
class RecordedFigure:
    """A figure measured on enough data, as ``docs/benchmarks.md`` records it."""

    words: str
    source: str  # the file and anchor that records it


SCORECARD = RecordedFigure(
    "Brier skill 0.317 and calibration error 0.010 over 16 days ranked live, the same as the "
    "model's evaluation on those days",
    "docs/benchmarks.md#f-scorecard",
)
EMERGING = RecordedFigure(
    "over 22 weeks of 2026, 38.2% of the radar's ten flags a week were still growing three and "
    "four weeks on, against 1.8% of the ten fastest-gaining clusters",
    "docs/benchmarks.md#f-emerging",
)
UNDER_RADAR = RecordedFigure(
    "over September to November 2025, 6.44% of its picks were featured later, 3.8 times the "
    "1.69% of random missed papers of the same topics and weeks",
    "docs/benchmarks.md#f-under-radar",
)
WEEK_REVIEW = RecordedFigure(
    "over 4 weeks, 63.9% of the featured papers sat in the review's 10 topics, against 10.1% "
    "in the 10 fastest-growing",
    "docs/benchmarks.md#f-week-review",
)

CHART = 240  # the charts' plotting square, in SVG units
ENTRIES = 30


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    size: float
    title: str


@dataclass(frozen=True)
class BinRow:
    """Reliability bins as the page lists them: bins whose chances read the same at the
    page's precision are merged, so no row reads "0.2% to 0.2%"."""

    label: str  # "0.1% to 0.7%", or one value where every chance in it reads the same
    low: float
    high: float
    mean_chance: float
    featured_share: float
    papers: int


@dataclass(frozen=True)
class CallRow:
    day: date
    arxiv_id: str
    title: str
    chance: str
    reasons: list[str]  # what Paperboy said about the paper on the day


@dataclass(frozen=True)
class AccuracyPage:
    model_id: str | None
    trained_from: date | None
    trained_until: date | None  # the first day the model never saw
    other_days: int  # days ranked by other model versions, left out
    overall: Skill | None
    after_training: Skill | None
    bins: list[Point]  # the reliability diagram: mean chance (x) and share featured (y)
    bin_rows: list[BinRow]
    weeks: list[Point]  # Brier skill per week, oldest first
    week_rows: list[tuple[date, Skill]]
    days: list[ScoredDay]
    hits: list[CallRow]
    missed: list[CallRow]
    overrated: list[CallRow]
    chart: int = CHART
    min_days: int = MIN_SCORECARD_DAYS
    min_featured: int = MIN_SCORECARD_FEATURED
    recorded: RecordedFigure = SCORECARD
    too_small: bool = True  # too few days or featured papers for its figures to be judged


def accuracy_page(session: Session, model_path: Path | None) -> AccuracyPage:
    record = model_record(session, model_path)
    rows = bin_rows(record.bins)
    return AccuracyPage(
        model_id=record.model_id,
        trained_from=record.trained_from,
        trained_until=record.trained_until,
        other_days=record.other_days,
        overall=record.overall,
        after_training=record.after_training,
        bins=_bin_points(rows),
        bin_rows=rows,
        weeks=_week_points(record),
        week_rows=record.weeks,
        days=record.days,
        hits=[_row(one) for one in record.hits],
        missed=[_row(one) for one in record.missed],
        overrated=[_row(one) for one in record.overrated],
        too_small=too_small(record.overall),
    )


def too_small(found: Skill | None) -> bool:
    """Whether a scorecard's figure stands on too few days or featured papers to be judged."""
    return (
        found is None or found.days < MIN_SCORECARD_DAYS or found.featured < MIN_SCORECARD_FEATURED
    )


def _row(one: CalledPaper) -> CallRow:
    return CallRow(
        day=one.day,
        arxiv_id=one.arxiv_id,
        title=one.title,
        chance=chance_words(one.chance),
        reasons=one.reasons,
    )


def bin_rows(bins: list[Bin]) -> list[BinRow]:
    """The bins, each merged with the next until its chances no longer read the same."""
    groups: list[list[Bin]] = []
    pending: list[Bin] = []
    for one in bins:
        pending.append(one)
        if _percent(pending[0].low) != _percent(one.high):
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    return [_merged(group) for group in groups]


def _percent(chance: float) -> str:
    return f"{chance:.1%}"


def _merged(group: list[Bin]) -> BinRow:
    papers = sum(one.papers for one in group)
    low, high = group[0].low, group[-1].high
    same = _percent(low) == _percent(high)
    return BinRow(
        label=_percent(low) if same else f"{_percent(low)} to {_percent(high)}",
        low=low,
        high=high,
        mean_chance=sum(one.mean_chance * one.papers for one in group) / papers,
        featured_share=sum(one.featured_share * one.papers for one in group) / papers,
        papers=papers,
    )


def _bin_points(bins: list[BinRow]) -> list[Point]:
    """Reliability bins in the chart's square: both axes from 0 to the largest value."""
    top = max([b.mean_chance for b in bins] + [b.featured_share for b in bins] + [0.01])
    return [
        Point(
            x=CHART * b.mean_chance / top,
            y=CHART * (1 - b.featured_share / top),
            size=3 + 5 * b.papers / max(one.papers for one in bins),
            title=f"chances {b.label}: {b.featured_share:.1%} featured ({b.papers} papers)",
        )
        for b in bins
    ]


def _week_points(record: ModelRecord) -> list[Point]:
    """Each week's Brier skill, from -1 (bottom) to 1 (top), weeks left to right."""
    count = max(len(record.weeks) - 1, 1)
    return [
        Point(
            x=CHART * index / count,
            y=CHART * (1 - (max(min(found.brier_skill, 1.0), -1.0) + 1) / 2),
            size=3,
            title=f"week of {monday:%d %b %Y}: Brier skill {found.brier_skill:.3f}",
        )
        for index, (monday, found) in enumerate(record.weeks)
    ]


def accuracy_atom(page: AccuracyPage, site_url: str) -> bytes:
    """One entry per scored day, newest first."""
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
            + f" One day is too few to judge; on enough days: {SCORECARD.words} "
            f"({SCORECARD.source})."
        )
        text(entry, "summary", summary, kind="text")
    return body(feed)
