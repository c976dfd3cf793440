"""The files at the site's root (favicon, robots.txt, sitemap.xml) and the API docs page."""

from __future__ import annotations

import re
import struct
from datetime import date

from defusedxml.ElementTree import fromstring
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.core.db import make_engine, make_session_factory
from app.web.middleware.security import CSP
from app.web.routes.site import MAX_URLS, SITEMAP_NS, SiteUrl, site_urls, sitemap_xml
from tests.web.conftest import HF_PAPER, LAST_DAY
from tests.web.helpers import a_topic_of, edition_ids

PNG = b"\x89PNG\r\n\x1a\n"
NS = {"s": SITEMAP_NS}


def test_the_favicon_is_an_ico_of_pngs_at_the_usual_sizes(client: TestClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/x-icon"
    body = response.content
    reserved, kind, count = struct.unpack_from("<HHH", body)
    assert (reserved, kind) == (0, 1)
    sizes = set()
    for index in range(count):
        width, _, _, _, _, _, length, offset = struct.unpack_from("<BBBBHHII", body, 6 + 16 * index)
        assert body[offset : offset + 8] == PNG and offset + length <= len(body)
        sizes.add(width)
    assert {16, 32} <= sizes


def test_robots_allows_pages_keeps_crawlers_off_private_paths_and_names_the_sitemap(
    client: TestClient, site_settings: Settings
) -> None:
    response = client.get("/robots.txt")
    assert response.headers["content-type"].startswith("text/plain")
    lines = response.text.splitlines()
    assert lines[0] == "User-agent: *" and "Allow: /" in lines
    disallowed = {line.removeprefix("Disallow: ") for line in lines if line.startswith("Disallow")}
    assert disallowed == {"/api/", "/subscriptions/", "/signin", "/votes"}
    base = site_settings.public_base_url.rstrip("/")
    assert f"Sitemap: {base}/sitemap.xml" in lines


def _locs(client: TestClient) -> list[str]:
    response = client.get("/sitemap.xml")
    assert response.headers["content-type"].startswith("application/xml")
    root = fromstring(response.content)
    assert root.tag == f"{{{SITEMAP_NS}}}urlset"
    entries = root.findall("s:url", NS)
    assert 0 < len(entries) <= MAX_URLS
    for entry in entries:
        assert {child.tag.split("}")[1] for child in entry} <= {"loc", "lastmod"}
        lastmod = entry.findtext("s:lastmod", "2000-01-01", NS)
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", lastmod)
    return [entry.findtext("s:loc", "", NS) for entry in entries]


def test_the_sitemap_lists_editions_papers_topics_and_authors_as_absolute_urls(
    client: TestClient, site_settings: Settings
) -> None:
    locs = _locs(client)
    base = site_settings.public_base_url.rstrip("/")
    assert all(loc.startswith(base + "/") for loc in locs)
    assert len(locs) == len(set(locs))
    assert f"{base}/" == locs[0]
    assert f"{base}/?period=day&date={LAST_DAY.isoformat()}" in locs
    assert f"{base}/?period=week&date=2025-12-15" in locs
    papers = {loc.split("/papers/")[1] for loc in locs if "/papers/" in loc}
    assert set(edition_ids(site_settings, "day", LAST_DAY)) <= papers
    assert HF_PAPER in papers
    topic_id, _ = a_topic_of(site_settings, LAST_DAY)
    assert f"{base}/topics/{topic_id}" in locs
    assert f"{base}/authors/jose-perez" in locs
    for loc in (locs[1], f"{base}/topics/{topic_id}", f"{base}/authors/jose-perez"):
        assert client.get(loc.removeprefix(base)).status_code == 200


def test_the_sitemap_stops_at_its_budget_newest_editions_first(site_settings: Settings) -> None:
    engine = make_engine(site_settings)
    try:
        with make_session_factory(engine)() as session:
            urls = site_urls(session, limit=3)
    finally:
        engine.dispose()
    assert [url.path for url in urls] == [
        "/",
        f"/?period=day&date={LAST_DAY.isoformat()}",
        "/?period=day&date=2025-12-18",
    ]
    assert urls[0].lastmod == urls[1].lastmod


def test_a_sitemap_never_holds_more_than_the_protocols_50000_urls() -> None:
    urls = [SiteUrl(f"/papers/{n}", date(2025, 12, 19)) for n in range(MAX_URLS + 5)]
    root = fromstring(sitemap_xml("https://paperboy.example", urls))
    assert len(root.findall("s:url", NS)) == MAX_URLS


def test_the_api_docs_page_is_served_here_under_the_strict_policy(client: TestClient) -> None:
    page = client.get("/api/docs")
    assert page.headers["content-security-policy"] == CSP
    assert "<script>" not in page.text and "cdn" not in page.text
    for src in re.findall(r'(?:src|href)="(/[^"]+)"', page.text):
        assert client.get(src).status_code == 200, src
    assert client.get("/swagger-ui/index.html").status_code == 400
