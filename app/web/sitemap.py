"""What crawlers read at the site's root: ``/robots.txt`` and ``/sitemap.xml`` (pure).

The sitemap follows the sitemaps.org protocol: one ``<urlset>`` of at most 50,000 absolute
URLs (and under 50 MB, which 50,000 short URLs stay far below), so it never needs an index
file; the caller lists the most useful pages first and whatever passes the limit is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from xml.etree import ElementTree as ET  # builds, never parses

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 50_000
# Pages with nothing for a search engine: the API, a reader's own subscription pages, sign-in
# and votes (a vote is a POST, but a crawler has no business near it either).
DISALLOWED = ("/api/", "/subscriptions/", "/signin", "/votes")


@dataclass(frozen=True, slots=True)
class SiteUrl:
    """A page of the site by its path (``/papers/2512.14133``), and when it last changed."""

    path: str
    lastmod: date | None = None


def robots_txt(site_url: str) -> str:
    """Every page allowed but the private and machine paths, and where the sitemap is."""
    lines = ["User-agent: *", "Allow: /", *(f"Disallow: {path}" for path in DISALLOWED)]
    return "\n".join([*lines, "", f"Sitemap: {site_url}/sitemap.xml", ""])


def sitemap_xml(site_url: str, urls: list[SiteUrl]) -> bytes:
    """The ``<urlset>`` of the first :data:`MAX_URLS` URLs, each made absolute on ``site_url``
    (the public base URL, no trailing slash)."""
    root = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for url in urls[:MAX_URLS]:
        entry = ET.SubElement(root, "url")
        ET.SubElement(entry, "loc").text = site_url + url.path
        if url.lastmod is not None:
            ET.SubElement(entry, "lastmod").text = url.lastmod.isoformat()
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body
