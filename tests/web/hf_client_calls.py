"""Hugging Face's own client, ``huggingface_hub.HfApi``, pointed at a Paperboy base URL.

Run as a program (``python tests/web/hf_client_calls.py URL``) by tests/web/test_hf_client.py:
in a process of its own, because the client reads ``HF_HUB_OFFLINE`` once at import and the
embedding model sets it for the test process. It prints what the client parsed, as JSON.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from huggingface_hub import HfApi
from huggingface_hub.hf_api import PaperInfo


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def parsed(info: PaperInfo) -> dict[str, Any]:
    """The fields the client filled in, as plain values."""
    return {
        "id": info.id,
        "title": info.title,
        "summary": bool(info.summary),
        "authors": [author.name for author in info.authors or []],
        "published_at": _when(info.published_at),
        "submitted_at": _when(info.submitted_at),
        "submitted_by": None if info.submitted_by is None else info.submitted_by.username,
        "organization": None if info.organization is None else info.organization.fullname,
        "upvotes": info.upvotes,
        "comments": info.comments,
        "ai_keywords": info.ai_keywords,
        "github_repo": info.github_repo,
        "github_stars": info.github_stars,
        "project_page": info.project_page,
        "ai_summary": info.ai_summary,
        "discussion_id": info.discussion_id,
        # Not one of PaperInfo's attributes: the client keeps every other key as one.
        "thumbnail": getattr(info, "thumbnail", None),
    }


def calls(endpoint: str, paper_id: str, submitter: str) -> dict[str, Any]:
    api = HfApi(endpoint=endpoint, token=False)
    listing = api.list_daily_papers
    return {
        "day": [parsed(i) for i in listing(date="2025-12-17", limit=100)],
        "day_trending": [i.id for i in listing(date="2025-12-17", sort="trending", limit=100)],
        "day_published": [parsed(i) for i in listing(date="2025-12-17", sort="publishedAt")],
        "week": [i.id for i in listing(week="2025-W51", limit=100)],
        "week_page_1": [i.id for i in listing(week="2025-W51", p=1, limit=10)],
        "month": [i.id for i in listing(month="2025-12", limit=100)],
        "submitter": [i.id for i in listing(week="2025-W51", submitter=submitter)],
        "latest": [i.id for i in listing()],
        "paper": parsed(api.paper_info(paper_id)),
        "search": [parsed(i) for i in api.list_papers(query="video diffusion", limit=5)],
        "listed": [i.id for i in api.list_papers(limit=100)],
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(calls(sys.argv[1], sys.argv[2], sys.argv[3])))
