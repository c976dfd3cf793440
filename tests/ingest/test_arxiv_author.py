"""arXiv's author feed over a real local server: what each answer stores and logs, and that
no failure loses the papers an earlier read found."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.core.config import Settings
from app.core.models import IngestRun, IngestRunStatus, OrcidPaper
from ingest.arxiv_author import (
    SOURCE,
    AuthorFeedOutcome,
    BadOrcidError,
    author_feed_url,
    checked_orcid,
    read_author_feed,
)
from ingest.live import Context, close, make_context
from tests.conftest import Database
from tests.ingest.author_feeds import ORCID, OTHER_ORCID, author_feed, feed_path
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.servers import free_port

NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
ATOM = {"Content-Type": "application/atom+xml"}


def _read(context: Context, orcid: str = ORCID) -> tuple[AuthorFeedOutcome, tuple[str, ...]]:
    read = read_author_feed(context.settings, context.sessions, context.arxiv, orcid, NOW)
    return read.outcome, read.arxiv_ids


def _runs(database: Database) -> list[tuple[str, IngestRunStatus, str | None]]:
    with database.sessions() as session:
        rows = session.scalars(select(IngestRun).order_by(IngestRun.id))
        return [(row.source, row.status, row.error) for row in rows]


def _serve(server: RecordedServer, *replies: Reply, orcid: str = ORCID) -> None:
    server.add(feed_path(orcid), {}, *replies)


def test_a_feed_stores_its_papers_through_the_gate_and_a_later_one_replaces_them(
    context: Context, server: RecordedServer, database: Database
) -> None:
    _serve(
        server,
        Reply(200, author_feed(ORCID, "1605.08386", "1707.08567"), ATOM),
        Reply(200, author_feed(ORCID, "2104.12255"), ATOM),
    )
    assert _read(context) == (AuthorFeedOutcome.LISTED, ("1605.08386", "1707.08567"))
    assert _read(context) == (AuthorFeedOutcome.LISTED, ("2104.12255",))
    # Through the polite session: its User-Agent names the contact address.
    assert all("ops@example.org" in one.headers["User-Agent"] for one in server.arrivals)
    assert [(source, status) for source, status, _ in _runs(database)] == [
        (SOURCE, IngestRunStatus.OK),
        (SOURCE, IngestRunStatus.OK),
    ]


@pytest.mark.parametrize(
    ("reply", "outcome", "status", "says"),
    [
        (Reply(404, b"<html>No such author</html>"), "no-account", "empty", "no account"),
        (Reply(200, author_feed(ORCID), ATOM), "empty", "empty", "lists no papers"),
        (Reply(200, b"<feed><entry>", ATOM), "failed", "failed", "not well-formed"),
        (Reply(200, author_feed(ORCID, "1605.08386")[:-60], ATOM), "failed", "failed", "XML"),
        (Reply(200, b"<html><body>busy</body></html>"), "failed", "failed", "expected an Atom"),
        (Reply(503, b"down for maintenance"), "failed", "failed", "HTTP 503"),
        (
            Reply(200, author_feed(ORCID, "1605.08386"), cut_after=300),
            "failed",
            "failed",
            "mid-body",
        ),
    ],
    ids=["no-account", "empty", "malformed", "truncated", "html", "down", "cut-mid-body"],
)
def test_each_other_answer_keeps_the_stored_papers_and_says_what_happened(
    context: Context,
    server: RecordedServer,
    database: Database,
    reply: Reply,
    outcome: str,
    status: str,
    says: str,
) -> None:
    _serve(server, Reply(200, author_feed(ORCID, "1605.08386"), ATOM), reply)
    assert _read(context) == (AuthorFeedOutcome.LISTED, ("1605.08386",))
    assert _read(context) == (AuthorFeedOutcome(outcome), ("1605.08386",))
    last = _runs(database)[-1]
    assert last[1] == IngestRunStatus(status)
    assert last[2] is not None and says in last[2]


def test_a_server_that_is_down_is_a_failed_run_and_stores_nothing(
    live_settings: Settings, database: Database
) -> None:
    settings = live_settings.model_copy(
        update={"arxiv_author_feed_url": f"http://127.0.0.1:{free_port()}/a"}
    )
    down = make_context(settings, database.engine)
    try:
        read = read_author_feed(settings, down.sessions, down.arxiv, ORCID, NOW)
    finally:
        close(down)
    assert (read.outcome, read.arxiv_ids) == (AuthorFeedOutcome.FAILED, ())
    assert read.error is not None and "connection failed" in read.error
    assert _runs(database)[-1][1] == IngestRunStatus.FAILED


def test_each_id_keeps_its_own_papers(context: Context, server: RecordedServer) -> None:
    _serve(server, Reply(200, author_feed(ORCID, "1605.08386"), ATOM))
    _serve(server, Reply(200, author_feed(OTHER_ORCID, "2104.12255"), ATOM), orcid=OTHER_ORCID)
    _read(context)
    _read(context, OTHER_ORCID)
    with context.sessions() as session:
        rows = session.execute(select(OrcidPaper.orcid, OrcidPaper.arxiv_id).order_by("orcid"))
        assert list(rows) == [(OTHER_ORCID, "2104.12255"), (ORCID, "1605.08386")]


def test_an_orcid_is_checked_before_any_url_is_made(live_settings: Settings) -> None:
    assert checked_orcid(" 0000-0002-1694-233x ") == "0000-0002-1694-233X"
    assert author_feed_url(live_settings, ORCID).endswith(f"/a/{ORCID}.atom2")
    for wrong in ("0000-0002-1825-0098", "../../etc/passwd", "0000-0002-1825", ""):
        with pytest.raises(BadOrcidError):
            author_feed_url(live_settings, wrong)
