"""One client's burst of searches: what it costs everyone else, on the demo site.

    .venv/bin/python -m benchmarks.search_burst [--data-dir DIR] [--burst 40] [--flood]
        [--samples 100] [--interval 0.05] [--page /]

Builds the demo into ``--data-dir`` (``paperboy demo --no-serve``) unless its database is
already there and serves it with uvicorn in its own process (``benchmarks/serve.py``). Then
times a cheap page (``--page``, a request every ``--interval`` s) twice: idle, and while one
client keeps ``--burst`` long searches in flight, each answered one followed by the next at
once (after the wait a 429's Retry-After asks for; with ``--flood``, at once even then). While
the burst runs another client searches now and then, as a reader does. Clients are told apart
by ``X-Forwarded-For``, which uvicorn takes from 127.0.0.1 as from a proxy in front of it.

Prints the page's median idle and under the burst, their ratio (goal: at most 1.5), and the
answers each client's searches got (goal: no 503 for the other client).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmarks.lighthouse import build_demo
from benchmarks.serve import serve

BURSTING_CLIENT = "203.0.113.1"
OTHER_CLIENT = "203.0.113.2"
# Long searches: as many common words as the demo takes (200 characters), several orders.
WORDS = [
    "learning",
    "model",
    "neural",
    "network",
    "language",
    "image",
    "data",
    "graph",
    "video",
    "training",
    "method",
]
LONG_QUERIES = tuple(" ".join((WORDS[n:] + WORDS[:n]) * 3)[:200] for n in range(len(WORDS)))
OTHER_EVERY = 10  # the other client searches after every tenth request of the page


@dataclass
class Burst:
    """One client's ``size`` searches in flight until ``stop`` is set: each answered one is
    followed by another, after the wait a 429 asks for (``polite``) or at once."""

    base: str
    size: int
    polite: bool
    stop: threading.Event = field(default_factory=threading.Event)
    statuses: Counter[int] = field(default_factory=Counter)

    def run(self) -> None:
        asyncio.run(self._all())

    async def _all(self) -> None:
        limits = httpx.Limits(max_connections=self.size, max_keepalive_connections=self.size)
        async with httpx.AsyncClient(base_url=self.base, limits=limits, timeout=120) as client:
            await asyncio.gather(*(self._one(client, number) for number in range(self.size)))

    async def _one(self, client: httpx.AsyncClient, number: int) -> None:
        headers = {"X-Forwarded-For": BURSTING_CLIENT}
        query = LONG_QUERIES[number % len(LONG_QUERIES)]
        while not self.stop.is_set():
            answer = await client.get("/search", params={"q": query}, headers=headers)
            self.statuses[answer.status_code] += 1
            if self.polite and answer.status_code == 429:
                await asyncio.sleep(float(answer.headers.get("retry-after", "1")))


@dataclass
class Timings:
    page_seconds: list[float] = field(default_factory=list)
    other_statuses: Counter[int] = field(default_factory=Counter)


@dataclass(frozen=True)
class Sampling:
    page: str
    samples: int
    interval: float  # seconds between the page's requests


def time_page(base: str, sampling: Sampling, *, other_searches: bool) -> Timings:
    """The page fetched ``samples`` times in turn; the other client's searches between."""
    timings = Timings()
    with httpx.Client(base_url=base, timeout=120) as client:
        for number in range(sampling.samples):
            time.sleep(sampling.interval)
            started = time.perf_counter()
            answer = client.get(sampling.page)
            timings.page_seconds.append(time.perf_counter() - started)
            answer.raise_for_status()
            if other_searches and number % OTHER_EVERY == 0:
                query = LONG_QUERIES[number % len(LONG_QUERIES)]
                headers = {"X-Forwarded-For": OTHER_CLIENT}
                searched = client.get("/search", params={"q": query}, headers=headers)
                timings.other_statuses[searched.status_code] += 1
    return timings


def under_burst(base: str, sampling: Sampling, burst: Burst) -> Timings:
    searching = threading.Thread(target=burst.run)
    searching.start()
    time.sleep(1.0)  # the searches in flight
    try:
        return time_page(base, sampling, other_searches=True)
    finally:
        burst.stop.set()
        searching.join()


def warm(base: str, page: str) -> None:
    """Index, query model, rendered pages: loaded before anything is timed."""
    with httpx.Client(base_url=base, timeout=600) as client:
        for query in LONG_QUERIES:
            client.get("/search", params={"q": query}).raise_for_status()
        for _ in range(5):
            client.get(page).raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="demo data (kept, reused)")
    parser.add_argument("--burst", type=int, default=40, help="searches at once")
    parser.add_argument("--samples", type=int, default=100, help="requests of the page, each run")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between them")
    parser.add_argument("--page", default="/", help="the cheap page timed")
    parser.add_argument(
        "--flood", action="store_true", help="the bursting client ignores Retry-After"
    )
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="paperboy-search-burst-"))
    settings = build_demo(data_dir)
    # The deployment's default rate limits, which serve() otherwise turns off.
    defaults = {"PAPERBOY_API_RATE_LIMIT_PER_MINUTE": str(settings.api_rate_limit_per_minute)}
    with serve(data_dir, settings.embedding_backend, defaults) as base:
        warm(base, args.page)
        sampling = Sampling(args.page, args.samples, args.interval)
        idle = time_page(base, sampling, other_searches=False)
        burst = Burst(base, args.burst, polite=not args.flood)
        busy = under_burst(base, sampling, burst)
    idle_p50 = statistics.median(idle.page_seconds)
    busy_p50 = statistics.median(busy.page_seconds)
    kind = "ignoring" if args.flood else "honouring"
    print(
        f"page {args.page}: p50 idle {idle_p50 * 1000:.1f} ms, p50 under {args.burst} searches "
        f"at once {kind} Retry-After {busy_p50 * 1000:.1f} ms, ratio {busy_p50 / idle_p50:.2f} "
        "(goal <= 1.5)"
    )
    print(f"the bursting client's searches: {_answers(burst.statuses)}")
    print(f"the other client's searches: {_answers(busy.other_statuses)} (goal: no 503)")


def _answers(statuses: Counter[int]) -> str:
    return ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))


if __name__ == "__main__":
    main()
