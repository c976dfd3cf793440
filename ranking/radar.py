"""The emerging-topic radar: subjects whose share of the papers rises against their own past
(pure).

The papers of the last ``baseline_weeks + recent_weeks`` weeks are grouped into small clusters
(``ranking.topics.cluster``, about ``size`` papers each), and every paper belongs to the cluster
whose centre is nearest, so a cluster's share of any week, earlier or later, is counted the same
way. A cluster bursts when its share of the recent weeks is at least ``ratio`` times its share
of the baseline weeks before them, on at least ``min_papers`` recent papers. Bursts are ranked
by how far the recent share rose, less how much of it is the last week alone: a subject that
grew for a month is emerging, where one week's spike mostly falls back (the backtest in
``benchmarks/emerging_radar.py`` measured both). The peer it is judged against flags the
clusters that gained the most papers in the last week (:func:`growth_by_size`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.core.vectors import Matrix
from ranking.radar_window import RadarParams
from ranking.topics import Labels, TopicParams, centroids, cluster

# Half a paper: a cluster with no paper in the baseline weeks still has a finite baseline share.
PSEUDO_PAPERS = 0.5
# Shares below a tenth of a percent are noise at a few hundred clusters; this floor keeps the
# last week's spike measure from blowing up on tiny shares.
SHARE_FLOOR = 1e-3
# Papers compared with every centre at a time, so memory stays bounded for any window.
ASSIGN_CHUNK = 4096
Counts = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Burst:
    """One flagged cluster: its shares and its papers each week, oldest week first."""

    cluster: int
    score: float
    baseline_share: float
    recent_share: float
    week_share: float
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Radar:
    """A window's clusters: unit centres, each paper's cluster, papers per week and cluster
    (rows: weeks, oldest first), papers per week, and the bursts, strongest first."""

    centres: Matrix
    members: Labels
    counts: Counts
    totals: Counts
    bursts: list[Burst]


def radar(vectors: Matrix, weeks: NDArray[np.intp], params: RadarParams) -> Radar:
    """The radar of a window: ``weeks[i]`` is paper ``i``'s week, 0 the oldest and
    ``params.weeks - 1`` the week it flags for."""
    labels = cluster(vectors, TopicParams(size=params.size))
    centres = centroids(vectors, labels)
    members = assign(vectors, centres)
    counts = week_counts(members, weeks, params.weeks, len(centres))
    totals = np.bincount(weeks, minlength=params.weeks).astype(np.float64)
    scores = burst_scores(counts, totals, params)
    return Radar(
        centres=centres,
        members=members,
        counts=counts,
        totals=totals,
        bursts=bursts(counts, totals, scores, params),
    )


def assign(vectors: Matrix, centres: Matrix) -> Labels:
    """Each row's nearest centre by cosine (all rows unit length); -1 when there is none."""
    if not len(centres):
        return np.full(len(vectors), -1, dtype=np.intp)
    parts = [
        np.argmax(vectors[start : start + ASSIGN_CHUNK] @ centres.T, axis=1)
        for start in range(0, len(vectors), ASSIGN_CHUNK)
    ]
    return np.concatenate(parts).astype(np.intp) if parts else np.zeros(0, dtype=np.intp)


def week_counts(members: Labels, weeks: NDArray[np.intp], count: int, clusters: int) -> Counts:
    """Papers of each cluster in each week (rows: weeks)."""
    counts = np.zeros((count, clusters), dtype=np.float64)
    kept = members >= 0
    np.add.at(counts, (weeks[kept], members[kept]), 1.0)
    return counts


def burst_scores(counts: Counts, totals: Counts, params: RadarParams) -> NDArray[np.float64]:
    """Each cluster's burst score; ``-inf`` for one that does not burst."""
    split = params.baseline_weeks
    baseline = (counts[:split].sum(axis=0) + PSEUDO_PAPERS) / max(totals[:split].sum(), 1.0)
    recent_papers = counts[split:].sum(axis=0)
    recent = recent_papers / max(totals[split:].sum(), 1.0)
    week = counts[-1] / max(totals[-1], 1.0)
    bursting = (recent >= params.ratio * baseline) & (recent_papers >= params.min_papers)
    spike = np.log((week + SHARE_FLOOR) / (recent + SHARE_FLOOR))
    with np.errstate(divide="ignore"):
        rise = np.log(recent / baseline)
    scores: NDArray[np.float64] = np.where(bursting, rise - params.spike_weight * spike, -np.inf)
    return scores


def growth_by_size(counts: Counts, params: RadarParams) -> NDArray[np.float64]:
    """The peer: papers gained in the last week over the baseline weeks' mean."""
    gained: NDArray[np.float64] = counts[-1] - counts[: params.baseline_weeks].mean(axis=0)
    return gained


def top(scores: NDArray[np.float64], number: int) -> list[int]:
    """The ``number`` best finite scores' clusters, best first (ties: lower number first)."""
    order = np.argsort(-scores, kind="stable")[:number]
    return [int(c) for c in order if np.isfinite(scores[c])]


def bursts(
    counts: Counts, totals: Counts, scores: NDArray[np.float64], params: RadarParams
) -> list[Burst]:
    split = params.baseline_weeks
    baseline_total = max(totals[:split].sum(), 1.0)
    recent_total = max(totals[split:].sum(), 1.0)
    return [
        Burst(
            cluster=c,
            score=float(scores[c]),
            baseline_share=float(counts[:split, c].sum() / baseline_total),
            recent_share=float(counts[split:, c].sum() / recent_total),
            week_share=float(counts[-1, c] / max(totals[-1], 1.0)),
            counts=tuple(int(n) for n in counts[:, c]),
        )
        for c in top(scores, params.flagged)
    ]
