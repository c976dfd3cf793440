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
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.editions import latest_edition
from app.core.models import Edition
from app.core.periods import PERIODS, span
from app.services.previews.drawing import SAID_KEY, Preview, drawn, said
from app.services.previews.texts import edition_preview, paper_preview, topic_preview
from app.services.reports import Completed

log = logging.getLogger(__name__)
FOLDER = "link-previews"
# A preview's key: its kind ("paper", "topic" or an edition's period) and its name there.
PreviewKey = tuple[str, str]
_FOLDERS = {"paper": "papers", "topic": "topics"}


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
    return directory / _FOLDERS.get(kind, kind) / f"{name.replace('/', '_')}.png"


def read_stored(directory: Path, key: PreviewKey) -> bytes | None:
    """The stored image of ``key``, or None if the daily job drew none."""
    try:
        return stored_path(directory, key).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def draw_published(
    settings: Settings, sessions: sessionmaker[Session], day: date
) -> PreviewsReport:
    """Store the images of the editions that hold ``day`` (its day, week and month), of their
    papers and of their topics, drawing only those whose words changed."""
    directory = previews_directory(settings.data_dir)
    with session_scope(sessions) as session:
        wanted = published_previews(session, day)
    changed = {key: said for key, said in wanted.items() if not _current(directory, key, said)}
    for key, preview in changed.items():
        _store(stored_path(directory, key), drawn(preview))
    return PreviewsReport(drawn=len(changed), unchanged=len(wanted) - len(changed))


def published_previews(session: Session, day: date) -> dict[PreviewKey, Preview]:
    """What each image of the editions holding ``day`` says, by key."""
    found: dict[PreviewKey, Preview] = {}
    for period in PERIODS:
        edition = latest_edition(session, period, span(period, day).key, with_items=True)
        if edition is not None:
            found[(period, edition.edition_date.isoformat())] = edition_preview(session, edition)
            found.update(_items_previews(session, edition, found))
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
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
