"""One reader's digest, built as the mail to send: their picks from an edition (or, for a
catch-up, from the days they missed) with template context, signed links and list headers; no
ledger and no server (``digest.sending`` runs those).

A week's digest ends with two short sections read from what the daily job stored: the
week's emerging topics (``emerging_topics``, the radar), each with its rise and the phrases new
to it, linked to its card on ``/emerging``; and the week in review (``week_reviews``), its
first topics with their trend and representative paper, linked to ``/week-in-review``. Other
digests have neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import links
from app.core.config import Settings
from app.core.excerpts import first_sentence
from app.core.explanations import chance_words
from app.core.models import EditionKey, EmergingTopic, WeekReview
from app.core.periods import span
from app.core.tex import readable
from digest.catch_up import MAX_PAPERS, Gap, changes, gathered
from digest.ledger import Reader
from digest.mail.messages import Envelope, OutgoingMail, build_message, render_email
from digest.sections import Sectioned, reader_picks
from digest.selection import EditionView, Pick, Section
from digest.tastes import Tastes

MAX_AUTHORS_SHOWN = 4
# An abstract's first sentence, cut at a word beyond this (a mail item stays a few lines).
LEAD_LIMIT = 250


@dataclass(frozen=True, slots=True)
class Away:
    """A catch-up's days and what changed in them, in words (digest.catch_up)."""

    first: date
    last: date
    changes: list[str]

    @property
    def span(self) -> str:
        return f"{human_day(self.first)} to {human_day(self.last)}"


@dataclass(frozen=True, slots=True)
class WeekNotes:
    """What a week's digest says after its papers (emerging_notes, review_note)."""

    emerging: Sequence[EmergingNote] = ()
    review: ReviewNote | None = None


def human_day(day: date) -> str:
    return f"{day.day} {day:%b %Y}"


def digest_message(
    settings: Settings,
    subscriber: Reader,
    edition: EditionKey,
    picks: Sectioned,
    now: datetime,
    message_id: str | None = None,
    away: Away | None = None,
    week: WeekNotes | None = None,
) -> OutgoingMail:
    """The digest as a message; ``message_id`` is an earlier try's, which it carries again;
    ``away``: the digest is a catch-up of those days; ``week``: a week digest's closing
    sections."""
    unsubscribe = links.unsubscribe_urls(settings, subscriber, now)
    context = {
        "away": away,
        "emerging": [] if week is None else list(week.emerging),
        "review": None if week is None else week.review,
        "email": subscriber.email,
        "period_name": edition.period,
        "edition_date": edition.edition_date.isoformat(),
        "items": _items(settings, subscriber, edition, picks.picks, now),
        "followed_left_out": picks.followed_left_out,
        "organizations_left_out": picks.organizations_left_out,
        "searched_left_out": picks.searched_left_out,
        "preferences_url": links.preferences_url(settings, subscriber, now),
        "unsubscribe_url": unsubscribe.https,
        "privacy_url": f"{settings.public_base_url.rstrip('/')}/privacy",
    }
    envelope = Envelope(
        sender=settings.mail_from,
        recipient=subscriber.email,
        sent_at=now,
        unsubscribe=unsubscribe,
        list_id=settings.digest_list_id,
        message_id=message_id,
    )
    return build_message(envelope, render_email("digest", context))


def section_heading(pick: Pick, period: str) -> str:
    """The words that open the section of a digest or of the "For you" page ``pick`` is in."""
    if pick.section == Section.FOLLOWED:
        return "From authors and topics you follow"
    if pick.section == Section.LISTED:
        return f"New on the list “{pick.group}”"
    if pick.section == Section.ORGANIZATIONS:
        return "From organizations you follow"
    if pick.section == Section.DISCUSSED:
        return f"Discussed this {period}" if period != "day" else "Discussed today"
    if pick.section == Section.SEARCH:
        return f"New for “{pick.group}”"
    if pick.section == Section.TRENDING:
        return f"Trending this {period}" if period != "day" else "Trending today"
    return f"Picked for you: {pick.group}" if pick.group else "Picked for you"


def headings(picks: list[Pick], period: str) -> list[str | None]:
    """For each pick, the heading of the section it opens: the first of each section opens
    it, unless there is only one section (then none is headed)."""
    several = len({(pick.section, pick.group) for pick in picks}) > 1
    return [
        section_heading(pick, period)
        if several and (index == 0 or _part(picks[index - 1]) != _part(pick))
        else None
        for index, pick in enumerate(picks)
    ]


def _part(pick: Pick) -> tuple[Section, str]:
    return pick.section, pick.group


def _items(
    settings: Settings, subscriber: Reader, edition: EditionKey, picks: list[Pick], now: datetime
) -> list[DigestItem]:
    """The items, each with the heading of the section it opens."""
    return [
        _item(settings, subscriber, pick, now, heading)
        for pick, heading in zip(picks, headings(picks, edition.period), strict=True)
    ]


# An object rather than a dict: Jinja looks an attribute up before an item, and a dict's
# failed attribute lookup (an exception) for each of the ~100 fields of a digest adds up.
@dataclass(frozen=True, slots=True)
class DigestItem:
    """One paper of a digest, its TeX already made readable text (mail renders no maths)."""

    title: str
    authors: str
    lead: str  # the abstract's first sentence
    reason: str
    chance: str | None  # "12% chance to be featured on Hugging Face", day editions only
    url: str  # the paper's page on Paperboy
    arxiv_url: str
    feedback_url: str  # a page offering "more like this" and "less like this"
    heading: str | None = None  # the section this item opens, if it opens one


