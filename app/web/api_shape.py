"""JSON bodies of the API (pure): daily-paper items in Hugging Face's shape, papers, topics.

``/api/daily_papers`` items copy the fields HF clients read (``paper.id``, ``paper.title``,
``paper.summary``, ``paper.authors[].name``, ``paper.publishedAt``, ``paper.upvotes``,
``paper.ai_keywords``, ``paper.githubRepo``; top-level ``publishedAt``, ``title``,
``summary``, ``numComments``) and add Paperboy's ``rank``, ``score``, ``score_components``
and ``topic``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from app.web.views import Card, PaperFacts, TopicChip


def published_at(day: date | None) -> str | None:
    """arXiv announces at 20:00 US/Eastern the evening before; HF uses the day, at midnight UTC."""
    if day is None:
        return None
    return datetime.combine(day, time(0), UTC).isoformat().replace("+00:00", ".000Z")


def topic_json(topic: TopicChip | None) -> dict[str, Any] | None:
    return None if topic is None else {"id": topic.id, "label": topic.label}


def paper_json(paper: PaperFacts) -> dict[str, Any]:
    return {
        "id": paper.arxiv_id,
        "title": paper.title,
        "summary": paper.abstract,
        "authors": [{"name": name} for name in paper.authors],
        "publishedAt": published_at(paper.announced_on),
        "categories": list(paper.categories),
        "primaryCategory": paper.primary_category,
        "comment": paper.comment,
        "version": paper.version,
    }


def daily_item(card: Card) -> dict[str, Any]:
    paper = card.paper
    inner = paper_json(paper) | {
        "upvotes": card.signals.upvotes,
        "ai_keywords": list(card.signals.ai_keywords),
        "githubRepo": card.code_url,
    }
    return {
        "paper": inner,
        "publishedAt": inner["publishedAt"],
        "title": paper.title,
        "summary": paper.abstract,
        "numComments": card.signals.num_comments,
        "rank": card.rank,
        "score": card.score,
        "score_components": dict(card.components),
        "topic": topic_json(card.topic),
    }


def sort_cards(cards: list[Card], sort: str) -> list[Card]:
    """``trending``: the edition's order; ``publishedAt``: newest announcement first."""
    if sort == "publishedAt":
        return sorted(cards, key=lambda c: (c.paper.announced_on or date.min, c.rank), reverse=True)
    return cards


def page_of(items: list[Any], page: int, limit: int) -> list[Any]:
    return items[page * limit : (page + 1) * limit]
