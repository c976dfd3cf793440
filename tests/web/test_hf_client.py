"""Hugging Face's own Python client works against a served Paperboy.

A real uvicorn server on a free local port serves the filled test database; the client runs
``list_daily_papers`` (days, weeks, months, pages, sort, submitter), ``paper_info`` and
``list_papers`` against it, and the fields below must come back filled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.web.app import create_app
from tests.servers import served
from tests.web.conftest import HF_DISCUSSION, HF_PAPER, HF_SUBMITTER, HOSTILE_SUMMARY, LAST_DAY
from tests.web.helpers import edition_ids

CALLS = Path(__file__).with_name("hf_client_calls.py")
DAY = date(2025, 12, 17)  # the day the calls ask for: the one HF_PAPER was announced on


@pytest.fixture(scope="module")
def answers(site_settings: Settings) -> dict[str, Any]:
    # The client refuses every request in offline mode; this process only talks to 127.0.0.1.
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "1"}
    with served(create_app(site_settings)) as url:
        done = subprocess.run(
            [sys.executable, str(CALLS), url, HF_PAPER, HF_SUBMITTER],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_daily_papers_parse_into_paper_info_with_their_fields(
    answers: dict[str, Any], site_settings: Settings
) -> None:
    day = answers["day"]
    assert {i["id"] for i in day} == set(edition_ids(site_settings, "day", DAY)[:100])
    for info in day:
        assert info["title"] and info["summary"] and info["authors"]
        assert info["published_at"] is not None
    hf = next(i for i in day if i["id"] == HF_PAPER)
    # The client reads 0 upvotes as None (``upvotes or None``), against Hugging Face too.
    assert {i["upvotes"] for i in day if i["id"] != HF_PAPER} == {None}
    assert hf["upvotes"] == 42 and hf["comments"] == 3
    assert hf["published_at"] == "2025-12-16T17:51:38+00:00"
    assert hf["submitted_by"] == HF_SUBMITTER and hf["organization"] == "ByteDance Seed"
    # The client reads the submission time of a daily item from its top-level publishedAt,
    # as it does against Hugging Face.
    assert hf["submitted_at"] == hf["published_at"]


def test_hugging_faces_summary_thumbnail_and_discussion_reach_the_client(
    answers: dict[str, Any], site_settings: Settings
) -> None:
    hf = next(i for i in answers["day"] if i["id"] == HF_PAPER)
    for info in (hf, answers["paper"]):
        assert info["ai_summary"] == HOSTILE_SUMMARY
        assert info["discussion_id"] == HF_DISCUSSION
        assert info["thumbnail"].startswith(f"{site_settings.public_base_url}/thumbnails/")
        assert info["thumbnail"].endswith(".webp")
    others = [i for i in answers["day"] if i["id"] != HF_PAPER]
    assert {i["ai_summary"] for i in others} == {None}


def test_the_default_order_is_hugging_faces_and_sort_trending_is_the_editions(
    answers: dict[str, Any], site_settings: Settings
) -> None:
    trending = edition_ids(site_settings, "day", DAY)[:100]
    assert answers["day_trending"] == trending
    upvotes = [i["upvotes"] or 0 for i in answers["day"]]
    assert upvotes == sorted(upvotes, reverse=True)
    published = [i["published_at"] for i in answers["day_published"]]
    assert published == sorted(published, reverse=True)


def test_weeks_months_pages_submitter_and_the_latest_day_answer(
    answers: dict[str, Any], site_settings: Settings
) -> None:
    assert len(answers["week"]) == 100 and len(answers["month"]) == 100
    assert answers["week_page_1"] == answers["week"][10:20]
    assert answers["submitter"] == [HF_PAPER]
    # No date: the latest day, 50 papers (none of them on Hugging Face: trending order).
    assert answers["latest"] == edition_ids(site_settings, "day", LAST_DAY)[:50]


def test_paper_info_fills_every_field_paperboy_holds(answers: dict[str, Any]) -> None:
    paper = answers["paper"]
    assert paper["id"] == HF_PAPER and paper["upvotes"] == 42
    assert paper["github_repo"] == "https://github.com/example/animamimic"
    assert paper["github_stars"] == 10
    assert paper["project_page"] == "https://animamimic.github.io/"
    assert paper["ai_keywords"] == ["3D animation", "video diffusion"]
    assert paper["submitted_by"] == HF_SUBMITTER
    assert paper["submitted_at"] == "2025-12-18T00:17:01.674000+00:00"
    assert paper["comments"] == 3


def test_search_through_list_papers_parses_hugging_faces_item_shape(
    answers: dict[str, Any],
) -> None:
    """Search answers in HF's item shape ({paper, title, …}); the client then reads the paper's
    id, title and authors, and (as against HF) no top-level keywords or links."""
    found = answers["search"]
    assert 0 < len(found) <= 5
    assert all(info["id"] and info["title"] and info["authors"] for info in found)
    assert any("video" in (info["title"] or "").lower() for info in found)
    assert all(info["ai_keywords"] is None and info["github_repo"] is None for info in found)


def test_list_papers_without_a_query_answers_the_newest_day_in_trending_order(
    answers: dict[str, Any], site_settings: Settings
) -> None:
    assert answers["listed"] == edition_ids(site_settings, "day", LAST_DAY)[:100]
