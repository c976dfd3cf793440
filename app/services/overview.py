"""What the database holds, in numbers: the answer to "what did that import store?"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.models import Author, Paper, PaperCategory


@dataclass(frozen=True, slots=True)
class StoreOverview:
    papers: int
    authors: int
    first_announcement: date | None
    last_announcement: date | None
    papers_per_day: list[tuple[date, int]]
    top_categories: list[tuple[str, int]]
    latest_titles: list[tuple[str, str]]


def describe_store(session: Session, *, days: int = 7, categories: int = 8) -> StoreOverview:
    announced = Paper.announced_on
    first, last = session.execute(select(func.min(announced), func.max(announced))).one()
    per_day = session.execute(
        select(announced, func.count())
        .where(announced.is_not(None))
        .group_by(announced)
        .order_by(announced.desc())
        .limit(days)
    ).all()
    top = session.execute(
        select(PaperCategory.category, func.count())
        .group_by(PaperCategory.category)
        .order_by(func.count().desc(), PaperCategory.category)
        .limit(categories)
    ).all()
    latest = session.execute(
        select(Paper.arxiv_id, Paper.title)
        .order_by(announced.desc().nulls_last(), Paper.arxiv_id.desc())
        .limit(5)
    ).all()
    return StoreOverview(
        papers=session.scalar(select(func.count()).select_from(Paper)) or 0,
        authors=session.scalar(select(func.count()).select_from(Author)) or 0,
        first_announcement=first,
        last_announcement=last,
        papers_per_day=[(day, count) for day, count in reversed(per_day) if day is not None],
        top_categories=[(name, count) for name, count in top],
        latest_titles=[(arxiv_id, title) for arxiv_id, title in latest],
    )


def format_overview(overview: StoreOverview) -> str:
    lines = [
        f"papers stored: {overview.papers}",
        f"authors: {overview.authors}",
        f"announced: {overview.first_announcement} .. {overview.last_announcement}",
        "papers per announcement day (latest):",
        *(f"  {day}  {count}" for day, count in overview.papers_per_day),
        "top categories:",
        *(f"  {name:<10} {count}" for name, count in overview.top_categories),
        "latest papers:",
        *(f"  {arxiv_id}  {title}" for arxiv_id, title in overview.latest_titles),
    ]
    return "\n".join(lines)
