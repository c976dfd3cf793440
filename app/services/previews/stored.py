"""The link previews of published editions, drawn by the daily job when it publishes and stored
as files under ``DATA_DIR/link-previews`` (beside the search index), so that the web reads a
file for them instead of drawing: an edition's own image, and its papers' and topics'.

A stored image is drawn again only when what it says has changed (its digest, kept in the
image), so the signals job's rebuilds redraw only the papers whose upvotes or chance moved.
Files are written whole and then renamed into place: a reader never sees half an image.

What each preview says is read from the store here too: a paper's, an edition's and a topic's
words (:mod:`app.services.previews.drawing` draws them). TeX in titles is made plain, as mail
makes it.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.explanations import chance_words
from app.core.models import (
    Edition,
    EditionItem,
    HfDailyPaper,
    Paper,
    PaperAuthor,
    PaperTopic,
    TopicDay,
)
from app.core.names import author_key
from app.core.periods import PERIODS, Period, span
from app.core.reads import human_label, latest_edition
from app.core.tex import readable
from app.services.previews.drawing import SAID_KEY, Preview, drawn, said
from app.services.reports import Completed

log = logging.getLogger(__name__)
FOLDER = "link-previews"
# A preview's key: its kind ("paper", "topic" or an edition's period) and its name there.
PreviewKey = tuple[str, str]
_FOLDERS = {"paper": "papers", "topic": "topics"}
# What a key's parts may be as names of files: never a path of their own.
_FILE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
# How long a stored image is served after the daily job last drew or checked it: the job
# checks the images of every edition holding its day, so theirs stay younger than this.
STORED_FOR = timedelta(days=2)


@dataclass(frozen=True)
class PreviewsReport(Completed):
    drawn: int
    unchanged: int

    def lines(self) -> list[str]:
        if not self.drawn + self.unchanged:  # no edition holds the day
            return []
        return [f"link previews: {self.drawn} drawn, {self.unchanged} unchanged"]


def previews_directory(data_dir: Path) -> Path:
    return data_dir / FOLDER


def stored_path(directory: Path, key: PreviewKey) -> Path:
    """Where the image of ``key`` is stored (an old-style id's slash becomes ``_``)."""
    kind, name = key
    file = name.replace("/", "_")
    if not _FILE_NAME.fullmatch(file) or not _FILE_NAME.fullmatch(kind):
        raise ValueError(f"no preview is stored for {key!r}")
    return directory / _FOLDERS.get(kind, kind) / f"{file}.png"


def read_stored(directory: Path, key: PreviewKey, now: float) -> bytes | None:
    """The stored image of ``key`` if the daily job drew or checked it within
    :data:`STORED_FOR` of ``now`` (seconds since the epoch), else None. An image of what no
    current edition holds any more is left to be drawn on demand, with today's words."""
    try:
        path = stored_path(directory, key)
        if now - path.stat().st_mtime > STORED_FOR.total_seconds():
            return None
        return path.read_bytes()
    except (OSError, ValueError):  # none stored (the site's own), or unreadable: draw it
        return None


def draw_published(
    settings: Settings, sessions: sessionmaker[Session], day: date
) -> PreviewsReport:
    """Store the images of the editions that hold ``day`` (its day, week and month), of their
    papers and of their topics, drawing only those whose words changed."""
    directory = previews_directory(settings.data_dir)
    with session_scope(sessions) as session:
        wanted = published_previews(session, day)
    changed = {key: words for key, words in wanted.items() if not _current(directory, key, words)}
    for key, preview in changed.items():
        _store(stored_path(directory, key), drawn(preview))
    for key in wanted.keys() - changed.keys():
        os.utime(stored_path(directory, key))  # checked today: served for another while
    return PreviewsReport(drawn=len(changed), unchanged=len(wanted) - len(changed))


def published_previews(session: Session, day: date) -> dict[PreviewKey, Preview]:
    """What each image of the editions holding ``day`` says, by key, with every topic of
    the day (a topic's page links its image though none of its papers made an edition)."""
    found: dict[PreviewKey, Preview] = {}
    for period in PERIODS:
        edition = latest_edition(session, period, span(period, day).key, with_items=True)
        if edition is not None:
            found[(period, edition.edition_date.isoformat())] = edition_preview(session, edition)
            found.update(_items_previews(session, edition, found))
    for topic_id in session.scalars(select(TopicDay.topic_id).where(TopicDay.day == day)):
        key = ("topic", str(topic_id))
        if key not in found and (preview := topic_preview(session, topic_id)):
            found[key] = preview
    return found


def _items_previews(
    session: Session, edition: Edition, known: dict[PreviewKey, Preview]
) -> dict[PreviewKey, Preview]:
    found: dict[PreviewKey, Preview] = {}
    for item in edition.items:
        keys: list[PreviewKey] = [("paper", item.arxiv_id)]
        if item.topic_id is not None:
            keys.append(("topic", str(item.topic_id)))
        for key in keys:
            if key not in known and key not in found and (preview := _said(session, key)):
                found[key] = preview
    return found


def _said(session: Session, key: PreviewKey) -> Preview | None:
    kind, name = key
    if kind == "paper":
        return paper_preview(session, name)
    return topic_preview(session, int(name))


def _current(directory: Path, key: PreviewKey, preview: Preview) -> bool:
    """Whether the stored image of ``key`` already says what ``preview`` says."""
    from PIL import Image

    try:
        with Image.open(stored_path(directory, key)) as image:
            return bool(image.info.get(SAID_KEY) == said(preview))
    except (OSError, ValueError):  # none stored, or a file that is no image: draw it
        return False


def _store(path: Path, image: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(image)
        # Readable by the web's user, whichever user the job ran as.
        Path(temporary).chmod(0o644)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


AUTHORS_NAMED = 3
TITLES_LISTED = 3
PERIOD_WORDS = {"day": "The day's", "week": "The week's", "month": "The month's"}
NO_STANDING = "Trending arXiv papers, every morning"


def paper_preview(session: Session, arxiv_id: str) -> Preview | None:
    """Title, first authors, topic; the upvotes and the chance, or the paper's best rank."""
    paper = session.get(Paper, arxiv_id)
    if paper is None:
        return None
    kicker = f"arXiv {arxiv_id}"
    if paper.announced_on is not None:
        kicker += f" · announced {human_label('day', paper.announced_on)}"
    lines = [_authors(_author_names(session, arxiv_id))]
    topic = _topic_label(session, arxiv_id)
    if topic is not None:
        lines.append(f"◆ {readable(topic)}")
    footer = _standing(_upvotes(session, arxiv_id), _places(session, arxiv_id))
    return Preview(kicker=kicker, headline=readable(paper.title), lines=tuple(lines), footer=footer)


def edition_preview(session: Session, edition: Edition) -> Preview:
    """The edition's name and its first titles."""
    titles = list(
        session.scalars(
            select(Paper.title)
            .join(EditionItem, EditionItem.arxiv_id == Paper.arxiv_id)
            .where(EditionItem.edition_id == edition.id)
            .order_by(EditionItem.position)
        )
    )
    period = edition.period
    return Preview(
        kicker=f"{PERIOD_WORDS[period]} trending arXiv papers",
        headline=human_label(period, edition.edition_date),
        lines=tuple(f"{n}. {readable(t)}" for n, t in enumerate(titles[:TITLES_LISTED], 1)),
        footer=f"{len(titles)} papers ranked",
    )


def topic_preview(session: Session, topic_id: int) -> Preview | None:
    """The topic's name, its newest papers' titles, and its size."""
    days = list(
        session.scalars(
            select(TopicDay).where(TopicDay.topic_id == topic_id).order_by(TopicDay.day)
        )
    )
    if not days:
        return None
    latest, papers = days[-1], sum(day.size for day in days)
    return Preview(
        kicker=f"A topic on Paperboy · since {human_label('day', days[0].day)}",
        headline=readable(latest.label),
        lines=tuple(f"· {readable(title)}" for title in _newest_titles(session, topic_id)),
        footer=f"{papers} paper{'' if papers == 1 else 's'} · {latest.status.value}",
    )


def _newest_titles(session: Session, topic_id: int) -> list[str]:
    return list(
        session.scalars(
            select(Paper.title)
            .join(PaperTopic, PaperTopic.arxiv_id == Paper.arxiv_id)
            .where(PaperTopic.topic_id == topic_id)
            .order_by(PaperTopic.day.desc(), PaperTopic.arxiv_id)
            .limit(TITLES_LISTED)
        )
    )


def _author_names(session: Session, arxiv_id: str) -> list[str]:
    return list(
        session.scalars(
            select(PaperAuthor.name)
            .where(PaperAuthor.arxiv_id == arxiv_id)
            .order_by(PaperAuthor.position)
        )
    )


def _authors(names: list[str]) -> str:
    named = ", ".join(name for name in names[:AUTHORS_NAMED] if author_key(name))
    more = len(names) - AUTHORS_NAMED
    return f"{named} and {more} more" if more > 0 else named


def _topic_label(session: Session, arxiv_id: str) -> str | None:
    """The label of the paper's topic on its newest day in one."""
    return session.scalar(
        select(TopicDay.label)
        .join(
            PaperTopic,
            (TopicDay.topic_id == PaperTopic.topic_id) & (TopicDay.day == PaperTopic.day),
        )
        .where(PaperTopic.arxiv_id == arxiv_id)
        .order_by(PaperTopic.day.desc())
        .limit(1)
    )


def _upvotes(session: Session, arxiv_id: str) -> int:
    """Hugging Face's upvotes on the daily page where the paper had the most."""
    found = session.scalar(
        select(func.max(HfDailyPaper.upvotes)).where(HfDailyPaper.arxiv_id == arxiv_id)
    )
    return found or 0


@dataclass(frozen=True, slots=True)
class Place:
    """An edition the paper is in, and the paper's rank and chance there."""

    period: Period
    edition_date: date
    rank: int
    chance: float | None


def _places(session: Session, arxiv_id: str) -> list[Place]:
    """The paper's place in each edition's newest version that holds it, newest first."""
    rows = session.execute(
        select(Edition.period, Edition.edition_date, EditionItem.position, EditionItem.chance)
        .join(EditionItem, EditionItem.edition_id == Edition.id)
        .where(EditionItem.arxiv_id == arxiv_id)
        .order_by(Edition.edition_date.desc(), Edition.period, Edition.version.desc())
    )
    found: dict[tuple[str, date], Place] = {}
    for period, day, rank, chance in rows:
        place = Place(period=_period(period), edition_date=day, rank=rank, chance=chance)
        found.setdefault((period, day), place)
    return list(found.values())


def _period(name: str) -> Period:
    return next(period for period in PERIODS if period == name)


def _standing(upvotes: int, places: list[Place]) -> str:
    parts = []
    if upvotes:
        parts.append(f"▲ {upvotes} upvote{'' if upvotes == 1 else 's'}")
    chance = next((place.chance for place in places if place.chance is not None), None)
    if chance is not None:
        parts.append(chance_words(chance))
    elif places:
        best = min(places, key=lambda place: place.rank)
        parts.append(
            f"#{best.rank} of the {best.period}, {human_label(best.period, best.edition_date)}"
        )
    return " · ".join(parts) or NO_STANDING
