"""Hugging Face's summary, thumbnail and comments on Paperboy's pages and API: the summary only
as Hugging Face's (escaped, behind PAPERBOY_SHOW_HF_SUMMARY), the thumbnail as Paperboy's own
copy served with long caching (no request to anyone else), the comments said as Hugging Face's."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

from fastapi.testclient import TestClient
from PIL import Image

from app.core.config import Settings
from app.web.app import create_app
from ingest.hf_thumbnails import THUMBNAIL_SIZE
from tests.web.conftest import HF_DISCUSSION, HF_PAPER, LAST_DAY, THUMBNAILED

THUMB = re.compile(r'<img class="thumb" src="(/thumbnails/[0-9a-f]{64}\.webp)"')


class Images(HTMLParser):
    """Every image's address and every script of a page, as a browser would find them."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")
        if tag == "script":
            self.scripts.append(dict(attrs))


def parsed(html: str) -> Images:
    images = Images()
    images.feed(html)
    return images


def test_cards_show_paperboys_own_thumbnails_and_nothing_from_elsewhere(
    client: TestClient,
) -> None:
    page = client.get(f"/?date={LAST_DAY.isoformat()}")
    assert page.status_code == 200
    thumbs = THUMB.findall(page.text)
    assert len(thumbs) >= THUMBNAILED - 1  # the edition's first papers, one per card
    assert all(src.startswith("/") for src in parsed(page.text).sources)
    assert "img-src 'self' data:;" in page.headers["Content-Security-Policy"]


def test_a_thumbnail_is_served_small_and_cached_for_good(client: TestClient) -> None:
    src = THUMB.findall(client.get(f"/?date={LAST_DAY.isoformat()}").text)[0]
    answer = client.get(src)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "image/webp"
    assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    with Image.open(io.BytesIO(answer.content)) as image:
        assert (image.format, image.size) == ("WEBP", THUMBNAIL_SIZE)


def test_an_unknown_or_malformed_thumbnail_address_is_not_found(client: TestClient) -> None:
    for path in ("/thumbnails/" + "0" * 64 + ".webp", "/thumbnails/..%2Fpaperboy.webp"):
        assert client.get(path).status_code == 404


def test_the_summary_is_shown_as_hugging_faces_and_its_markup_stays_inert(
    client: TestClient,
) -> None:
    html = client.get(f"/papers/{HF_PAPER}").text
    assert "<strong>Summary by Hugging Face:</strong>" in html
    assert "&lt;script&gt;alert(5)&lt;/script&gt; A &lt;b&gt;bold&lt;/b&gt; claim" in html
    assert "<script>alert(5)" not in html and "<b>bold</b>" not in html
    assert all("alert" not in str(script) for script in parsed(html).scripts)
    assert THUMB.search(html)


def test_comments_are_said_as_hugging_faces_and_link_to_its_discussion(
    client: TestClient,
) -> None:
    html = client.get(f"/papers/{HF_PAPER}").text
    link = re.search(r'<a href="([^"]+)"[^>]*data-discussion="([^"]+)">([^<]+)</a>', html)
    assert link is not None
    assert link.groups() == (
        f"https://huggingface.co/papers/{HF_PAPER}#community",
        HF_DISCUSSION,
        "3 comments on Hugging Face",
    )


def test_the_summary_is_hidden_when_the_operator_turns_it_off(site_settings: Settings) -> None:
    hidden = site_settings.model_copy(update={"show_hf_summary": False})
    with TestClient(create_app(hidden)) as without:
        html = without.get(f"/papers/{HF_PAPER}").text
        assert "Summary by Hugging Face" not in html and "alert(5)" not in html
        # The API still answers Hugging Face's data.
        assert without.get(f"/api/papers/{HF_PAPER}").json()["ai_summary"].startswith("<script>")


def test_the_api_answers_hugging_faces_fields_in_its_shape(
    client: TestClient, site_settings: Settings
) -> None:
    detail = client.get(f"/api/papers/{HF_PAPER}").json()
    assert detail["discussionId"] == HF_DISCUSSION
    assert detail["thumbnail"].startswith(f"{site_settings.public_base_url}/thumbnails/")
    items = client.get(f"/api/daily_papers?date={LAST_DAY.isoformat()}&sort=trending").json()
    assert items[0]["thumbnail"].endswith(".webp")
    bare = [item for item in items if "thumbnail" not in item]
    assert bare and all("ai_summary" not in item["paper"] for item in bare)
    assert all("ai_summary" not in item for item in bare)
