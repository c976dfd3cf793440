"""Static files under content-hashed URLs: kept a year when the URL names the current content,
an hour otherwise."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.web.assets import A_YEAR, SHORT, Assets, UnknownAssetError
from app.web.context import STATIC_DIR

LINKED = re.compile(r'(?:src|href)="(/static/([^"?]+)\?v=([0-9a-f]+))"')


def test_each_page_names_its_files_by_their_content_and_they_are_kept_a_year(
    client: TestClient,
) -> None:
    linked = LINKED.findall(client.get("/").text) + LINKED.findall(client.get("/subscribe").text)
    names = {name for _, name, _ in linked}
    assert {"paperboy.css", "paperboy.js", "forms.css", "favicon.svg"} <= names
    for url, name, digest in linked:
        content = (STATIC_DIR / name).read_bytes()
        assert hashlib.sha256(content).hexdigest().startswith(digest)
        response = client.get(url, headers={"Accept-Encoding": "identity"})
        assert response.status_code == 200 and response.content == content
        assert response.headers["cache-control"] == A_YEAR


@pytest.mark.parametrize("query", ["", "?v=0123456789ab", "?v="])
def test_a_url_not_naming_the_current_content_is_kept_an_hour(
    client: TestClient, query: str
) -> None:
    response = client.get(f"/static/paperboy.css{query}")
    assert response.status_code == 200
    assert response.headers["cache-control"] == SHORT


def test_a_file_kept_a_year_still_comes_compressed(client: TestClient) -> None:
    [url] = [url for url, name, _ in LINKED.findall(client.get("/").text) if name == "paperboy.css"]
    response = client.get(url, headers={"Accept-Encoding": "br"})
    assert response.headers["content-encoding"] == "br"
    assert response.headers["cache-control"] == A_YEAR
    assert "Accept-Encoding" in response.headers["vary"]


def test_changed_content_gets_a_new_url_and_an_unknown_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "site.css").write_text("body { color: black; }")
    before = Assets.of(tmp_path).url("site.css")
    (tmp_path / "site.css").write_text("body { color: navy; }")
    after = Assets.of(tmp_path).url("site.css")
    assert before != after and after.startswith("/static/site.css?v=")
    with pytest.raises(UnknownAssetError, match=r"sites\.css"):
        Assets.of(tmp_path).url("sites.css")
