"""The ranking steps of a day, in order (topics and the day's edition, then week and month), and
the days that need them.

Each step takes a session (one unit of work per step, opened by the caller) and the settings;
the scorer is passed in; :func:`default_scorer` picks the one the settings name (the trending
model unless ``PAPERBOY_SCORER=baseline``).

An announcement day is a day some stored paper was announced on; days without one (weekends,
holidays) are skipped by whatever walks a range of days (:func:`announcement_days`);
:func:`unranked_days` are those no day edition ranks yet.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import Edition, Paper
from app.core.periods import span
from app.core.reads import latest_edition
from ranking.day_topics import TopicsSummary, build_topics
from ranking.editions import Publication, publish
from ranking.labels import Encode
from ranking.scoring import BaselineScorer, Scorer
from ranking.trending.live import LiveTrendingScorer
from ranking.trending.model import load_model


def default_scorer(settings: Settings, session: Session) -> Scorer:
    """The scorer editions are built with (the trending one reads its history in ``session``)."""
    if settings.scorer == "baseline":
        return BaselineScorer()
    model = load_model(settings.trending_model_path)
    return LiveTrendingScorer(model, session, settings.embedding_model)


def rank_day(
    session: Session, day: date, settings: Settings, scorer: Scorer, encode: Encode | None = None
) -> tuple[TopicsSummary, Publication]:
    """Topics of the day (with its trailing window, labelled by meaning too given ``encode``),
    then the day's edition."""
    topics = build_topics(session, day, settings, encode)
    session.flush()
    return topics, publish(session, "day", day, scorer, settings)


def publish_periods(
    session: Session, day: date, settings: Settings, scorer: Scorer
) -> list[Publication]:
    """The week and month editions that hold ``day``, rebuilt with it."""
    return [publish(session, period, day, scorer, settings) for period in ("week", "month")]


def refresh_editions(
    session: Session, day: date, settings: Settings, scorer: Scorer
) -> list[Publication]:
    """The day's published editions (day, week, month) rebuilt with the community signals seen
    so far, on the day's stored topics; an edition whose order is unchanged stays as it is.
    Nothing before the day itself is published (the daily job ranks it first)."""
    if latest_edition(session, "day", day) is None:
        return []
    day_edition = publish(session, "day", day, scorer, settings)
    return [day_edition, *publish_periods(session, day, settings, scorer)]


def announcement_days(session: Session, first: date, last: date) -> list[date]:
    """The days in ``first..last`` some stored paper was announced on, oldest first."""
    query = (
        select(Paper.announced_on)
        .where(Paper.announced_on >= first, Paper.announced_on <= last)
        .distinct()
        .order_by(Paper.announced_on)
    )
    return [day for day in session.scalars(query) if day is not None]


def ranked_days(session: Session) -> list[date]:
    """The days a day edition was published for, oldest first."""
    query = select(Edition.edition_date).where(Edition.period == "day").distinct()
    return sorted(session.scalars(query))


def unranked_days(session: Session, until: date) -> list[date]:
    """Announcement days up to ``until`` with no day edition, from the oldest ranked day on.

    These are the gaps a missed or failed run left. Before anything is ranked there are none:
    a bulk import of years of papers is history to fill by hand (``paperboy rank --from
    --to``), not work for one daily run.
    """
    oldest = session.scalar(select(func.min(Edition.edition_date)).where(Edition.period == "day"))
    if oldest is None:
        return []
    ranked = set(ranked_days(session))
    return [day for day in announcement_days(session, oldest, until) if day not in ranked]


def closing_days(days: list[date]) -> list[date]:
    """Of ``days`` (oldest first), those after which their week and month are published: the
    last day ranked of each week and of each month, so filling a range builds every week and
    month once, from all of its ranked days, instead of once per day."""
    followers: list[date | None] = [*days[1:], None] if days else []
    return [
        day
        for day, following in zip(days, followers, strict=True)
        if following is None or _periods(day) != _periods(following)
    ]


def _periods(day: date) -> tuple[date, date]:
    return span("week", day).key, span("month", day).key
