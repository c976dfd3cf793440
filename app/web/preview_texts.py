"""What each link preview says: a paper's, an edition's and a topic's words, read from the
store (``app.web.previews`` draws them). TeX in titles is made plain, as mail makes it."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.explanations import chance_words
from app.core.models import Edition
from app.core.periods import PERIODS
from app.web import profiles, queries
from app.web.page_views import human_label
from app.web.previews import Preview
from app.web.view_models import Appearance, Card, Signals, author_links
from digest.latex import readable

AUTHORS_NAMED = 3
TITLES_LISTED = 3
PERIOD_WORDS = {"day": "The day's", "week": "The week's", "month": "The month's"}


def paper_preview(session: Session, arxiv_id: str) -> Preview | None:
    """Title, first authors, topic; the upvotes and the chance, or the paper's best rank."""
    found = queries.papers(session, [arxiv_id]).get(arxiv_id)
    if found is None:
        return None
    signals = queries.signals(session, [arxiv_id]).get(arxiv_id, Signals())
    topic = queries.paper_topic(session, arxiv_id)
    kicker = f"arXiv {arxiv_id}"
    if found.announced_on is not None:
        kicker += f" · announced {human_label('day', found.announced_on)}"
    lines = [_authors(found.authors)]
    if topic is not None:
        lines.append(f"◆ {readable(topic.label)}")
    footer = _standing(signals, queries.appearances(session, arxiv_id))
    return Preview(kicker=kicker, headline=readable(found.title), lines=tuple(lines), footer=footer)


def edition_preview(session: Session, edition: Edition) -> Preview:
    """The edition's name and its first titles."""
    period = edition.period
    cards = queries.edition_cards(session, edition)
    return Preview(
        kicker=f"{PERIOD_WORDS[period]} trending arXiv papers",
        headline=human_label(period, edition.edition_date),
        lines=_numbered(cards),
        footer=f"{len(cards)} papers ranked",
    )


def topic_preview(session: Session, topic_id: int) -> Preview | None:
    """The topic's name, its newest papers' titles, and its size."""
    page = profiles.topic_page(session, topic_id)
    if page is None:
        return None
    newest = [card for day in page.days for card in day.cards]
    papers = sum(bar.size for bar in page.sizes)
    return Preview(
        kicker=f"A topic on Paperboy · since {human_label('day', page.first_seen_on)}",
        headline=readable(page.topic.label),
        lines=tuple(f"· {readable(card.paper.title)}" for card in newest[:TITLES_LISTED]),
        footer=f"{papers} paper{'' if papers == 1 else 's'} · {page.status.value}",
    )


def _authors(names: tuple[str, ...]) -> str:
    named = ", ".join(link.name for link in author_links(names, AUTHORS_NAMED))
    more = len(names) - AUTHORS_NAMED
    return f"{named} and {more} more" if more > 0 else named


def _numbered(cards: list[Card]) -> tuple[str, ...]:
    return tuple(f"{card.rank}. {readable(card.paper.title)}" for card in cards[:TITLES_LISTED])


def _standing(signals: Signals, places: list[Appearance]) -> str:
    parts = []
    if signals.upvotes:
        parts.append(f"▲ {signals.upvotes} upvote{'' if signals.upvotes == 1 else 's'}")
    chance = next((place.chance for place in places if place.chance is not None), None)
    if chance is not None:
        parts.append(chance_words(chance))
    elif places:
        best = min(places, key=lambda place: place.rank)
        parts.append(f"#{best.rank} of the {best.period}, {_place_label(best)}")
    return " · ".join(parts) or "Trending arXiv papers, every morning"


def _place_label(place: Appearance) -> str:
    period = next(name for name in PERIODS if name == place.period)
    return human_label(period, place.edition_date)
