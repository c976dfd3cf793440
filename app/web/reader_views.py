"""The signed-in reader's pages ("For you", the private feed, the reading list, a paper's card
as they left it): their view models, read with the request's session (``SessionDep``).

Reading a page never writes; the reader's actions are use cases in ``app.services.readers``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from app.core.explanations import Explanation
from app.core.models import EditionKey, Subscriber
from app.services.access_tokens import LIFETIMES as TOKEN_LIFETIMES
from app.services.access_tokens import TokenView, reader_tokens
from app.services.comment_mail import MailSwitches, switches_of
from app.services.digests import PersonalPicks, picks_for
from app.services.presenting import EditionView, headings
from app.services.radar import under_radar_week
from app.services.reading import (
    MAX_LIST_NAME,
    MAX_NOTE,
    MAX_SAVED,
    FiledPaper,
    FollowedSearch,
    Follows,
    Marks,
    buttons_state,
    feed_reader,
    for_you_reader,
    paper_marks,
    reader_export,
    reading_list_rows,
)
from app.services.reading import signed_in as session_reader
from app.services.shared_lists import shared_of
from app.web import queries
from app.web.context import WebContext
from app.web.under_radar import RadarSlot, reader_slot
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
    comment_mail: MailSwitches | None = None  # the reader's mail about discussions
    followed_left_out: int = 0
    searched_left_out: int = 0
    organizations_left_out: int = 0
    max_searches: int = MAX_SAVED
    # The cards in their sections, each with its heading (None: the only section).
    sections: list[tuple[str | None, list[ReaderCard]]] = field(default_factory=list)
    # Strong papers the crowd missed, in a slot of their own, labelled as such.
    under_radar: RadarSlot = field(
        default_factory=lambda: RadarSlot(week=None, picks=[], followed=frozenset())
    )
    orcid_sign_in: bool = False  # "Sign in with ORCID" is offered
    orcid: str | None = None  # the reader's linked ORCID iD
    # Personal access tokens for assistants (the MCP server), never the tokens themselves.
    tokens: list[TokenView] = field(default_factory=list)
    token_lifetimes: tuple[int, ...] = TOKEN_LIFETIMES


def in_sections(cards: list[ReaderCard]) -> list[tuple[str | None, list[ReaderCard]]]:
    """The cards grouped by the section each heading opens."""
    parts: list[tuple[str | None, list[ReaderCard]]] = []
    for card in cards:
        if card.heading is not None or not parts:
            parts.append((card.heading, []))
        parts[-1][1].append(card)
    return parts


@dataclass(frozen=True)
class NewTokenPage:
    """A token just made: the one time it is shown."""

    token: str
    name: str
    scope: str
    site_url: str


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
    # The reader's lists they share, by id: the slug of each one's public page.
    shared: dict[int, str] = field(default_factory=dict)


def signed_in(context: WebContext, session: Session, cookie: str) -> str | None:
    """Who the session cookie signs in, or None."""
    return session_reader(session, context.settings, cookie, context.clock())


def for_you(context: WebContext, session: Session, email_key: str) -> ForYouPage:
    found = for_you_reader(session, context.settings, email_key, context.clock())
    picked = _picks(context, session, found.reader)
    cards = _reader_cards(context, session, found.marks, picked)
    return ForYouPage(
        reader=email_key,
        edition=picked.edition,
        cards=cards,
        sections=in_sections(cards),
        feed_token=found.feed_token,
        subscribed=found.subscribed,
        claimed_author=found.reader.claimed_author,
        orcid_sign_in=context.settings.orcid_sign_in,
        orcid=found.reader.orcid,
        follows=found.follows,
        searches=[_search_view(one) for one in found.searches],
        away_since=found.reader.away_since,
        comment_mail=switches_of(found.reader),
        tokens=reader_tokens(session, email_key, context.clock()),
        followed_left_out=picked.followed_left_out,
        searched_left_out=picked.searched_left_out,
        organizations_left_out=picked.organizations_left_out,
        under_radar=reader_slot(
            # The same for every reader: built once per memo lifetime.
            context.memo.get(("under-radar", None), lambda: under_radar_week(session, None)),
            found.reader.followed_topics,
            found.reader.muted_topics,
            {card.paper.arxiv_id for card in cards},
        ),
    )


def _search_view(saved: FollowedSearch) -> SavedSearchView:
    query = {"q": saved.query} | ({"category": saved.category} if saved.category else {})
    return SavedSearchView(id=saved.id, label=saved.label, query=urlencode(query))


def private_feed(
    context: WebContext, session: Session, token: str
) -> tuple[EditionKey | None, list[Card]]:
    """The picks a private feed's token opens (:class:`TokenError` once revoked)."""
    found = feed_reader(session, context.settings, token, context.clock())
    picked = _picks(context, session, found.reader)
    return picked.edition, [
        _with_reason(card) for card in _reader_cards(context, session, found.marks, picked)
    ]


def reading_list(session: Session, email_key: str, list_id: int | None = None) -> ReadingList:
    """The reader's saved papers, newest first: all of them, or those of list ``list_id``
    (:class:`UnknownReadingListError` when it is not theirs)."""
    found = reading_list_rows(session, email_key, list_id)
    cards = [
        _reader_card(
            card,
            saved=True,
            thumb=found.thumbs.get(card.paper.arxiv_id, 0),
            library=_filed(found.papers[card.paper.arxiv_id], found.lists),
        )
        for card in queries.plain_cards(session, list(found.papers))
    ]
    shared = shared_of(session, email_key)
    return ReadingList(
        email_key, cards, found.lists, shown=list_id, shown_name=found.name, shared=shared
    )


def _filed(paper: FiledPaper, lists: list[tuple[int, str]]) -> Filed:
    return Filed(list_id=paper.list_id, read=paper.read, note=paper.note, lists=lists)


def state(session: Session, email_key: str) -> dict[str, object]:
    """What the reader did, for the script that marks shared pages' buttons."""
    return buttons_state(session, email_key)


def data_of(session: Session, email_key: str) -> dict[str, object]:
    """Everything stored about the reader, as the subscription's data export gives it."""
    return reader_export(session, email_key)


def marked(session: Session, email_key: str, card: Card) -> ReaderCard:
    """A paper page's card as this reader left it: saved or not, their thumb."""
    saved, thumb = paper_marks(session, email_key, card.paper.arxiv_id)
    return _reader_card(card, saved=saved, thumb=thumb)


def _picks(context: WebContext, session: Session, found: Subscriber) -> PersonalPicks:
    def views(key: EditionKey, build: Callable[[], EditionView | None]) -> EditionView | None:
        return context.memo.get(("reader-view", key), build)

    return picks_for(context.settings, session, found, views=views, search=context.search)


def _reader_cards(
    context: WebContext, session: Session, marks: Marks, picked: PersonalPicks
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
    opened = headings(picked.picks, key.period)
    return [
        _reader_card(
            by_id[pick.paper.arxiv_id],
            saved=pick.paper.arxiv_id in marks.saved,
            thumb=marks.thumbs.get(pick.paper.arxiv_id, 0),
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
