"""The ranking steps of a day, in order: topics and the day's edition, then week and month.

Each step takes a session (one unit of work per step, opened by the caller) and the settings;
the scorer is passed in; :func:`default_scorer` picks the one the settings name (the trending
model unless ``PAPERBOY_SCORER=baseline``).
"""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.editions import latest_edition
from ranking.baseline import BaselineScorer
from ranking.day_topics import TopicsSummary, build_topics
from ranking.editions import Publication, publish
from ranking.labels import Encode
from ranking.scoring import Scorer
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
