"""The signed-in reader's pages ("For you", the private feed, the reading list, a paper's card
as they left it): their view models, read with the request's session (``SessionDep``).

Reading a page never writes; the reader's actions are use cases in ``app.services.readers``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date
from urllib.parse import urlencode

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.explanations import Explanation
from app.core.models import Author, EditionKey, Person, SavedPaper, Subscriber, SubscriberStatus
from app.core.refusals import NotFound
from app.core.topic_labels import topic_labels
from app.services.accounts import export_of
from app.services.digests import PersonalPicks, picks_for
from app.services.presenting import EditionView, headings
from app.services.reading import (
    MAX_LIST_NAME,
    MAX_NOTE,
    MAX_SAVED,
    WEB_DEFAULTS,
    feed_reader,
    feed_token,
    feedback_of,
    find_reader,
    on_reading_list,
    reader_lists,
    saved_ids,
    saved_papers,
    saved_rows,
    voter,
)
from app.web import queries
from app.web.context import WebContext
from app.web.under_radar import RadarSlot, reader_slot, under_radar_page
from app.web.view_models import Card

# Above any scorer's contribution: the reader's own reason comes first in a feed's "Why".
FIRST = 1e9


@dataclass(frozen=True, slots=True)
class ReaderCard(Card):
    """A card with what this reader did with the paper, and why it is picked for them."""

    saved: bool = False
    thumb: int = 0  # 1 up, -1 down, 0 neither
    why: str | None = None
    heading: str | None = None  # the section of the reader's picks this card opens
    library: Filed | None = None  # on the reading list: its list, read state and note


@dataclass(frozen=True, slots=True)
class Filed:
    """A saved paper as the reader filed it, with the lists it may be filed under."""

    list_id: int | None
    read: bool
    note: str
    lists: list[tuple[int, str]]


@dataclass(frozen=True)
class Follows:
    """What a reader follows and mutes, named as the pages name them."""

    followed_topics: list[tuple[int, str]] = field(default_factory=list)
    muted_topics: list[tuple[int, str]] = field(default_factory=list)
    followed_authors: list[tuple[str, str]] = field(default_factory=list)
    muted_authors: list[tuple[str, str]] = field(default_factory=list)
    followed_people: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ForYouPage:
    reader: str | None  # the mailbox signed in; None: the page invites to sign in
    edition: EditionKey | None = None
    cards: list[ReaderCard] = field(default_factory=list)
    # The private feed's token, once the reader asked for one.
    feed_token: str | None = None
    subscribed: bool = False
    claimed_author: str | None = None
    follows: Follows = field(default_factory=Follows)
    csrf: str = ""  # the sign-out forms' field, for the cookie the page sets
    searches: list[SavedSearchView] = field(default_factory=list)
    away_since: date | None = None  # "I was away since", until the catch-up is sent
    followed_left_out: int = 0
    searched_left_out: int = 0
    max_searches: int = MAX_SAVED
    # The cards in their sections, each with its heading (None: the only section).
    sections: list[tuple[str | None, list[ReaderCard]]] = field(default_factory=list)
    # Strong papers the crowd missed, in a slot of their own, labelled as such.
    under_radar: RadarSlot = field(
        default_factory=lambda: RadarSlot(week=None, picks=[], followed=frozenset())
    )


def in_sections(cards: list[ReaderCard]) -> list[tuple[str | None, list[ReaderCard]]]:
    """The cards grouped by the section each heading opens."""
    parts: list[tuple[str | None, list[ReaderCard]]] = []
    for card in cards:
        if card.heading is not None or not parts:
            parts.append((card.heading, []))
        parts[-1][1].append(card)
    return parts


@dataclass(frozen=True, slots=True)
class SavedSearchView:
    """A search the reader follows, as their page lists it."""

    id: int
    label: str
    query: str  # the search page's and the feeds' parameters, URL-encoded


@dataclass(frozen=True)
class ReadingList:
    reader: str
    cards: list[ReaderCard]
    lists: list[tuple[int, str]] = field(default_factory=list)
    shown: int | None = None  # the list shown (None: every saved paper)
    shown_name: str = "Reading list"
    max_list_name: int = MAX_LIST_NAME
    max_note: int = MAX_NOTE

    @property
    def query(self) -> str:
        """The exports' query string for the list shown."""
        return "" if self.shown is None else f"?list={self.shown}"


