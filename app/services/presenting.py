"""Pure helpers the pages, feeds and API present papers with: a title's LaTeX as text, a
topic label's key phrases, an edition's headings and the hour a day's papers are announced.

They read nothing stored; the web reaches them here, through the use-case layer.
"""

from __future__ import annotations

from app.core.tex import readable
from digest.compose import headings
from digest.selection import EditionView
from ingest.calendar import announcement_time
from ranking.keyphrases import key_phrases, load_stop_words

__all__ = [
    "EditionView",
    "announcement_time",
    "headings",
    "key_phrases",
    "load_stop_words",
    "readable",
]
