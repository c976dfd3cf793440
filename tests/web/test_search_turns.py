"""One client's searches, however many at once or in a row, never make search busy for
another: a client has at most two in flight, and a burst of them a minute.

On a real server with real concurrent requests, one client keeps forty searches in flight
while another searches in turn. The server's search slots are made few and their wait short,
so that a client holding them all would show as "busy" (503) for the other at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
import pytest

from app.core.config import Settings
from app.web.app import create_app
from app.web.limits import RateLimiter
from app.web.search_turns import (
    IN_FLIGHT_RETRY_SECONDS,
    SearchLimits,
    SearchRefusedError,
    SearchTurns,
)
from tests.servers import served

BURST = 40
OTHERS_SEARCHES = 6
# Every word of the sample's commonest topics, so each search scores many of the papers.
QUERY = " ".join(
    ["learning", "neural", "network", "model", "language", "image", "video", "graph", "data"] * 16
)
FEW_SLOTS = SearchLimits(shared=3, busy_wait_seconds=0.02)


@dataclass(frozen=True)
class Answer:
    status: int
    retry_after: str | None = None

    @classmethod
    def of(cls, response: httpx.Response) -> Answer:
        return cls(response.status_code, response.headers.get("retry-after"))


def _search(client: httpx.AsyncClient, host: str) -> asyncio.Task[httpx.Response]:
    # uvicorn takes X-Forwarded-For from 127.0.0.1, as from a proxy in front of it.
    headers = {"X-Forwarded-For": host}
    return asyncio.ensure_future(client.get("/search", params={"q": QUERY}, headers=headers))


async def _burst_and_another(base_url: str) -> tuple[list[Answer], list[int]]:
    """The statuses of one client's waves of ``BURST`` searches at once, and those of another
    client's searches, one after another, sent while the waves run."""
    # No connection is kept for reuse: the server closes an idle kept one after a few seconds,
    # and a request sent on it just then fails to read, which a slow run made happen.
    limits = httpx.Limits(max_connections=BURST + 1, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:
        others: list[int] = []
        burst: list[Answer] = []

        async def waves() -> None:
            while len(others) < OTHERS_SEARCHES:
                wave = [_search(client, "203.0.113.1") for _ in range(BURST)]
                burst.extend(map(Answer.of, await asyncio.gather(*wave)))

        running = asyncio.ensure_future(waves())
        await asyncio.sleep(0.05)  # the first wave in flight
        for _ in range(OTHERS_SEARCHES):
            others.append((await _search(client, "203.0.113.2")).status_code)
        await running
    return burst, others


def test_forty_searches_at_once_from_one_client_never_make_search_busy_for_another(
    site_settings: Settings,
) -> None:
    # The site's settings have no rate a minute: only each client's share in flight counts.
    settings = site_settings.model_copy(update={"search_max_query_length": 1000})
    with served(create_app(settings, search_limits=FEW_SLOTS)) as base_url:
        burst, others = asyncio.run(_burst_and_another(base_url))
    assert others == [200] * OTHERS_SEARCHES
    assert set(burst) == {Answer(200), Answer(429, str(IN_FLIGHT_RETRY_SECONDS))}


def test_a_client_may_not_take_every_search_slot() -> None:
    with pytest.raises(ValueError, match="at least one search slot"):
        SearchLimits(shared=2, per_client=2)


def test_a_client_past_its_searches_of_the_minute_is_told_when_to_retry(
    site_settings: Settings,
) -> None:
    limited = site_settings.model_copy(
        update={"api_rate_limit_per_minute": 6, "api_rate_limit_burst": 2}
    )
    with served(create_app(limited)) as base_url:
        answers = [
            httpx.get(
                f"{base_url}/search", params={"q": "video"}, headers={"X-Forwarded-For": host}
            )
            for host in ("203.0.113.1", "203.0.113.1", "203.0.113.1", "203.0.113.2")
        ]
    assert [answer.status_code for answer in answers] == [200, 200, 429, 200]
    assert int(answers[2].headers["retry-after"]) >= 1
    assert "too many searches" in answers[2].text


def test_a_client_with_two_searches_running_is_told_to_retry_and_another_is_not() -> None:
    turns = SearchTurns()
    with turns.turn("a"), turns.turn("a"):
        with pytest.raises(SearchRefusedError) as refused, turns.turn("a"):
            pass
        assert refused.value.retry_after == IN_FLIGHT_RETRY_SECONDS
        with turns.turn("b"):
            pass
    with turns.turn("a"):
        pass


def test_a_clients_searches_past_its_burst_come_back_one_a_second() -> None:
    now = [0.0]
    turns = SearchTurns(rate=RateLimiter(per_minute=60, burst=3, clock=lambda: now[0]))
    for _ in range(3):
        with turns.turn("a"):
            pass
    with pytest.raises(SearchRefusedError) as refused, turns.turn("a"):
        pass
    assert refused.value.retry_after == 1
    with turns.turn("b"):
        pass
    now[0] = 1.0
    with turns.turn("a"):
        pass


def test_a_search_refused_while_two_run_spends_none_of_the_minutes_searches() -> None:
    turns = SearchTurns(rate=RateLimiter(per_minute=60, burst=3, clock=lambda: 0.0))
    with turns.turn("a"), turns.turn("a"):
        for _ in range(5):
            with pytest.raises(SearchRefusedError), turns.turn("a"):
                pass
    with turns.turn("a"):
        pass
    with pytest.raises(SearchRefusedError, match="in the last minute"), turns.turn("a"):
        pass
