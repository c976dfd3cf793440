"""Hugging Face's thumbnails of papers: fetched once at ingest, checked, made small, stored.

A day's page names each paper's social card (``thumbnail``, on Hugging Face's CDN). Live
ingest fetches the ones it has not stored yet from that address, through a politeness gate of
their own (one request at a time for the whole deployment, ``PAPERBOY_HF_THUMBNAIL_INTERVAL_
SECONDS`` apart), with their own timeout and a byte cap far below the feeds'. Pillow then
checks it is a real image of a common format, refuses one over ``PAPERBOY_HF_THUMBNAIL_MAX_
PIXELS`` before decoding it, and makes it a small WebP of :data:`THUMBNAIL_SIZE`. The pages serve
that copy from Paperboy itself, so a reader's browser never asks Hugging Face for anything.

Only addresses on ``PAPERBOY_HF_THUMBNAIL_HOSTS`` (Hugging Face's CDN) are fetched, and a
redirect is not followed: the day's page names the address, and ingest must not be sent
anywhere else by it. A thumbnail that cannot be had (another host, not an image, too large,
never arriving) is named in the run's report and logged; the paper and its signals are stored
all the same, and a thumbnail stored before stays.
"""

from __future__ import annotations

import hashlib
import io
import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

import requests
from PIL import Image, ImageOps, UnidentifiedImageError
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.models import HfThumbnail
from ingest.errors import SourceError
from ingest.hf_daily import HfSignal
from ingest.http import ByteLimit, Gate, PoliteSession, get

# Stored size: twice the largest a page shows it, for sharp screens; the 40:21 of a social
# card, which is what Hugging Face's are (a thumbnail of another shape is cropped to fit).
THUMBNAIL_SIZE = (320, 168)
# The formats a thumbnail may come in; Pillow's rarer decoders are never reached.
FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
GATE = "hf-thumbnails"
_WEBP_QUALITY = 70
_LEASE_TIMEOUTS = 4

logger = logging.getLogger(__name__)


class ThumbnailError(SourceError):
    """The answer is not a thumbnail Paperboy keeps (not an image, or too large)."""


@dataclass(frozen=True, slots=True)
class Wanted:
    arxiv_id: str
    url: str


@dataclass(frozen=True, slots=True)
class Thumbnail:
    arxiv_id: str
    source_url: str
    image: bytes  # WebP

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.image).hexdigest()


@dataclass(frozen=True, slots=True)
class Fetched:
    """The thumbnails made, and why each of the others could not be (one line each)."""

    thumbnails: list[Thumbnail] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def thumbnail_session(settings: Settings, engine: Engine) -> PoliteSession:
    """The session thumbnails are fetched with: gated, retried, capped in bytes."""
    gate = Gate(
        engine,
        interval=settings.hf_thumbnail_interval_seconds,
        lease=settings.hf_thumbnail_timeout_seconds * _LEASE_TIMEOUTS,
        name=GATE,
    )
    limit = ByteLimit(settings.hf_thumbnail_max_bytes, "PAPERBOY_HF_THUMBNAIL_MAX_BYTES")
    return PoliteSession(settings, gate, byte_limit=limit)


def wanted(session: Session, signals: Sequence[HfSignal]) -> list[Wanted]:
    """The thumbnails to fetch: each paper's, unless it is stored from that same address."""
    addresses = {s.arxiv_id: s.thumbnail_url for s in signals if s.thumbnail_url is not None}
    if not addresses:
        return []
    query = select(HfThumbnail.arxiv_id, HfThumbnail.source_url).where(
        HfThumbnail.arxiv_id.in_(list(addresses))
    )
    stored = {row.arxiv_id: row.source_url for row in session.execute(query)}
    return [
        Wanted(arxiv_id, url) for arxiv_id, url in addresses.items() if stored.get(arxiv_id) != url
    ]


def fetch_thumbnails(
    session: requests.Session, settings: Settings, wanted: Sequence[Wanted]
) -> Fetched:
    """Fetch and shrink each wanted thumbnail; one that fails is named, the others go on."""
    fetched = Fetched()
    for one in wanted:
        try:
            image = small_image(_body(session, settings, one.url), settings.hf_thumbnail_max_pixels)
        except SourceError as error:
            reason = f"thumbnail of {one.arxiv_id}: {error}"
            logger.warning("%s", reason)
            fetched.refused.append(reason)
            continue
        fetched.thumbnails.append(Thumbnail(one.arxiv_id, one.url, image))
    return fetched


def _body(session: requests.Session, settings: Settings, url: str) -> bytes:
    """The answer at ``url``, if its host is one thumbnails come from and it answers itself."""
    host = (urlsplit(url).hostname or "").lower()
    if urlsplit(url).scheme not in ("http", "https") or host not in settings.hf_thumbnail_hosts:
        raise ThumbnailError(
            f"{(host or url)[:100]!r} is not a host thumbnails are fetched from "
            "(PAPERBOY_HF_THUMBNAIL_HOSTS); not fetched"
        )
    timeout = settings.hf_thumbnail_timeout_seconds
    response = get(session, url, timeout=timeout, allow_redirects=False)
    if response.is_redirect:
        raise ThumbnailError(f"HTTP {response.status_code}, a redirect: not followed")
    return response.content


def small_image(body: bytes, max_pixels: int) -> bytes:
    """``body`` as a WebP of :data:`THUMBNAIL_SIZE`, or :class:`ThumbnailError` saying why not.

    The size is read from the header and checked before any pixel is decoded, so a small file
    that claims a huge image costs nothing.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(body), formats=FORMATS) as image:
                width, height = image.size
                if width * height > max_pixels:
                    raise ThumbnailError(
                        f"{width}x{height} pixels, over the limit of {max_pixels:,} "
                        "(PAPERBOY_HF_THUMBNAIL_MAX_PIXELS)"
                    )
                image.load()
                small = ImageOps.fit(image.convert("RGB"), THUMBNAIL_SIZE)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise ThumbnailError(f"too many pixels to decode ({error})") from error
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        raise ThumbnailError(f"not an image ({type(error).__name__})") from error
    out = io.BytesIO()
    small.save(out, "WEBP", quality=_WEBP_QUALITY)
    return out.getvalue()


def store_thumbnails(session: Session, thumbnails: Sequence[Thumbnail], now: datetime) -> None:
    """Store each thumbnail, in place of the paper's earlier one."""
    for thumbnail in thumbnails:
        row = session.get(HfThumbnail, thumbnail.arxiv_id)
        if row is None:
            row = HfThumbnail(arxiv_id=thumbnail.arxiv_id)
            session.add(row)
        row.source_url, row.image = thumbnail.source_url, thumbnail.image
        row.digest, row.fetched_at = thumbnail.digest, now
