"""The emerging-topic radar's pure parts: bursts against a cluster's own past, new phrases."""

from __future__ import annotations

import numpy as np

from app.core.vectors import normalise
from ranking.keyphrases import IndexedTexts, new_phrases
from ranking.radar import assign, burst_scores, growth_by_size, radar, top
from ranking.radar_window import RadarParams

PARAMS = RadarParams()


def _counts(*columns: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Papers per week (rows) of each cluster (columns), with a large steady rest."""
    counts = np.array(columns, dtype=np.float64).T
    totals = counts.sum(axis=1) + 1000.0
    return counts, totals


def test_a_cluster_bursts_at_the_ratio_on_enough_recent_papers_only() -> None:
    steady = [10] * 12
    below = [4] * 8 + [5] * 4  # 1.25 times its baseline
    above = [4] * 8 + [7] * 4  # 1.75 times
    few = [0] * 8 + [1, 2, 2, 2]  # rises from nothing, but 7 recent papers
    counts, totals = _counts(steady, below, above, few)
    scores = burst_scores(counts, totals, PARAMS)
    assert top(scores, 10) == [2]


def test_a_month_long_rise_ranks_above_a_last_week_spike_that_growth_by_size_puts_first() -> None:
    riser = [0] * 8 + [5, 5, 5, 5]
    spike = [0] * 11 + [30]  # more recent papers than the riser, all in one week
    counts, totals = _counts(riser, spike)
    assert top(burst_scores(counts, totals, PARAMS), 10) == [0, 1]
    assert top(growth_by_size(counts, PARAMS), 1) == [1]
    without_penalty = RadarParams(spike_weight=0.0)
    assert top(burst_scores(counts, totals, without_penalty), 1) == [1]


def test_each_paper_joins_its_nearest_centre() -> None:
    centres = normalise(np.eye(3, 8, dtype=np.float32))
    rows = normalise(np.array([[0.1, 0.9, 0, 0, 0, 0, 0, 0], [1, 0, 0.2, 0, 0, 0, 0, 0]], "f4"))
    assert assign(rows, centres).tolist() == [1, 0]
    assert assign(rows, centres[:0]).tolist() == [-1, -1]


def test_the_radar_flags_a_new_direction_that_fills_the_recent_weeks() -> None:
    rng = np.random.default_rng(3)
    themes = normalise(rng.standard_normal((11, 64)).astype(np.float32))
    rows, weeks = [], []
    for week in range(12):
        for theme in range(10):
            rows += [themes[theme] + 0.02 * rng.standard_normal(64) for _ in range(4)]
            weeks += [week] * 4
        if week >= 8:
            rows += [themes[10] + 0.02 * rng.standard_normal(64) for _ in range(6)]
            weeks += [week] * 6
    found = radar(normalise(np.array(rows, dtype=np.float32)), np.array(weeks), PARAMS)
    (burst,) = found.bursts
    assert burst.counts == (0,) * 8 + (6,) * 4
    assert burst.baseline_share == 0.0 and burst.recent_share == 24 / (160 + 24)


def test_new_phrases_are_shared_by_recent_papers_and_absent_before_as_whole_words() -> None:
    earlier = IndexedTexts(["Upscaling test-time compute.", "Graph neural networks for molecules."])
    recent = [
        ("Test-time scaling for agents", "We study test-time scaling of graph neural networks."),
        ("Agentic test-time scaling", "Test-time scaling with graph neural networks helps."),
        ("Sparse attention", "A single paper names sparse attention."),
    ]
    found = new_phrases(recent, earlier)
    assert "test-time scaling" in found  # "upscaling" earlier is another word
    assert "graph neural networks" not in found  # used before
    assert "sparse attention" not in found  # one paper only
