"""``paperboy demo --no-serve``: the whole daily job once, end to end, offline."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.cli.common import job_session
from app.cli.demo.site import demo_app, served_at
from app.cli.main import main
from app.core.config import get_settings
from app.core.models import Paper


@pytest.mark.model
def test_the_demo_runs_the_daily_job_end_to_end_and_mails_the_digest_to_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = get_settings(data_dir=tmp_path, search_semantic=False)
    assert main(["demo", "--no-serve", "--port", "8123"], settings) == 0
    out = capsys.readouterr().out
    assert "created the schema at revision" in out
    assert "read 491, new 491" in out
    assert "hf signals: new 43, filled 0, unchanged 0, rejected 0" in out
    # The replayed live ingest reads the sample's own latest day, nothing older or made up.
    assert "rss cs 2025-12-19: ok (read 164, new 164)" in out
    assert "hf 2025-12-19: ok (read 10)" in out
    assert "embedded (all-MiniLM-L6-v2) papers 164, embedded 0, up to date 164" in out
    assert "day edition 2025-12-19 v1 published" in out
    assert "digests for 2025-12-19: 0 pending, 1 sent" in out
    # Every link follows the port the demo is told to serve on.
    assert "edition: http://127.0.0.1:8123/?date=2025-12-19" in out
    # The confirmation and the digest: two messages, the two files listed.
    assert "mail sink: 2 messages this run, each a file in" in out
    assert re.findall(r"^  (\S+\.eml)$", out, re.MULTILINE) == [
        "001-reader_at_demo.paperboy.localhost.eml",
        "002-reader_at_demo.paperboy.localhost.eml",
    ]

    with job_session(settings) as session:  # only the sample's papers: no arXiv test papers
        assert session.scalar(select(func.count()).select_from(Paper)) == 491

    confirmation, digest = sorted((tmp_path / "mail").glob("*.eml"))
    message = email.message_from_bytes(digest.read_bytes(), policy=email.policy.default)
    assert message["To"] == "reader@demo.paperboy.localhost"
    # The demo's links are http: no one-click promise without https (RFC 8058).
    assert message["List-Unsubscribe"].startswith("<http://127.0.0.1:")
    assert message["List-Unsubscribe-Post"] is None
    assert "confirm" in confirmation.read_text().lower()
    # The digest's own links, as the reader would open them on the demo's site.
    plain = message.get_body(("plain",))
    assert plain is not None
    body = plain.get_content()
    links = r"http://127\.0\.0\.1:8123(/subscriptions/(?:feedback|preferences)\?token=\S+)"
    mailed = re.findall(links, body)

    talked = re.search(r"3 comments under (/papers/\S+); a public reading list at (\S+)", out)
    assert talked is not None
    discussed, shared = talked.groups()

    # The site as the demo serves it on that port (app.cli.demo.steps.serve).
    with TestClient(demo_app(served_at(settings, "127.0.0.1", 8123))) as client:
        day = client.get("/?date=2025-12-19")
        # The replayed day's Hugging Face papers carry the cards the replay drew, stored as
        # live ingest stores thumbnails, served by the site itself.
        assert day.status_code == 200 and '<img class="thumb" src="/thumbnails/' in day.text
        feed = client.get("/feeds/daily.atom").text
        assert "http://127.0.0.1:8123/" in feed and "localhost:8000" not in feed
        assert client.get("/readyz").status_code == 200
        status = client.get("/status")
        # Healthy, but the demo runs no scheduler: the page names the jobs never run here.
        assert status.status_code == 200 and "All well." not in status.text
        assert "never run here" in status.text
        listed = client.get("/api/daily_papers", params={"date": "2025-12-19"}).json()
        kling = next(item["paper"] for item in listed if item["paper"]["id"] == "2512.16776")
        assert kling["upvotes"] == 79  # its Hugging Face count, from the bundled signals
        # The README's example organization, and one with no known slug: named, not linked.
        seed = client.get("/organizations/ByteDance-Seed")
        assert seed.status_code == 200 and "/papers/2512.15702" in seed.text
        tencent = client.get("/organizations/tencent").text
        assert "/papers/2512.16561" in tencent and "/papers/2512.16767" in tencent
        kling_page = client.get("/papers/2512.16776").text
        assert "Kling Team" in kling_page and "/organizations/" not in kling_page
        # Demo readers discuss the newest edition's first paper, by name, maths and a reply.
        thread = client.get(discussed).text
        assert "Discussion (3)" in thread and "Ada L." in thread and "Grace H." in thread
        assert "$\\epsilon \\to 0$" in thread and "<strong>Table 2</strong>" in thread
        assert "@demo.paperboy.localhost" not in thread
        listed_page = client.get(shared).text
        assert "Reading group: this week" in listed_page
        assert "Start here: the method in section 3." in listed_page
        # A feedback link for each of the 10 picks and the 3 trending ones, then preferences.
        assert len(mailed) == 14
        for link in mailed:
            opened = client.get(link)
            assert opened.status_code == 200 and "This link does not work" not in opened.text

    assert main(["demo", "--no-serve"], settings) == 0
    again = capsys.readouterr().out
    # The replayed feed's items lack the sample's comments (an RSS item has none): the import
    # takes its own record back for that day's 164 papers (the same fields, its own hash).
    assert "read 491, new 0, updated 164, unchanged 327" in again
    assert "hf signals: new 0, filled 0, unchanged 43, rejected 0" in again
    assert "is already subscribed and confirmed" in again
    assert f"3 comments under {discussed}; a public reading list at {shared}" in again
    # Every day ranked again, the same: each edition kept as it was, none republished.
    assert "day edition 2025-12-19 v1 unchanged" in again and " published" not in again
    assert "mail sink: no message this run (2 earlier in" in again
    assert re.findall(r"^  (\S+\.eml)$", again, re.MULTILINE) == []
    assert len(list((tmp_path / "mail").glob("*.eml"))) == 2