def paper_url(settings: Settings, arxiv_id: str) -> str:
    """The paper's page on this Paperboy (absolute: a mail has no base URL)."""
    return f"{settings.public_base_url.rstrip('/')}/papers/{arxiv_id}"


def _item(
    settings: Settings, subscriber: Reader, pick: Pick, now: datetime, heading: str | None = None
) -> DigestItem:
    paper = pick.paper
    authors = ", ".join(paper.authors[:MAX_AUTHORS_SHOWN])
    if len(paper.authors) > MAX_AUTHORS_SHOWN:
        authors += f" and {len(paper.authors) - MAX_AUTHORS_SHOWN} more"
    return DigestItem(
        title=readable(paper.title),
        authors=authors,
        lead=readable(first_sentence(paper.abstract, LEAD_LIMIT)),
        reason=pick.reason,
        chance=None if paper.chance is None else chance_words(paper.chance),
        url=paper_url(settings, paper.arxiv_id),
        arxiv_url=f"https://arxiv.org/abs/{paper.arxiv_id}",
        feedback_url=links.feedback_url(settings, subscriber, paper.arxiv_id, now),
        heading=heading,
    )


NOTES_SHOWN = 5
REVIEW_TOPICS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class EmergingNote:
    label: str
    rise: str  # the rise in words
    new_phrases: list[str]
    url: str  # its card on /emerging


def emerging_notes(session: Session, settings: Settings, edition: EditionKey) -> list[EmergingNote]:
    """The week's strongest emerging topics (none for a day or month edition)."""
    if edition.period != "week":
        return []
    monday = span("week", edition.edition_date).key
    rows = session.scalars(
        select(EmergingTopic)
        .where(EmergingTopic.week == monday)
        .order_by(EmergingTopic.position)
        .limit(NOTES_SHOWN)
    )
    year, number, _ = monday.isocalendar()
    page = f"{settings.public_base_url.rstrip('/')}/emerging?week={year}-W{number:02d}"
    return [
        EmergingNote(
            label=row.label,
            rise=rise_words(row.recent_share, row.baseline_share),
            new_phrases=list(row.new_phrases[:3]),
            url=f"{page}#emerging-{row.position + 1}",
        )
        for row in rows
    ]


def rise_words(recent_share: float, baseline_share: float) -> str:
    share = f"{recent_share:.1%} of the last weeks' papers"
    if not baseline_share:
        return f"{share}, none before"
    return f"{share}, {recent_share / baseline_share:.1f} times its share before"


@dataclass(frozen=True, slots=True)
class ReviewLine:
    label: str
    trend: str  # "rising, 26 papers (15.0 a week before)"
    paper: str  # the representative paper's title
    paper_url: str


@dataclass(frozen=True, slots=True)
class ReviewNote:
    url: str  # the week's page
    summary: str
    topics: list[ReviewLine]


def review_note(session: Session, settings: Settings, edition: EditionKey) -> ReviewNote | None:
    """The week in review's first topics (a week edition whose week is written up)."""
    if edition.period != "week":
        return None
    monday = span("week", edition.edition_date).key
    stored = session.get(WeekReview, monday)
    if stored is None:
        return None
    site = settings.public_base_url.rstrip("/")
    year, number, _ = monday.isocalendar()
    body = stored.body
    return ReviewNote(
        url=f"{site}/week-in-review?week={year}-W{number:02d}",
        summary=(
            f"Hugging Face featured {body['featured']} of the week's {body['papers']} papers, "
            f"{body['covered']} of them in the topics the review names"
        ),
        topics=[_line(topic, site) for topic in body["topics"][:REVIEW_TOPICS_SHOWN]],
    )


def _line(topic: dict[str, Any], site: str) -> ReviewLine:
    paper = topic["representative"]
    earlier = "" if topic["trend"] == "new" else f" ({topic['earlier']:.1f} a week before)"
    return ReviewLine(
        label=topic["label"],
        trend=f"{topic['trend']}, {topic['papers']} papers{earlier}",
        paper=paper["title"],
        paper_url=f"{site}/papers/{paper['arxiv_id']}",
    )


class BuiltDigest(NamedTuple):
    message: OutgoingMail
    item_count: int
    catch_up: bool = False  # a catch-up of missed days: sent, the reader is back


def build_digest(
    settings: Settings,
    session: Session,
    reader: Reader,
    view: EditionView,
    edition: EditionKey,
    now: datetime,
    tastes: Tastes,
    message_id: str | None = None,
    gap: Gap | None = None,
) -> BuiltDigest | None:
    """The reader's digest and its size, or None when it would be empty and unwanted
    (``message_id``: an earlier try's, which it carries again; ``gap``: the days a catch-up
    covers, ``view`` being theirs)."""
    if gap is None:
        picks = reader_picks(settings, session, reader, view, tastes)
        away = None
    else:
        wider = replace(reader, max_items=MAX_PAPERS)
        picks = gathered(reader_picks(settings, session, wider, view, tastes))
        away = Away(gap.first, gap.last, changes(session, gap))
    if not picks and not reader.send_empty:
        return None
    notes = WeekNotes(
        emerging_notes(session, settings, edition), review_note(session, settings, edition)
    )
    message = digest_message(settings, reader, edition, picks, now, message_id, away, notes)
    return BuiltDigest(message, len(picks), catch_up=gap is not None)
