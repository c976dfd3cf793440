"""The API's answers built from what the pages show (pure): cards and papers become the typed
models of ``app.web.api_models``, in Hugging Face's Daily Papers shape.

Where a field comes from (docs/api.md lists them): arXiv's
metadata from the papers table; Hugging Face's fields from ``hf_daily_papers`` (the daily page
where the paper had the most upvotes), its thumbnail as Paperboy's own copy (an absolute URL on
``site``, the instance's public base URL); Paperboy's key phrases, project page and code link from
the paper's own text when Hugging Face has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any, Literal

from app.core.explanations import Explanation
from app.services.presenting import announcement_time, key_phrases
from app.web import api_models as api
from app.web.view_models import (
    Appearance,
    Card,
    PaperFacts,
    Signals,
    TopicChip,
    author_links,
    code_url,
    project_page,
)

DailySort = Literal["trending", "publishedAt"]


def timestamp(moment: datetime) -> str:
    """UTC with milliseconds and ``Z``, as Hugging Face writes times."""
    utc = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def published_moment(paper: PaperFacts, signals: Signals) -> datetime | None:
    """arXiv's v1 submission (ours, else Hugging Face's), else the announcement evening."""
    moment = paper.submitted_at or signals.published_at
    if moment is None and paper.announced_on is not None:
        moment = announcement_time(paper.announced_on)
    return moment


def topic_ref(topic: TopicChip | None) -> api.TopicRef | None:
    return None if topic is None else api.TopicRef(id=topic.id, label=topic.label)


def submitter(signals: Signals) -> api.HfUser | None:
    name = signals.submitted_by
    return None if not name else api.HfUser(user=name, name=name)


def organization(signals: Signals) -> api.HfOrganization | None:
    fullname = signals.organization_fullname or signals.organization_name
    if not fullname:
        return None
    return api.HfOrganization(name=signals.organization_name, fullname=fullname)


def paper_fields(paper: PaperFacts, signals: Signals) -> dict[str, Any]:
    """The keys of :class:`api_models.Paper`, for it and the models built on it."""
    moment = published_moment(paper, signals)
    return {
        "id": paper.arxiv_id,
        "title": paper.title,
        "summary": paper.abstract,
        "authors": [
            api.Author(name=link.name, key=link.key) for link in author_links(paper.authors)
        ],
        "publishedAt": None if moment is None else timestamp(moment),
        "submittedOnDailyAt": _maybe_timestamp(signals.submitted_on_daily_at),
        "submittedOnDailyBy": submitter(signals),
        "upvotes": signals.upvotes,
        "ai_keywords": list(signals.ai_keywords) or key_phrases(paper.title, paper.abstract),
        "githubRepo": code_url(paper, signals),
        "githubStars": signals.github_stars,
        "projectPage": project_page(paper, signals),
        "organization": organization(signals),
        "ai_summary": signals.ai_summary,
        "discussionId": signals.discussion_id,
        "paperboyVotes": signals.votes,
        "siteComments": signals.site_comments,
        "announcedOn": None if paper.announced_on is None else paper.announced_on.isoformat(),
        "categories": list(paper.categories),
        "primaryCategory": paper.primary_category,
        "version": paper.version,
        "comment": paper.comment,
    }


def _maybe_timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)


def paper_model(paper: PaperFacts, signals: Signals) -> api.Paper:
    return api.Paper(**paper_fields(paper, signals))


def thumbnail_url(signals: Signals, site: str) -> str | None:
    """The absolute address of Paperboy's copy of the paper's thumbnail, if it has one."""
    path = signals.thumbnail_path
    return None if path is None else f"{site.rstrip('/')}{path}"


def _item_fields(card: Card, site: str) -> dict[str, Any]:
    """The keys of :class:`api_models.PaperItem`: HF's item around the paper."""
    inner = paper_model(card.paper, card.signals)
    return {
        "thumbnail": thumbnail_url(card.signals, site),
        "ai_summary": card.signals.ai_summary,
        "paper": inner,
        "publishedAt": inner.publishedAt,
        "title": inner.title,
        "summary": inner.summary,
        "numComments": card.signals.num_comments,
        "submittedBy": inner.submittedOnDailyBy,
        "organization": inner.organization,
        "rank": card.rank,
    }


def search_result(card: Card, site: str) -> api.SearchResult:
    return api.SearchResult(**_item_fields(card, site))


def daily_item(card: Card, site: str) -> api.DailyPaper:
    return api.DailyPaper(
        **_item_fields(card, site),
        score=card.score,
        score_components=dict(card.components),
        topic=topic_ref(card.topic),
        chance=card.chance,
        explanation=explanation(card.reasons),
    )


def appearance(place: Appearance) -> api.Appearance:
    return api.Appearance(
        period=place.period,  # type: ignore[arg-type]  # stored from the Period literal
        date=place.edition_date.isoformat(),
        version=place.version,
        rank=place.rank,
        score=place.score,
        score_components=dict(place.components),
        chance=place.chance,
        explanation=explanation(place.reasons),
    )


def explanation(reasons: Sequence[Explanation]) -> list[api.ExplanationItem]:
    """Every stored reason, signed, in its stored order (biggest first)."""
    return [api.ExplanationItem(factor=r.factor, text=r.text, value=r.value) for r in reasons]


def paper_detail(
    paper: PaperFacts,
    signals: Signals,
    topic: TopicChip | None,
    places: Sequence[Appearance],
    site: str,
) -> api.PaperDetail:
    return api.PaperDetail(
        **paper_fields(paper, signals),
        thumbnail=thumbnail_url(signals, site),
        numComments=signals.num_comments,
        topic=topic_ref(topic),
        editions=[appearance(place) for place in places],
    )


def sort_cards(cards: list[Card], sort: DailySort | None) -> list[Card]:
    """No ``sort``: Hugging Face's own order, most upvotes first (as its recorded answers are),
    ties in trending order; ``trending``: the edition's order; ``publishedAt``: newest first,
    ties (papers announced together share a time) in trending order, best rank first."""
    if sort == "trending":
        return cards
    if sort == "publishedAt":
        return sorted(cards, key=_published_key, reverse=True)
    return sorted(cards, key=lambda c: (-c.signals.upvotes, c.rank))


def _published_key(card: Card) -> tuple[datetime, int]:
    """Sorted in reverse: the newest moment first, then the smallest rank (hence ``-rank``)."""
    moment = published_moment(card.paper, card.signals)
    oldest = datetime.combine(date.min, datetime.min.time(), UTC)
    return (moment or oldest, -card.rank)


def submitted_by(cards: list[Card], user: str | None) -> list[Card]:
    """The cards Hugging Face user ``user`` put on the daily page (all when ``user`` is None)."""
    if user is None:
        return cards
    wanted = user.casefold()
    return [c for c in cards if (c.signals.submitted_by or "").casefold() == wanted]


def page_of(items: list[Any], page: int, limit: int) -> list[Any]:
    return items[page * limit : (page + 1) * limit]
