"""Reads from a real streaming standby: a primary and a standby copied from it with
``pg_basebackup``, both throwaway servers of this module's own (never the shared test server).

A standby whose replay is paused is how these tests tell who answered: a paper written on the
primary afterwards is on the primary only, so a 404 for it comes from the standby and a 200
from the primary. Whichever database the rest of the suite uses makes no difference here, so
these tests run once, in the SQLite pass, and skip in the PostgreSQL ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from accounts import signin
from app.core.config import Settings, get_settings
from app.core.db import make_engine, make_session_factory, session_scope
from app.core.models import Paper
from app.core.schema import upgrade_to_head
from app.web.app import create_app
from app.web.read_routing import POSITION_COOKIE
from app.web.routes.voting import SESSION_COOKIE
from tests.pg_cluster import Cluster, own_server_binaries, streaming_standby, throwaway_cluster

# Seconds a standby gets to catch up, or a check to notice a change, before a test fails.
PATIENCE = 30.0


@pytest.fixture(scope="module")
def primary() -> Iterator[Cluster]:
    with throwaway_cluster(own_server_binaries()) as started:
        engine = create_engine(started.url)
        upgrade_to_head(engine)
        engine.dispose()
        yield started


@pytest.fixture
def standby(primary: Cluster) -> Iterator[Cluster]:
    with streaming_standby(primary) as started:
        wait_until(lambda: _caught_up(primary, started), "the standby caught up")
        yield started


def _settings(primary: Cluster, standby: Cluster, tmp_path: Path, **more: Any) -> Settings:
    chosen: dict[str, Any] = {
        "database_url": primary.url,
        "data_dir": tmp_path,
        "database_replica_urls": (standby.url,),
        "replica_check_seconds": 0.1,
        "replica_max_lag_seconds": 3600.0,
    }
    return get_settings(**(chosen | more))


def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} after {PATIENCE} s")
        time.sleep(0.05)


def _one(cluster: Cluster, sql: str) -> Any:
    engine = create_engine(cluster.url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            return connection.execute(text(sql)).scalar()
    finally:
        engine.dispose()


def _pause(primary: Cluster, standby: Cluster) -> None:
    """Stop the standby's replay, and wait until it has: a request alone does not stop it
    until a record arrives, so the primary writes one (a transaction id) until it does."""
    _one(standby, "SELECT pg_wal_replay_pause()")

    def paused() -> bool:
        _one(primary, "SELECT txid_current()")
        return bool(_one(standby, "SELECT pg_get_wal_replay_pause_state() = 'paused'"))

    wait_until(paused, "the standby's replay paused")


def _caught_up(primary: Cluster, standby: Cluster) -> bool:
    written = _one(primary, "SELECT pg_current_wal_lsn()::text")
    return bool(_one(standby, f"SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn"))


def _add_paper(primary: Cluster, settings: Settings, arxiv_id: str, title: str = "A title") -> None:
    engine = make_engine(settings)
    try:
        with session_scope(make_session_factory(engine)) as session:
            session.add(
                Paper(arxiv_id=arxiv_id, title=title, abstract="An abstract.", content_hash="x")
            )
    finally:
        engine.dispose()


def _status(site: TestClient) -> dict[str, Any]:
    replicas: list[dict[str, Any]] = site.get("/status.json").json()["replicas"]
    assert len(replicas) == 1
    return replicas[0]


def _signed_in(site: TestClient, settings: Settings) -> None:
    engine = make_engine(settings)
    try:
        with session_scope(make_session_factory(engine)) as session:
            token = signin.session_token(settings, session, "ada@example.org", datetime.now(UTC))
    finally:
        engine.dispose()
    site.cookies.set(SESSION_COOKIE, token)


def test_reads_go_to_the_standby_and_a_reader_reads_their_own_writes(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path)
    with TestClient(create_app(settings)) as site:
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the standby in use")
        _pause(primary, standby)
        _add_paper(primary, settings, "2611.00001")
        assert site.get("/papers/2611.00001").status_code == 404  # the standby answered
        revalidated = site.get("/papers/2611.00001", headers={"if-none-match": '"old"'})
        assert revalidated.status_code == 200  # what a client holds is checked on the primary
        _signed_in(site, settings)
        wrote = site.post("/for-you/feed", follow_redirects=False)
        assert wrote.status_code == 303 and POSITION_COOKIE in wrote.cookies
        assert site.get("/papers/2611.00001").status_code == 200  # the writer reads the primary
        _one(standby, "SELECT pg_wal_replay_resume()")
        wait_until(lambda: _caught_up(primary, standby), "the standby caught up")
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the catch-up checked")
        _pause(primary, standby)
        _add_paper(primary, settings, "2611.00002")  # after the reader's write
        assert site.get("/papers/2611.00002").status_code == 404  # past their write: the standby
    _one(standby, "SELECT pg_wal_replay_resume()")


def test_a_standby_lagging_past_the_limit_is_skipped_and_its_lag_is_reported(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path, replica_max_lag_seconds=0.5)
    with TestClient(create_app(settings)) as site:
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the standby in use")
        _pause(primary, standby)
        _add_paper(primary, settings, "2611.00003")
        wait_until(lambda: (_status(site)["lag_seconds"] or 0) > 0.5, "the lag seen")
        assert site.get("/papers/2611.00003").status_code == 200  # the primary answered
        metrics = site.get("/metrics").text
        name = f'{{replica="127.0.0.1:{standby.port}/postgres"}}'
        assert f"paperboy_replica_up{name} 1" in metrics
        assert f"paperboy_replica_in_use{name} 0" in metrics
        assert f"paperboy_replica_lag_seconds{name} " in metrics
        assert "more than 0.5 s" in site.get("/status").text
    _one(standby, "SELECT pg_wal_replay_resume()")


def test_a_standby_stopped_mid_run_costs_no_request_an_error_and_is_used_again(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path, replica_check_seconds=3600.0)
    _add_paper(primary, settings, "2611.00004")
    wait_until(lambda: _caught_up(primary, standby), "the standby caught up")
    with TestClient(create_app(settings)) as site:
        assert _status(site)["up"]  # checked as the app started; not again for an hour
        assert site.get("/papers/2611.00004").status_code == 200
        standby.stop()
        paths = ("/papers/2611.00004", "/", "/api/papers/2611.00004", "/search?q=title")
        assert [site.get(path).status_code for path in paths] == [200, 200, 200, 200]
        down = _status(site)
        assert not down["up"] and "connection" in down["error"].lower()
        standby.start()
        site.app.state.web.replicas.check()  # type: ignore[attr-defined]
        assert _status(site)["up"] and _status(site)["standby"]


def test_a_promoted_standby_is_left_alone(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path)
    with TestClient(create_app(settings)) as site:
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the standby in use")
        standby.promote()
        wait_until(lambda: not _status(site)["standby"], "the promotion seen")
        _add_paper(primary, settings, "2611.00005")  # on the old primary only
        assert site.get("/papers/2611.00005").status_code == 200
        assert "not a standby (promoted?)" in _status(site)["error"]
        assert "skipped: not a standby" in site.get("/status").text


def test_searches_follow_the_rule_of_the_request_they_serve(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path, search_semantic=False)
    with TestClient(create_app(settings)) as site:
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the standby in use")
        _pause(primary, standby)
        _add_paper(primary, settings, "2611.00006", title="Zygomorphic quokka lattices")
        search = "/api/papers/search?q=quokka"
        assert "2611.00006" not in site.get(search).text  # the standby searched
        revalidated = site.get(search, headers={"if-none-match": '"old"'})
        assert "2611.00006" in revalidated.text  # the primary searched
        _signed_in(site, settings)
        assert POSITION_COOKIE in site.post("/for-you/feed", follow_redirects=False).cookies
        assert "2611.00006" in site.get(search).text  # the writer's searches read the primary
    _one(standby, "SELECT pg_wal_replay_resume()")


def test_a_standby_with_every_connection_in_use_is_not_down_and_the_primary_helps_out(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(primary, standby, tmp_path, replica_pool_size=1)
    _add_paper(primary, settings, "2611.00007")
    with TestClient(create_app(settings)) as site:
        wait_until(lambda: _status(site)["lag_bytes"] == 0, "the standby in use")
        # The page holds the standby's one connection; its similar papers need another.
        started = time.monotonic()
        assert site.get("/papers/2611.00007").status_code == 200
        assert time.monotonic() - started < 5
        state = _status(site)
        assert state["up"] and state["error"] is None


def test_the_writer_s_cookie_outlives_the_lag_a_standby_may_have(
    primary: Cluster, standby: Cluster, tmp_path: Path
) -> None:
    settings = _settings(
        primary, standby, tmp_path, replica_max_lag_seconds=30.0, read_your_writes_seconds=5
    )
    with TestClient(create_app(settings)) as site:
        _signed_in(site, settings)
        wrote = site.post("/for-you/feed", follow_redirects=False)
        cookie = next(c for c in wrote.headers.get_list("set-cookie") if POSITION_COOKIE in c)
        assert "Max-Age=31" in cookie  # 30 s of lag and one 0.1 s check, whole seconds up
