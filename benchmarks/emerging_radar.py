"""The emerging-topic radar backtested on the corpus's weeks, against flagging by raw growth.

    .venv/bin/python -m benchmarks.emerging_radar [--year 2026] [--spike-weight 1.0] ...

For each week t with a full window before it and four weeks after it in the corpus, the radar
(``ranking.radar``, as ``paperboy emerging`` runs it) reads the papers of weeks t-11…t and flags
up to ten clusters. Every paper of weeks t+3 and t+4 joins its nearest cluster centre, so a
cluster's later share is counted as its share of week t was. A flag is **still growing** when
the cluster's share of week t+3 and of week t+4 are both above its share of week t; precision@10
is the still-growing flags over ten, averaged over weeks. Also printed: **persisted**, flags
whose share of weeks t+3…t+4 is at least 1.5 times their baseline share. The peers in the same
run: the ten clusters that gained most papers in week t over their baseline weeks' mean
(``growth_by_size``, the issue's baseline) and ten clusters drawn at random.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from benchmarks.corpus_data import CORPUS, MATRIX, read_corpus, read_vectors, vectors_of
from ranking.radar import Radar, assign, burst_scores, growth_by_size, radar, top
from ranking.radar_window import RadarParams, monday

LATER = (3, 4)
PERSISTED = 1.5
RANDOM_DRAWS = 20


@dataclass(frozen=True, slots=True)
class WeekResult:
    week: date
    growing: dict[str, float]
    persisted: dict[str, float]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--year", type=int, action="append", help="flag weeks of (repeatable)")
    defaults = RadarParams()
    parser.add_argument("--ratio", type=float, default=defaults.ratio)
    parser.add_argument("--min-papers", type=int, default=defaults.min_papers)
    parser.add_argument("--spike-weight", type=float, default=defaults.spike_weight)
    parser.add_argument("--size", type=int, default=defaults.size)
    args = parser.parse_args()
    params = RadarParams(
        ratio=args.ratio,
        min_papers=args.min_papers,
        spike_weight=args.spike_weight,
        size=args.size,
    )
    papers = read_corpus(args.corpus)
    vectors = vectors_of(args.matrix, read_vectors(args.matrix), [p.arxiv_id for p in papers])
    weeks = np.array([monday(p.announced_on).toordinal() for p in papers])
    years = set(args.year or [2025, 2026])
    results = [
        backtest(vectors, weeks, date.fromordinal(int(w)), params)
        for w in sorted(set(weeks.tolist()))
        if date.fromordinal(int(w)).year in years and _covered(weeks, int(w), params)
    ]
    _report(results, params, years)


def _covered(weeks: NDArray[np.int64], week: int, params: RadarParams) -> bool:
    first, last = int(weeks.min()), int(weeks.max())
    return week - 7 * (params.weeks - 1) >= first and week + 7 * max(LATER) <= last


def backtest(
    vectors: NDArray[np.float32], weeks: NDArray[np.int64], week: date, params: RadarParams
) -> WeekResult:
    start = (week - timedelta(weeks=params.weeks - 1)).toordinal()
    inside = (weeks >= start) & (weeks <= week.toordinal())
    window_weeks = ((weeks[inside] - start) // 7).astype(np.intp)
    found = radar(vectors[inside], window_weeks, params)
    later = [_shares(found, vectors, weeks, week + timedelta(weeks=n)) for n in LATER]
    flags = {
        "radar": top(burst_scores(found.counts, found.totals, params), params.flagged),
        "growth by size": top(growth_by_size(found.counts, params), params.flagged),
    }
    rng = np.random.default_rng(week.toordinal())
    draws = [
        rng.choice(len(found.centres), params.flagged, replace=False).tolist()
        for _ in range(RANDOM_DRAWS)
    ]
    growing = {name: _growing(found, later, picks, params) for name, picks in flags.items()}
    persisted = {name: _persisted(found, later, picks, params) for name, picks in flags.items()}
    growing["random"] = statistics.mean(_growing(found, later, d, params) for d in draws)
    persisted["random"] = statistics.mean(_persisted(found, later, d, params) for d in draws)
    return WeekResult(week, growing, persisted)


def _shares(
    found: Radar, vectors: NDArray[np.float32], weeks: NDArray[np.int64], week: date
) -> NDArray[np.float64]:
    rows = vectors[weeks == week.toordinal()]
    counts = np.bincount(assign(rows, found.centres), minlength=len(found.centres))
    return counts / max(len(rows), 1)


def _week_share(found: Radar) -> NDArray[np.float64]:
    shares: NDArray[np.float64] = found.counts[-1] / max(found.totals[-1], 1.0)
    return shares


def _growing(
    found: Radar, later: list[NDArray[np.float64]], picks: list[int], params: RadarParams
) -> float:
    now = _week_share(found)
    hits = sum(all(shares[c] > now[c] for shares in later) for c in picks)
    return hits / params.flagged


def _persisted(
    found: Radar, later: list[NDArray[np.float64]], picks: list[int], params: RadarParams
) -> float:
    split = params.baseline_weeks
    baseline = found.counts[:split].sum(axis=0) / max(found.totals[:split].sum(), 1.0)
    hits = sum(
        bool(statistics.mean(float(s[c]) for s in later) >= PERSISTED * baseline[c]) for c in picks
    )
    return hits / params.flagged


def _report(results: list[WeekResult], params: RadarParams, years: set[int]) -> None:
    print(
        f"weeks flagged: {len(results)} ({results[0].week} … {results[-1].week}), "
        f"years {sorted(years)}, {params}"
    )
    print(f"{'flags':<16}{'still growing p@10':>20}{'persisted p@10':>16}")
    for name in results[0].growing:
        growing = statistics.mean(r.growing[name] for r in results)
        persisted = statistics.mean(r.persisted[name] for r in results)
        print(f"{name:<16}{growing:>20.3f}{persisted:>16.3f}")
    radar_rate = statistics.mean(r.growing["radar"] for r in results)
    peer_rate = statistics.mean(r.growing["growth by size"] for r in results)
    ratio = radar_rate / peer_rate if peer_rate else float("inf")
    print(f"radar / growth by size, still growing: {ratio:.1f}x (goal at least 1.5x)")


if __name__ == "__main__":
    main()
