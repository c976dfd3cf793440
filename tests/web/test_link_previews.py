"""Link previews as a link-sharing site reads them: every indexable page's OpenGraph, Twitter
Card and canonical tags read by a real metadata parser (metadata_parser), and each kind of
``og:image`` fetched and decoded (Pillow) as the 1200 by 630 PNG it says it is."""

from __future__ import annotations

import io
from typing import Any

import metadata_parser
import pytest
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import select

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import PaperAuthor
from app.services.previews.drawing import HEADLINE_LINES, Preview, drawn, font, wrapped
from app.services.previews.stored import paper_preview
from tests.web.conftest import HF_PAPER, HOSTILE_ID, HOSTILE_TITLE, LAST_DAY
from tests.web.helpers import a_topic_of

MINIMUM = ("title", "type", "image", "url")  # the OpenGraph protocol's required four


def tags(html: str) -> dict[str, Any]:
    """The page's metadata as metadata_parser reads it: ``og``, ``twitter`` and ``page``."""
    parsed = metadata_parser.MetadataParser(html=html, search_head_only=True)
    metadata: dict[str, Any] = parsed.parsed_result.metadata
    return metadata


def preview_of(client: TestClient, settings: Settings, found: dict[str, Any]) -> bytes:
    """The bytes of the page's ``og:image``, fetched from this site as a PNG."""
    url = found["og"]["image"]
    site = settings.public_base_url.rstrip("/")
    assert url.startswith(site + "/previews/")
    answer = client.get(url.removeprefix(site))
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/png"
    return answer.content


def image_of(client: TestClient, settings: Settings, found: dict[str, Any]) -> Image.Image:
    image = Image.open(io.BytesIO(preview_of(client, settings, found)))
    image.load()
    return image


def indexable_pages(settings: Settings) -> dict[str, str]:
    topic, _ = a_topic_of(settings, LAST_DAY)
    return {
        "trending": "/",
        "week": "/?period=week",
        "paper": f"/papers/{HF_PAPER}",
        "topic": f"/topics/{topic}",
        "topics": "/topics",
        "author": "/authors/" + _an_author_key(settings),
        "organization": "/organizations/ByteDance-Seed",
        "search": "/search",
        "subscribe": "/subscribe",
        "privacy": "/privacy",
        "month": "/?period=month",
    }


def _an_author_key(settings: Settings) -> str:
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
        key = s.scalar(select(PaperAuthor.author_key).where(PaperAuthor.arxiv_id == HF_PAPER))
    assert key is not None
    return key


@pytest.mark.parametrize(
    "kind",
    [
        "trending",
        "week",
        "month",
        "paper",
        "topic",
        "topics",
        "author",
        "organization",
        "search",
        "subscribe",
        "privacy",
    ],
)
def test_every_indexable_page_carries_opengraph_twitter_and_canonical_tags(
    client: TestClient, site_settings: Settings, kind: str
) -> None:
    path = indexable_pages(site_settings)[kind]
    found = tags(client.get(path).text)
    og, twitter, page = found["og"], found["twitter"], found["page"]
    assert all(og.get(name) for name in MINIMUM), og
    assert og["url"] == page["canonical"]
    assert og["url"].startswith(site_settings.public_base_url.rstrip("/") + "/")
    assert og["description"] and og["site_name"] == "Paperboy"
    assert (og["image:width"], og["image:height"]) == ("1200", "630")
    assert twitter["card"] == "summary_large_image"
    assert twitter["image"] == og["image"] and twitter["title"] == og["title"]
    image = image_of(client, site_settings, found)
    assert (image.format, image.size) == ("PNG", (1200, 630))


def test_an_editions_canonical_address_names_it_whatever_the_filters(
    client: TestClient, site_settings: Settings
) -> None:
    site = site_settings.public_base_url.rstrip("/")
    plain = tags(client.get(f"/?date={LAST_DAY.isoformat()}").text)
    filtered = tags(client.get(f"/?date={LAST_DAY.isoformat()}&category=cs.CV").text)
    assert plain["page"]["canonical"] == f"{site}/?period=day&date={LAST_DAY.isoformat()}"
    assert filtered["page"]["canonical"] == plain["page"]["canonical"]
    assert plain["og"]["image"] == f"{site}/previews/day/{LAST_DAY.isoformat()}.png"
    second = tags(client.get(f"/?date={LAST_DAY.isoformat()}&page=2").text)
    assert second["page"]["canonical"] == f"{site}/?period=day&date={LAST_DAY.isoformat()}&page=2"


def test_each_kind_of_preview_is_its_own_image(client: TestClient, site_settings: Settings) -> None:
    pages = indexable_pages(site_settings)
    bodies = {
        kind: preview_of(client, site_settings, tags(client.get(pages[kind]).text))
        for kind in ("trending", "week", "paper", "topic", "author")
    }
    assert len(set(bodies.values())) == len(bodies)  # the author's is the site's own
    assert all(body.startswith(b"\x89PNG\r\n\x1a\n") for body in bodies.values())


def test_a_hostile_title_is_plain_text_in_the_tags(client: TestClient) -> None:
    html = client.get(f"/papers/{HOSTILE_ID}").text
    head = html.split("</head>", 1)[0]
    assert "<script>alert" not in head and "<img src=x" not in head
    assert tags(html)["og"]["title"] == HOSTILE_TITLE


def test_a_preview_is_kept_and_answers_304_to_its_etag(client: TestClient) -> None:
    first = client.get(f"/previews/papers/{HF_PAPER}.png")
    assert first.headers["cache-control"] == "public, max-age=86400"
    again = client.get(
        f"/previews/papers/{HF_PAPER}.png", headers={"if-none-match": first.headers["etag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/previews/papers/2501.99999.png", 404),
        ("/previews/papers/not-an-id.png", 404),
        ("/previews/topics/999999.png", 404),
        ("/previews/day/1999-01-04.png", 404),
        ("/previews/year/2025-12-19.png", 400),
        ("/previews/day/2025-13-40.png", 400),
    ],
)
def test_a_preview_of_nothing_stored_or_of_a_malformed_name_is_refused(
    client: TestClient, path: str, status: int
) -> None:
    assert client.get(path).status_code == status
    assert client.get(path).status_code == status  # a refusal is not kept as an image


def test_a_papers_preview_says_its_upvotes_and_names_its_first_authors(
    site_settings: Settings,
) -> None:
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        preview = paper_preview(s, HF_PAPER)
    assert preview is not None
    assert preview.footer.startswith("▲ 42 upvotes")
    assert preview.lines[0].count(",") <= 2
    assert preview.lines[1].startswith("◆ ")


def test_a_long_title_is_cut_at_a_word_within_the_lines_and_the_width() -> None:
    face = font(56, bold=True)
    title = " ".join(["Transformers"] * 60)
    lines = wrapped(title, face, 1056, HEADLINE_LINES)
    assert len(lines) == HEADLINE_LINES
    assert lines[-1].endswith("…")
    assert all(face.getlength(line) <= 1056 for line in lines)
    assert all(word == "Transformers" for line in lines for word in line.rstrip("…").split())


def test_a_preview_is_drawn_for_any_text() -> None:
    said = Preview(
        kicker="", headline="x" * 500, lines=("\u211d \u2211 \u03b1 \u2192 \u221e", ""), footer=""
    )
    image = Image.open(io.BytesIO(drawn(said)))
    assert image.size == (1200, 630)
