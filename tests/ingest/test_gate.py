"""The politeness gate holds across client objects and across processes sharing a database."""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import time

from app.core.config import get_settings
from ingest.http import Gate, PoliteSession, get
from tests.conftest import Database
from tests.ingest.gate_client import send_requests
from tests.ingest.recorded_server import Arrival, RecordedServer, Reply

INTERVAL = 0.1
REQUESTS_EACH = 2
# Clocks of the server thread and the clients are the same machine's; allow for rounding.
EPSILON = 0.002


def _gaps(arrivals: list[Arrival]) -> list[float]:
    times = sorted(arrival.at for arrival in arrivals)
    return [later - earlier for earlier, later in itertools.pairwise(times)]


def test_two_clients_in_one_process_never_send_closer_than_the_interval(
    database: Database, server: RecordedServer
) -> None:
    server.add("/ping", {}, Reply(body=b"pong"))
    url = database.settings.resolved_database_url
    clients = [
        threading.Thread(
            target=send_requests, args=(url, f"{server.url}/ping", REQUESTS_EACH, INTERVAL)
        )
        for _ in range(2)
    ]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    assert len(server.arrivals) == 2 * REQUESTS_EACH
    assert min(_gaps(server.arrivals)) >= INTERVAL - EPSILON


def test_two_processes_share_one_gate_through_the_database(
    database: Database, server: RecordedServer
) -> None:
    server.add("/ping", {}, Reply(body=b"pong"))
    url = database.settings.resolved_database_url
    spawn = multiprocessing.get_context("spawn")
    workers = [
        spawn.Process(
            target=send_requests, args=(url, f"{server.url}/ping", REQUESTS_EACH, INTERVAL)
        )
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert len(server.arrivals) == 2 * REQUESTS_EACH
    assert min(_gaps(server.arrivals)) >= INTERVAL - EPSILON


def test_a_back_off_pushed_into_the_gate_delays_every_client(
    database: Database, server: RecordedServer
) -> None:
    server.add("/ping", {}, Reply(body=b"pong"))
    backing_off = Gate(database.engine, interval=0.01, lease=10.0)
    other_client = Gate(database.engine, interval=0.01, lease=10.0)
    with backing_off.slot() as slot:
        slot.defer(0.3)  # as after a 429 with Retry-After: 0.3
        deferred_at = time.time()
    settings = get_settings(database_url=database.settings.resolved_database_url)
    session = PoliteSession(settings, other_client)
    get(session, f"{server.url}/ping")
    session.close()
    assert server.arrivals[0].at >= deferred_at + 0.3 - EPSILON
