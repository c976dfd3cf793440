"""Reading the filled test database directly, to compare pages against what is stored."""

from __future__ import annotations

import re
from datetime import date

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.core.models import Edition, EditionItem, PaperTopic


def edition_ids(settings: Settings, period: str, key: date) -> list[str]:
    """The arXiv ids of the latest version of an edition, in rank order."""
    engine = make_engine(settings)
    try:
        with make_session_factory(engine)() as session:
            edition = session.scalars(
                select(Edition)
                .where(Edition.period == period, Edition.edition_date == key)
                .order_by(Edition.version.desc())
            ).first()
            assert edition is not None
            query = select(EditionItem.arxiv_id).where(EditionItem.edition_id == edition.id)
            return list(session.scalars(query.order_by(EditionItem.position)))
    finally:
        engine.dispose()


def a_topic_of(settings: Settings, day: date) -> tuple[int, list[str]]:
    """A topic of ``day`` and its papers of that day."""
    engine = make_engine(settings)
    try:
        with make_session_factory(engine)() as session:
            rows = session.execute(select(PaperTopic).where(PaperTopic.day == day)).scalars()
            by_topic: dict[int, list[str]] = {}
            for row in rows:
                by_topic.setdefault(row.topic_id, []).append(row.arxiv_id)
            topic_id = min(by_topic)
            return topic_id, by_topic[topic_id]
    finally:
        engine.dispose()


NEXT_PAGE = re.compile(r'<a href="([^"]+)" rel="next">Papers')


def whole_edition(client: TestClient, url: str) -> str:
    """Every page of the trending page at ``url``, following its "next" links, as one text."""
    pages: list[str] = []
    href: str | None = url
    while href is not None:
        pages.append(client.get(href.replace("&amp;", "&")).text)
        found = NEXT_PAGE.search(pages[-1])
        href = found.group(1) if found else None
    return "\n".join(pages)
