"""One client cycling uncached link previews: what it costs everyone else, on the demo site.

    .venv/bin/python -m benchmarks.preview_burst [--data-dir DIR] [--rounds 2]
        [--connections 6 40] [--samples 100] [--interval 0.05] [--page /]

Builds the demo into ``--data-dir`` (``paperboy demo --no-serve``) unless its database is
already there, and sets its stored previews aside (``DATA_DIR/link-previews``, put back at the
end), so that every preview asked for must be drawn: the worst case. Serves it with uvicorn in
its own process (``benchmarks/serve.py``) at the deployment's default limits. Then, alternating
in each round, times a cheap page (``--page``, a request every ``--interval`` s) idle and while
one client asks for the previews of 500 distinct papers in turn over each of ``--connections``
connections, ignoring every Retry-After. Clients are told apart by ``X-Forwarded-For``.

Last, 50 requests at once for one undrawn topic image, from one client whose rate allows a few
drawings: all 200 means it was drawn once (each further drawing would answer 429); the wall time
beside that of one request for another undrawn image says the same.

Prints, for each attacked run, the page's median against that of the idle run just before it
(goal: at most 1.5 times, as for searches; the median of the rounds' ratios is the figure),
and the answers the attacker got.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import select

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import Paper, TopicDay
from app.services.previews.stored import previews_directory
from benchmarks.lighthouse import build_demo
from benchmarks.search_burst import Sampling, time_page
from benchmarks.serve import serve

ATTACKER = "203.0.113.1"
CYCLED = 500
AT_ONCE = 50


@dataclass
class Cycling:
    """One client asking for ``ids``' previews in turn over ``connections`` connections,
    ignoring Retry-After, until ``stop`` is set."""

    base: str
    ids: list[str]
    connections: int
    stop: threading.Event = field(default_factory=threading.Event)
    statuses: Counter[int] = field(default_factory=Counter)

    def run(self) -> None:
        asyncio.run(self._all())

    async def _all(self) -> None:
        limits = httpx.Limits(
            max_connections=self.connections, max_keepalive_connections=self.connections
        )
        turns = itertools.cycle(self.ids)
        async with httpx.AsyncClient(base_url=self.base, limits=limits, timeout=120) as client:
            await asyncio.gather(*(self._one(client, turns) for _ in range(self.connections)))

    async def _one(self, client: httpx.AsyncClient, turns: itertools.cycle[str]) -> None:
        headers = {"X-Forwarded-For": ATTACKER}
        while not self.stop.is_set():
            answer = await client.get(f"/previews/papers/{next(turns)}.png", headers=headers)
            self.statuses[answer.status_code] += 1


def attacked(base: str, sampling: Sampling, cycling: Cycling) -> list[float]:
    running = threading.Thread(target=cycling.run)
    running.start()
    time.sleep(1.0)  # the attack under way
    try:
        return time_page(base, sampling, other_searches=False).page_seconds
    finally:
        cycling.stop.set()
        running.join()


def at_once(base: str, path: str, client: str, count: int) -> tuple[Counter[int], float]:
    """``count`` requests for ``path`` sent together: their answers and the wall time."""

    async def send() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
        headers = {"X-Forwarded-For": client}
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as http:
            return list(
                await asyncio.gather(*(http.get(path, headers=headers) for _ in range(count)))
            )

    started = time.perf_counter()
    answers = asyncio.run(send())
    return Counter(answer.status_code for answer in answers), time.perf_counter() - started


def demo_ids(settings: Settings) -> tuple[list[str], list[int]]:
    """The demo's first ``CYCLED`` papers and its topics."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as s:
        papers = list(s.scalars(select(Paper.arxiv_id).order_by(Paper.arxiv_id).limit(CYCLED)))
        topics = sorted(set(s.scalars(select(TopicDay.topic_id))))
    return papers, topics


def measure(base: str, args: argparse.Namespace, papers: list[str]) -> dict[str, list[float]]:
    """Per number of connections, the ratio of each attacked run's page p50 to the idle run
    just before it (adjacent runs, so the machine's drift between rounds cancels out)."""
    sampling = Sampling(args.page, args.samples, args.interval)
    ratios: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for connections in args.connections:
            idle = statistics.median(time_page(base, sampling, other_searches=False).page_seconds)
            cycling = Cycling(base, papers, connections)
            busy = statistics.median(attacked(base, sampling, cycling))
            ratios.setdefault(f"{connections}", []).append(busy / idle)
            print(
                f"  {connections} connections: page p50 {idle * 1000:.1f} ms idle, "
                f"{busy * 1000:.1f} ms attacked ({busy / idle:.2f}x); "
                f"the attacker got {_answers(cycling.statuses)}"
            )
    return ratios


def report(ratios: dict[str, list[float]]) -> None:
    for connections, values in ratios.items():
        shown = ", ".join(f"{value:.2f}" for value in values)
        print(
            f"page p50 under one client cycling {CYCLED} uncached previews over {connections} "
            f"connections, x the idle run before it: median {statistics.median(values):.2f} "
            f"({shown}) (goal <= 1.5)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="demo data (kept, reused)")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of each condition")
    parser.add_argument("--connections", type=int, nargs="+", default=[6, 40])
    parser.add_argument("--samples", type=int, default=100, help="requests of the page, each run")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between them")
    parser.add_argument("--page", default="/", help="the cheap page timed")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="paperboy-preview-burst-"))
    settings = build_demo(data_dir)
    papers, topics = demo_ids(settings)
    stored, aside = previews_directory(data_dir), data_dir / "link-previews.aside"
    if stored.exists():
        stored.rename(aside)
    try:
        with serve(data_dir, settings.embedding_backend) as base:
            with httpx.Client(base_url=base, timeout=120) as client:
                for _ in range(5):
                    client.get(args.page).raise_for_status()
            report(measure(base, args, papers))
            alone = at_once(base, f"/previews/topics/{topics[-1]}.png", "203.0.113.8", 1)
            burst = at_once(base, f"/previews/topics/{topics[-2]}.png", "203.0.113.9", AT_ONCE)
    finally:
        if aside.exists():
            shutil.rmtree(stored, ignore_errors=True)
            aside.rename(stored)
    print(f"one request for an undrawn topic image: {_answers(alone[0])}, {alone[1] * 1000:.0f} ms")
    print(
        f"{AT_ONCE} requests at once for another, one client allowed "
        f"{settings.preview_drawings_burst} drawings at once: {_answers(burst[0])}, "
        f"{burst[1] * 1000:.0f} ms (goal: all 200, drawn once)"
    )


def _answers(statuses: Counter[int]) -> str:
    return ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))


if __name__ == "__main__":
    main()
