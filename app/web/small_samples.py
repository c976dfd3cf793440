"""Figures computed on too few days or papers to judge: the minimums below which a page says
so, and the figures recorded on enough data (``docs/benchmarks.md``) that it points to instead.

A page never prints a bare Brier skill over two days, nor a week's "what grew" with no weeks
before it to grow from: it names what is missing and where the figure that can be judged is.
"""

from __future__ import annotations

from dataclasses import dataclass

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
WEEK_REVIEW = RecordedFigure(
    "over 4 weeks, 63.9% of the featured papers sat in the review's 10 topics, against 10.1% "
    "in the 10 fastest-growing",
    "docs/benchmarks.md#f-week-review",
)
