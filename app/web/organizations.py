"""An organization's page: the papers submitted to Hugging Face's daily page under it (by its
slug there, ``ByteDance-Seed``), newest first, and its topics month by month."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import HfDailyPaper, Paper, PaperTopic, TopicDay
from app.web import queries
from app.web.view_models import Card, TopicChip

PAPERS_SHOWN = 50
TOPICS_A_MONTH = 3


class OrganizationMonth(NamedTuple):
    """A month of the organization's papers: how many, and the topics most of them were in."""

    month: date  # its first day
    papers: int
    topics: list[tuple[TopicChip, int]]  # topic and its papers that month, most first


@dataclass(frozen=True)
class OrganizationPage:
    slug: str
    name: str  # as Hugging Face shows it, else the slug
    papers: list[Card]  # the newest first, at most PAPERS_SHOWN
    paper_count: int
    months: list[OrganizationMonth]  # newest first


def organization_page(session: Session, slug: str) -> OrganizationPage | None:
    rows = session.execute(
        select(HfDailyPaper.arxiv_id, HfDailyPaper.organization_fullname)
        .join(Paper, Paper.arxiv_id == HfDailyPaper.arxiv_id)
        .where(HfDailyPaper.organization_name == slug)
        .order_by(Paper.announced_on.desc().nulls_last(), Paper.arxiv_id.desc())
    ).all()
    if not rows:
        return None
    # A paper listed on several days has a row for each: kept once, in its newest place.
    ids = list(dict.fromkeys(row.arxiv_id for row in rows))
    names = [row.organization_fullname for row in rows if row.organization_fullname]
    return OrganizationPage(
        slug=slug,
        name=names[0] if names else slug,
        papers=queries.plain_cards(session, ids[:PAPERS_SHOWN]),
        paper_count=len(ids),
        months=topic_months(session, ids),
    )


def topic_months(session: Session, arxiv_ids: list[str]) -> list[OrganizationMonth]:
    """Each month's papers among ``arxiv_ids`` (by the day their topic was assigned) and their
    most common topics, named by each topic's label of that day."""
    rows = session.execute(
        select(PaperTopic.arxiv_id, PaperTopic.day, PaperTopic.topic_id, TopicDay.label)
        .join(
            TopicDay,
            (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day),
        )
        .where(PaperTopic.arxiv_id.in_(arxiv_ids))
    ).all()
    papers: dict[date, set[str]] = {}
    topics: dict[date, Counter[int]] = {}
    labels: dict[int, str] = {}
    for row in rows:
        month = row.day.replace(day=1)
        papers.setdefault(month, set()).add(row.arxiv_id)
        topics.setdefault(month, Counter())[row.topic_id] += 1
        labels[row.topic_id] = row.label
    return [
        OrganizationMonth(
            month=month,
            papers=len(papers[month]),
            topics=[
                (TopicChip(topic, labels[topic]), count)
                for topic, count in topics[month].most_common(TOPICS_A_MONTH)
            ],
        )
        for month in sorted(papers, reverse=True)
    ]
