"""A link preview drawn: the 1200 by 630 PNG a link-sharing site shows (``og:image``) for a
paper, an edition or a topic, drawn from plain text (pure: text in, PNG bytes out). Each image
carries the digest of what it says (:func:`said`), so that a stored one is drawn again only when
its words change.

The text is drawn with DejaVu Sans where the system has it (Debian's fonts-dejavu: Greek,
maths symbols, accents), else with the font Pillow carries, so an image is drawn on any
machine. Text that does not fit is cut at a word with an ellipsis, never squeezed.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import astuple, dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pillow is imported on the first drawing, not as the web app starts
    from PIL import ImageDraw, ImageFont

    Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

WIDTH, HEIGHT = 1200, 630
MARGIN = 72
BACKGROUND = "#fbfaf7"
INK = "#1d1d1f"
MUTED = "#5b5b66"
ACCENT = "#b3261e"
FONT_FOLDERS = (Path("/usr/share/fonts/truetype/dejavu"),)
HEADLINE_SIZE, HEADLINE_LINES = 56, 4
LINE_SIZE, LINES_SHOWN = 30, 4
KICKER_SIZE, FOOTER_SIZE = 28, 32
# The PNG text chunk that holds the digest of what the image says.
SAID_KEY = "paperboy-said"
# Raised when the layout changes, so that every stored image is drawn again.
DRAWING_VERSION = 1


@dataclass(frozen=True, slots=True)
class Preview:
    """What one image says, top to bottom."""

    kicker: str  # the small line above: "Paper · announced 18 Dec 2025"
    headline: str  # the title, topic or edition
    lines: tuple[str, ...]  # authors, the topic, or the first titles
    footer: str  # the chance, the upvotes or the rank


def said(preview: Preview) -> str:
    """A digest of everything the image says and how it is drawn (this module's layout and
    the font found): equal digests draw equal images."""
    drawing = [DRAWING_VERSION, _font_file(), *astuple(preview)]
    return hashlib.sha256(json.dumps(drawing, ensure_ascii=False).encode()).hexdigest()


@cache
def font(size: int, *, bold: bool = False) -> Font:
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_FOLDERS:
        if (folder / name).is_file():
            return ImageFont.truetype(str(folder / name), size)
    return ImageFont.load_default(size)


@cache
def _font_file() -> str:
    """The font the images are drawn with, or "" for the one Pillow carries."""
    return next((str(f) for f in FONT_FOLDERS if (f / "DejaVuSans.ttf").is_file()), "")


def wrapped(text: str, face: Font, width: int, most: int) -> list[str]:
    """``text`` in lines no wider than ``width``, at most ``most``; the last cut with "…"."""
    lines: list[str] = []
    for word in text.split():
        if lines and face.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    if len(lines) > most:
        lines = [*lines[: most - 1], fitted(" ".join(lines[most - 1 :]), face, width)]
    return [fitted(line, face, width) for line in lines]


def fitted(text: str, face: Font, width: int) -> str:
    """``text`` if it fits ``width``, else its longest opening that fits with "…"."""
    if face.getlength(text) <= width:
        return text
    words = text.split()
    while len(words) > 1 and face.getlength(" ".join(words) + "…") > width:
        words.pop()
    cut = " ".join(words)
    while cut and face.getlength(cut + "…") > width:
        cut = cut[:-1]
    return cut + "…"


def drawn(preview: Preview) -> bytes:
    """The preview as a PNG."""
    from PIL import Image, ImageDraw, PngImagePlugin

    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, 16, HEIGHT), fill=ACCENT)
    width = WIDTH - 2 * MARGIN
    pen.text(
        (MARGIN, 56), fitted(preview.kicker, font(KICKER_SIZE), width), MUTED, font(KICKER_SIZE)
    )
    y = 112
    headline = font(HEADLINE_SIZE, bold=True)
    for line in wrapped(preview.headline, headline, width, HEADLINE_LINES):
        pen.text((MARGIN, y), line, INK, headline)
        y += round(HEADLINE_SIZE * 1.22)
    y += 20
    for line in preview.lines[:LINES_SHOWN]:
        pen.text((MARGIN, y), fitted(line, font(LINE_SIZE), width), MUTED, font(LINE_SIZE))
        y += round(LINE_SIZE * 1.4)
    _footer(pen, preview.footer)
    chunks = PngImagePlugin.PngInfo()
    chunks.add_text(SAID_KEY, said(preview))
    out = io.BytesIO()
    # zlib's default level: "optimize" costs several times the drawing for little smaller files.
    image.save(out, format="PNG", pnginfo=chunks)
    return out.getvalue()


def _footer(pen: ImageDraw.ImageDraw, footer: str) -> None:
    bold, brand = font(FOOTER_SIZE, bold=True), "Paperboy"
    brand_width = bold.getlength(brand)
    text = fitted(footer, bold, int(WIDTH - 2 * MARGIN - brand_width - 40))
    baseline = HEIGHT - 56 - FOOTER_SIZE
    pen.text((MARGIN, baseline), text, ACCENT, bold)
    pen.text((WIDTH - MARGIN - brand_width, baseline), brand, INK, bold)
