"""What ``paperboy demo`` asks of the store beyond the daily job's use cases: the days its
sample and its replayed feed cover, a demo reader subscribed and confirmed by mail, and a few
demo readers who talk about the newest edition's first paper and publish a reading list with
notes (through the same use cases the site's forms call).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from accounts import links
from accounts.addresses import parse_address
from accounts.preferences import parse_preferences
from accounts.subscriptions import confirm, request_subscription
from app.core.clock import Clock
from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import AnnouncementEntry, Edition, EditionItem, Paper
from app.services import discussion, library, shared_lists
from app.services.discussion import Draft
from digest.mail.confirmation import confirmation_message
from digest.mail.mailer import send_one


def first_listed_day(sessions: sessionmaker[Session], categories: Collection[str]) -> date | None:
    """The earliest announcement day listed in ``categories`` (the replayed feed's)."""
    with session_scope(sessions) as session:
        return session.scalar(
            select(func.min(AnnouncementEntry.announced_on)).where(
                AnnouncementEntry.category.in_(categories)
            )
        )


def stored_days(sessions: sessionmaker[Session]) -> tuple[date | None, date | None]:
    """The first and the last announcement day of the stored papers (None, None: no paper)."""
    with session_scope(sessions) as session:
        first, last = session.execute(
            select(func.min(Paper.announced_on), func.max(Paper.announced_on))
        ).one()
    return first, last


def subscribe_and_confirm(
    settings: Settings, sessions: sessionmaker[Session], email: str, now: datetime
) -> bool:
    """Subscribe ``email`` for a digest at midnight, mail its confirmation and follow the
    link; False if it was already subscribed and confirmed."""
    preferences = parse_preferences({"delivery_hour": "0"}, settings.categories)
    with session_scope(sessions) as session:
        reader = request_subscription(
            session, settings, parse_address(email), preferences, "demo", now
        )
        if reader is None:
            return False
        asyncio.run(send_one(settings, confirmation_message(settings, reader, now)))
        token = links.confirm_url(settings, reader, now).rsplit("token=", 1)[1]
        confirm(session, settings, token, now)
    return True


@dataclass(frozen=True)
class DemoSite:
    """The demo's deployment: its settings, store and clock (the sample's latest day)."""

    settings: Settings
    sessions: sessionmaker[Session]
    clock: Clock


# The demo's readers: address and the display name their comments show.
READERS = {
    "ada": ("ada@demo.paperboy.localhost", "Ada L."),
    "grace": ("grace@demo.paperboy.localhost", "Grace H."),
    "alan": ("alan@demo.paperboy.localhost", "Alan T."),
}
# Who says what, and which comment (by its place here) a reply answers.
THREAD: tuple[tuple[str, str, int | None], ...] = (
    (
        "ada",
        "Does the bound still hold when $\\epsilon \\to 0$? Eq. (3) gives $O(\\sqrt{n})$.",
        None,
    ),
    (
        "grace",
        "It does: the appendix proves it for every $\\epsilon > 0$, with the same constant.",
        0,
    ),
    ("alan", "The released code runs on one GPU and reproduces **Table 2**.", None),
)
LIST_WORDING = ("Reading group: this week", "What we read on Friday.", "Ada's reading group")
LIST_NOTES = ("Start here: the method in section 3.", "For the appendix's proofs.")


def discussed_papers(sessions: sessionmaker[Session], count: int) -> list[str]:
    """The newest day edition's first ``count`` papers."""
    with session_scope(sessions) as session:
        return list(
            session.scalars(
                select(EditionItem.arxiv_id)
                .join(Edition, Edition.id == EditionItem.edition_id)
                .where(Edition.period == "day")
                .order_by(Edition.edition_date.desc(), Edition.version.desc())
                .order_by(EditionItem.position)
                .limit(count)
            )
        )


def start_discussion(site: DemoSite, arxiv_id: str) -> int:
    """The demo readers' thread under ``arxiv_id``; the comments posted. Run again, each
    form's one-time value posts nothing new."""
    posted: list[int] = []
    for number, (who, text, answers) in enumerate(THREAD):
        address, name = READERS[who]
        parent = None if answers is None else posted[answers]
        draft = Draft(arxiv_id, text, f"demo-{number}", parent_id=parent, name=name)
        posted.append(discussion.post_comment(site, address, draft).id)
    return len(posted)


def publish_reading_list(site: DemoSite, papers: Sequence[str]) -> str:
    """Ada's list of ``papers``, published with its notes shown; its slug (the one published
    before, run again)."""
    address = READERS["ada"][0]
    with session_scope(site.sessions) as session:
        published = shared_lists.shared_of(session, address)
    if published:
        return next(iter(published.values()))
    list_id = library.create_list(site, address, LIST_WORDING[0])
    for arxiv_id in papers:
        library.file_paper(site, address, arxiv_id, list_id)
    slug = shared_lists.share(site, address, list_id, LIST_WORDING, publish=True)
    for arxiv_id, note in zip(papers, LIST_NOTES, strict=False):
        shared_lists.set_note(site, address, slug, arxiv_id, note)
    shared_lists.show_notes(site, address, slug, shown=True)
    return slug
