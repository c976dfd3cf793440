"""Feeds for readers: RSS 2.0, Atom and JSON Feed 1.1 of the trending edition (filled below)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/feeds", tags=["feeds"])
