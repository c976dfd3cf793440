"""``paperboy demo --no-serve``: the whole daily job once, end to end, offline."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main
from app.core.config import get_settings
from app.web.app import create_app


@pytest.mark.model
def test_the_demo_runs_the_daily_job_end_to_end_and_mails_the_digest_to_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = get_settings(data_dir=tmp_path, search_semantic=False)
    assert main(["demo", "--no-serve"], settings) == 0
    out = capsys.readouterr().out
    assert "read 491, new 491" in out
    assert "hf signals: new 43, filled 0, unchanged 0, rejected 0" in out
    assert "rss cs 2023-10-26: ok (read 3, new 1, cross 1, replaced 1)" in out
    assert "embedded (all-MiniLM-L6-v2) papers 3, embedded 3" in out
    assert "day edition 2025-12-19 v1 published" in out
    assert "digests for 2025-12-19: 0 pending, 1 sent" in out
    assert "edition: http://127.0.0.1:8000/?date=2025-12-19" in out

    confirmation, digest = sorted((tmp_path / "mail").glob("*.eml"))
    message = email.message_from_bytes(digest.read_bytes(), policy=email.policy.default)
    assert message["To"] == "reader@demo.paperboy.localhost"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "confirm" in confirmation.read_text().lower()

    with TestClient(create_app(settings)) as client:
        assert client.get("/?date=2025-12-19").status_code == 200
        assert client.get("/readyz").status_code == 200
        listed = client.get("/api/daily_papers", params={"date": "2025-12-19"}).json()
        kling = next(item["paper"] for item in listed if item["paper"]["id"] == "2512.16776")
        assert kling["upvotes"] == 79  # its Hugging Face count, from the bundled signals

    assert main(["demo", "--no-serve"], settings) == 0
    again = capsys.readouterr().out
    assert "new 0, updated 0, unchanged 491" in again
    assert "hf signals: new 0, filled 0, unchanged 43, rejected 0" in again
    assert "is already subscribed and confirmed" in again
    assert len(list((tmp_path / "mail").glob("*.eml"))) == 2