class UnknownReadingListError(NotFound, LookupError):
    """A list id that is not one of the reader's (answered 404)."""


def signed_in(context: WebContext, session: Session, cookie: str) -> str | None:
    """Who the session cookie signs in, or None."""
    if not cookie:
        return None
    return voter(session, context.settings, cookie, context.clock())


def for_you(context: WebContext, session: Session, email_key: str) -> ForYouPage:
    found = find_reader(session, email_key) or _transient(email_key)
    picked = _picks(context, session, found)
    cards = _reader_cards(context, session, found, picked)
    token = None
    if found.feed_key is not None:
        token = feed_token(context.settings.secret_key, found, context.clock())
    return ForYouPage(
        reader=email_key,
        edition=picked.edition,
        cards=cards,
        sections=in_sections(cards),
        feed_token=token,
        subscribed=found.status not in (SubscriberStatus.WEB, SubscriberStatus.UNSUBSCRIBED),
        claimed_author=found.claimed_author,
        follows=_follows(session, found),
        searches=_searches(session, found),
        away_since=found.away_since,
        followed_left_out=picked.followed_left_out,
        searched_left_out=picked.searched_left_out,
        under_radar=reader_slot(
            # The same for every reader: built once per memo lifetime.
            context.memo.get(("under-radar", None), lambda: under_radar_page(session, None)),
            found.followed_topics,
            found.muted_topics,
            {card.paper.arxiv_id for card in cards},
        ),
    )


def _searches(session: Session, found: Subscriber) -> list[SavedSearchView]:
    if not found.id:
        return []
    return [
        SavedSearchView(
            id=ident,
            label=saved.label,
            query=urlencode(
                {"q": saved.query} | ({"category": saved.category} if saved.category else {})
            ),
        )
        for ident, saved in saved_rows(session, found.id)
    ]


def private_feed(
    context: WebContext, session: Session, token: str
) -> tuple[EditionKey | None, list[Card]]:
    """The picks a private feed's token opens (:class:`TokenError` once revoked)."""
    found = feed_reader(session, context.settings.secret_key, token, context.clock())
    picked = _picks(context, session, found)
    return picked.edition, [
        _with_reason(card) for card in _reader_cards(context, session, found, picked)
    ]


def reading_list(session: Session, email_key: str, list_id: int | None = None) -> ReadingList:
    """The reader's saved papers, newest first: all of them, or those of list ``list_id``
    (:class:`UnknownReadingListError` when it is not theirs)."""
    found = find_reader(session, email_key)
    lists = reader_lists(session, found.id) if found else []
    names = dict(lists)
    if list_id is not None and list_id not in names:
        raise UnknownReadingListError("no such list of yours")
    rows = {row.arxiv_id: row for row in saved_papers(session, found.id)} if found else {}
    ids = [i for i, row in rows.items() if list_id is None or row.list_id == list_id]
    thumbs = feedback_of(session, found.id) if found else {}
    cards = [
        _reader_card(
            card,
            saved=True,
            thumb=thumbs.get(card.paper.arxiv_id, 0),
            library=_filed(rows[card.paper.arxiv_id], lists),
        )
        for card in queries.plain_cards(session, ids)
    ]
    name = "Reading list" if list_id is None else names[list_id]
    return ReadingList(email_key, cards, lists, shown=list_id, shown_name=name)


def _filed(row: SavedPaper, lists: list[tuple[int, str]]) -> Filed:
    return Filed(
        list_id=row.list_id, read=row.read_at is not None, note=row.note or "", lists=lists
    )


def state(session: Session, email_key: str) -> dict[str, object]:
    """What the reader did, for the script that marks shared pages' buttons."""
    found = find_reader(session, email_key)
    if found is None:
        return {"signed_in": True, "saved": [], "feedback": {}}
    return {
        "signed_in": True,
        "saved": saved_ids(session, found.id),
        "feedback": feedback_of(session, found.id),
        "followed_topics": found.followed_topics,
        "muted_topics": found.muted_topics,
        "followed_authors": found.followed_authors,
        "muted_authors": found.muted_authors,
        "claimed_author": found.claimed_author,
        "claimed_person": found.claimed_person,
        "followed_people": found.followed_people,
    }


