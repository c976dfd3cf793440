"""Hugging Face's thumbnails of papers as Paperboy stored them at ingest:
``/thumbnails/{digest}.webp``, where ``digest`` is the image's SHA-256.

The address names the image, so what it serves never changes: kept a year, immutable. Every
web process reads it from the database, and a reader's browser asks no one but Paperboy.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Response
from sqlalchemy import select

from app.core.models import HfThumbnail
from app.core.refusals import NotFound
from app.web.context import SessionDep

router = APIRouter(include_in_schema=False)
DIGEST = re.compile(r"[0-9a-f]{64}")
KEPT_FOR_GOOD = "public, max-age=31536000, immutable"


@router.get("/thumbnails/{digest}.webp")
def thumbnail(digest: str, session: SessionDep) -> Response:
    if not DIGEST.fullmatch(digest):
        raise NotFound("no such thumbnail")
    query = select(HfThumbnail.image).where(HfThumbnail.digest == digest).limit(1)
    image = session.scalar(query)
    if image is None:
        raise NotFound("no such thumbnail")
    headers = {"Cache-Control": KEPT_FOR_GOOD, "ETag": f'"{digest}"'}
    return Response(image, media_type="image/webp", headers=headers)
