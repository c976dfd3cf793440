"""The link previews of published editions, drawn by the daily job when it publishes and stored
as files under ``DATA_DIR/link-previews`` (beside the search index), so that the web reads a
file for them instead of drawing: an edition's own image, and its papers' and topics'.

A stored image is drawn again only when what it says has changed (its digest, kept in the
image), so the signals job's rebuilds redraw only the papers whose upvotes or chance moved.
Files are written whole and then renamed into place: a reader never sees half an image.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.editions import latest_edition
from app.core.models import Edition, TopicDay
from app.core.periods import PERIODS, span
from app.services.previews.drawing import SAID_KEY, Preview, drawn, said
from app.services.previews.texts import edition_preview, paper_preview, topic_preview
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
