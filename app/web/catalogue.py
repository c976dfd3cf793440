"""What the site holds, listed: the sitemap's pages, and whether a category is stored at all
(SQLAlchemy reads, no commits).

The sitemap lists, newest first, the trending editions, the topics, the papers of published
editions and their authors, until :data:`app.web.sitemap.MAX_URLS` is reached: each read asks
only for what is left of that budget, so a large archive costs bounded queries.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from app.core.models import Edition, EditionItem, PaperAuthor, PaperCategory, TopicDay
from app.web.sitemap import MAX_URLS, SiteUrl


def category_is_stored(session: Session, category: str) -> bool:
    """Whether any stored paper is in ``category`` (exact, as arXiv spells it)."""
    found = session.scalar(
        select(PaperCategory.arxiv_id).where(PaperCategory.category == category).limit(1)
    )
    return found is not None


def site_urls(session: Session, limit: int = MAX_URLS) -> list[SiteUrl]:
    """The pages worth a crawler's visit, most useful first, at most ``limit``."""
    urls = _editions(session, limit)
    for read in (_topics, _papers, _authors):
        if len(urls) >= limit:
            break
        urls += read(session, limit - len(urls))
    return urls[:limit]


def _editions(session: Session, limit: int) -> list[SiteUrl]:
    """The home page, then each edition (any version: the page shows the latest)."""
    newest = func.max(Edition.published_at).label("published_at")
    rows = session.execute(
        select(Edition.period, Edition.edition_date, newest)
        .group_by(Edition.period, Edition.edition_date)
        .order_by(Edition.edition_date.desc(), Edition.period)
        .limit(limit - 1)
    ).all()
    home = SiteUrl("/", max((row.published_at.date() for row in rows), default=None))
    return [home, *(_edition_url(row.period, row.edition_date, row.published_at) for row in rows)]


def _edition_url(period: str, key: date, published_at: datetime) -> SiteUrl:
    return SiteUrl(f"/?period={period}&date={key.isoformat()}", published_at.date())


def _topics(session: Session, limit: int) -> list[SiteUrl]:
    latest = func.max(TopicDay.day)
    query = select(TopicDay.topic_id, latest).group_by(TopicDay.topic_id)
    return _listed(session, query.order_by(latest.desc(), TopicDay.topic_id), "/topics/", limit)


def _papers(session: Session, limit: int) -> list[SiteUrl]:
    latest = func.max(Edition.edition_date)
    query = (
        select(EditionItem.arxiv_id, latest)
        .join(Edition, Edition.id == EditionItem.edition_id)
        .group_by(EditionItem.arxiv_id)
        .order_by(latest.desc(), EditionItem.arxiv_id)
    )
    return _listed(session, query, "/papers/", limit)


def _authors(session: Session, limit: int) -> list[SiteUrl]:
    """Authors of the papers of published editions (not every stored author: a bulk import
    holds millions, most never shown)."""
    latest = func.max(Edition.edition_date)
    query = (
        select(PaperAuthor.author_key, latest)
        .join(EditionItem, EditionItem.arxiv_id == PaperAuthor.arxiv_id)
        .join(Edition, Edition.id == EditionItem.edition_id)
        .group_by(PaperAuthor.author_key)
        .order_by(latest.desc(), PaperAuthor.author_key)
    )
    return _listed(session, query, "/authors/", limit)


def _listed(session: Session, query: Select[Any, date], prefix: str, limit: int) -> list[SiteUrl]:
    rows = session.execute(query.limit(limit)).all()
    return [SiteUrl(prefix + quote(str(key), safe="/"), day) for key, day in rows]
