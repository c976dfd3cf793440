"""Logs that diagnose: with ``PAPERBOY_LOG_JSON`` the web server, started as production
starts it, writes one JSON object per line; a request that fails logs the exception's type,
message and traceback; every line of a request carries the id its response names; a token
in a URL is redacted on every line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

import httpx

from app.core.db import session_scope
from app.core.models import HfDailyPaper
from ingest.paper_writer import store_records
from ingest.records import PaperRecord
from tests.app.test_main import wait_for
from tests.app.test_redaction import PRODUCTION, PUBLIC_HOST, TOKEN
from tests.conftest import Database
from tests.servers import free_port

PAPER = "2512.00042"
PROXY_ID = "nginx-5f2c1e0a9b7d4c3e"


def store_a_paper_whose_signal_is_corrupt(database: Database) -> None:
    """A paper whose Hugging Face keywords are a number, not a list: its page fails (500)."""
    record = PaperRecord(
        arxiv_id=PAPER,
        version=1,
        title="A paper",
        abstract="An abstract.",
        authors=("Ada Lovelace",),
        categories=("cs.LG",),
    )
    with session_scope(database.sessions) as session:
        store_records(session, [record])
        session.add(
            HfDailyPaper(
                daily_date=date(2025, 12, 18),
                arxiv_id=PAPER,
                upvotes=1,
                ai_keywords=42,
                fetched_at=datetime(2025, 12, 18, tzinfo=UTC),
            )
        )


def served_log(
    database: Database, tmp_path: Path, ask: Callable[[httpx.Client], None]
) -> list[dict[str, object]]:
    """The JSON lines a production web server wrote while ``ask`` made its requests."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= PRODUCTION | {
        "PAPERBOY_DATA_DIR": str(tmp_path),
        "PAPERBOY_DATABASE_URL": database.settings.database_url,
        "PAPERBOY_SEARCH_PRELOAD": "false",
        "PAPERBOY_LOG_JSON": "true",
    }
    port = free_port()
    command = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, *command],
        env=environment,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        site = f"http://127.0.0.1:{port}"
        assert wait_for(f"{site}/healthz") == 200
        # A new connection per request: uvicorn closes one whose request raised.
        fresh = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=site, headers={"Host": PUBLIC_HOST}, limits=fresh) as client:
            ask(client)
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    assert TOKEN not in output
    return [json.loads(line) for line in output.splitlines()]  # each line parses, or fails


def test_a_failing_request_logs_its_exception_under_the_id_its_answer_names(
    database: Database, tmp_path: Path
) -> None:
    store_a_paper_whose_signal_is_corrupt(database)
    answers: list[httpx.Response] = []

    def ask(client: httpx.Client) -> None:
        answers.append(client.get(f"/papers/{PAPER}"))
        answers.append(client.get(f"/api/papers/{PAPER}", headers={"X-Request-ID": PROXY_ID}))

    entries = served_log(database, tmp_path, ask)
    assert [answer.status_code for answer in answers] == [500, 500]
    page_id = answers[0].headers["X-Request-ID"]
    assert answers[1].headers["X-Request-ID"] == PROXY_ID
    assert answers[1].json() == {"error": {"status": 500, "message": "internal server error"}}
    for request_id, path in ((page_id, f"/papers/{PAPER}"), (PROXY_ID, f"/api/papers/{PAPER}")):
        lines = [entry for entry in entries if entry.get("request_id") == request_id]
        [failure] = [entry for entry in lines if "exception" in entry]
        assert failure["level"] == "error"
        exception = failure["exception"]
        assert isinstance(exception, dict)
        assert exception["type"] == "TypeError"
        assert exception["message"] == "'int' object is not iterable"
        assert str(exception["traceback"]).startswith("Traceback (most recent call last):")
        assert "in _hf_signals" in str(exception["traceback"])
        [access] = [entry for entry in lines if entry["logger"] == "uvicorn.access"]
        assert f'"GET {path} HTTP/1.1" 500' in str(access["message"])


def test_each_request_s_lines_carry_its_own_id_and_no_token(
    database: Database, tmp_path: Path
) -> None:
    answers: list[httpx.Response] = []
    forged = 'x" injected\\nfake line'

    def ask(client: httpx.Client) -> None:
        answers.append(client.get(f"/unsubscribe?token={TOKEN}"))
        answers.append(client.get("/healthz", headers={"X-Request-ID": forged}))
        answers.append(client.get("/healthz", headers={"X-Request-ID": "a" * 65}))

    entries = served_log(database, tmp_path, ask)
    ids = [answer.headers["X-Request-ID"] for answer in answers]
    assert len(set(ids)) == 3
    assert forged not in ids and "a" * 65 not in ids  # not sane: replaced by a new one
    [unsubscribe] = [entry for entry in entries if entry.get("request_id") == ids[0]]
    assert unsubscribe["logger"] == "uvicorn.access"
    assert "/unsubscribe?token=[redacted]" in str(unsubscribe["message"])
    assert {entry.get("request_id") for entry in entries if "/healthz" in str(entry)} >= {
        ids[1],
        ids[2],
    }


def test_a_command_s_report_is_a_json_line_with_json_logs(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    environment |= {"PAPERBOY_DATA_DIR": str(tmp_path), "PAPERBOY_LOG_JSON": "true"}
    environment |= {"PAPERBOY_SEARCH_QUERY_BACKEND": "torch"}  # no int8 query model to build
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "migrate"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    [report] = [json.loads(line) for line in done.stderr.splitlines()]
    assert report["logger"] == "paperboy.report"
    assert report["command"] == "migrate"
    assert str(report["message"]).startswith("created the schema at revision ")