def data_of(session: Session, email_key: str) -> dict[str, object]:
    """Everything stored about the reader, as the subscription's data export gives it."""
    found = find_reader(session, email_key)
    return {"email_key": email_key} if found is None else export_of(session, found)


def marked(session: Session, email_key: str, card: Card) -> ReaderCard:
    """A paper page's card as this reader left it: saved or not, their thumb."""
    arxiv_id = card.paper.arxiv_id
    found = find_reader(session, email_key)
    if found is None:
        return _reader_card(card)
    saved = on_reading_list(session, found.id, arxiv_id)
    thumb = feedback_of(session, found.id).get(arxiv_id, 0)
    return _reader_card(card, saved=saved, thumb=thumb)


def _transient(email_key: str) -> Subscriber:
    """A reader who has not acted yet, selected for with the digest's defaults (not stored)."""
    return Subscriber(
        id=0,
        email=email_key,
        email_key=email_key,
        status=SubscriberStatus.WEB,
        **WEB_DEFAULTS,
    )


def _picks(context: WebContext, session: Session, found: Subscriber) -> PersonalPicks:
    def views(key: EditionKey, build: Callable[[], EditionView | None]) -> EditionView | None:
        return context.memo.get(("reader-view", key), build)

    return picks_for(context.settings, session, found, views=views, search=context.search)


def _reader_cards(
    context: WebContext, session: Session, found: Subscriber, picked: PersonalPicks
) -> list[ReaderCard]:
    if picked.edition is None or not picked.picks:
        return []
    key = picked.edition
    edition = context.edition(session, key.period, key.edition_date)
    if edition is None:
        return []
    by_id = {card.paper.arxiv_id: card for card in queries.edition_cards(session, edition)}
    beyond = [pick.paper.arxiv_id for pick in picked.picks if pick.paper.arxiv_id not in by_id]
    if beyond:  # papers of the day that the edition leaves out
        by_id |= {card.paper.arxiv_id: card for card in queries.day_cards(session, edition, beyond)}
    saved = set(saved_ids(session, found.id))
    thumbs = feedback_of(session, found.id)
    opened = headings(picked.picks, key.period)
    return [
        _reader_card(
            by_id[pick.paper.arxiv_id],
            saved=pick.paper.arxiv_id in saved,
            thumb=thumbs.get(pick.paper.arxiv_id, 0),
            why=pick.reason,
            heading=heading,
        )
        for pick, heading in zip(picked.picks, opened, strict=True)
        if pick.paper.arxiv_id in by_id
    ]


def _reader_card(card: Card, **mine: object) -> ReaderCard:
    kept = {one.name: getattr(card, one.name) for one in fields(card)}
    return ReaderCard(**(kept | mine))


def _with_reason(card: ReaderCard) -> ReaderCard:
    """The card with the reader's reason first among its reasons (feeds read them there)."""
    mine = Explanation("for_you", f"For you: {card.why}", FIRST)
    return _reader_card(card, reasons=[mine, *card.reasons])


def _follows(session: Session, found: Subscriber) -> Follows:
    topics = found.followed_topics + found.muted_topics
    labels = topic_labels(session, topics)
    names = {key: queries.author_name(session, key) or key for key in found.followed_authors}
    names |= {key: queries.author_name(session, key) or key for key in found.muted_authors}
    return Follows(
        followed_topics=[(t, labels.get(t, f"topic {t}")) for t in found.followed_topics],
        muted_topics=[(t, labels.get(t, f"topic {t}")) for t in found.muted_topics],
        followed_authors=[(k, names[k]) for k in found.followed_authors],
        muted_authors=[(k, names[k]) for k in found.muted_authors],
        followed_people=_people_named(session, found.followed_people),
    )


def _people_named(session: Session, people: list[int]) -> list[tuple[int, str]]:
    """Each followed person as "Name (person 12)": a name's people share its name."""
    rows = session.execute(
        select(Person.id, Author.name)
        .join(Author, Author.key == Person.author_key)
        .where(Person.id.in_(people))
    ).all()
    names = {row[0]: row[1] for row in rows}
    return [(one, f"{names.get(one, 'someone')} (person {one})") for one in people]
