"""Damaged arXiv API answers, served by a local server, at random: records, or a source error.

The response travels the way a live one does (the deployment's session, its checks, then the
``arxiv`` package's parser), so what is tested is everything that reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

import arxiv
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.core.config import get_settings
from ingest import arxiv_api
from ingest.errors import SourceError
from ingest.records import checked
from tests.conftest import FIXTURES
from tests.ingest.mutations import damaged
from tests.ingest.recorded_server import RecordedServer, Reply, recorded_server
from tests.ingest.test_arxiv_api import ATOM, id_query

ID = "1707.08567"
RECORDINGS = [
    (FIXTURES / "arxiv_api" / name).read_bytes()
    for name in (
        "id_1707.08567_s0_m100_6a1afebfc6a3.xml",
        "id_2104.12255v1_s0_m100_6ae69987ffe1.xml",
    )
]
# An entry whose <updated> is no date at all.
BAD_DATE = RECORDINGS[0].replace(b"<updated>2017-07-27T08:18:33Z", b"<updated>0", 1)


@pytest.fixture(scope="module")
def server() -> Iterator[RecordedServer]:
    with recorded_server() as running:
        yield running


@pytest.fixture(scope="module")
def client(server: RecordedServer, tmp_path_factory: pytest.TempPathFactory) -> arxiv.Client:
    settings = get_settings(
        data_dir=tmp_path_factory.mktemp("api"),
        arxiv_api_url=f"{server.url}/api/query",
        arxiv_min_interval_seconds=0,
        arxiv_max_retries=0,
        http_timeout_seconds=2.0,
        contact_email="ops@example.org",
    )
    return arxiv_api.make_client(settings, arxiv_api.api_session(settings, None), 100)


@given(body=damaged(RECORDINGS), status=st.sampled_from([200, 200, 200, 400]))
@example(body=BAD_DATE, status=200)  # found by this test
@settings(max_examples=120, deadline=None)
def test_a_damaged_answer_gives_clean_records_or_a_source_error(
    server: RecordedServer, client: arxiv.Client, body: bytes, status: int
) -> None:
    server.add("/api/query", id_query(ID), Reply(status, body, ATOM))
    try:
        fetched = arxiv_api.fetch_by_ids(client, [ID])
    except SourceError as error:
        assert str(error)
        return
    assert all(checked(record) == record for record in fetched.records)
    assert all(reason for reason in fetched.rejected.values())
