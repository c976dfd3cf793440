"""Title shares: how often papers put a phrase in their title, and what the labeller does
with them."""

from __future__ import annotations

import numpy as np

from ranking.labels import label_clusters, phrases_of
from ranking.title_phrases import (
    SMOOTHING_PAPERS,
    TYPICAL_TITLE_SHARE,
    TitleUses,
    title_share,
    title_uses,
)


def test_a_phrase_too_few_papers_use_is_typical() -> None:
    assert title_share("no paper ever wrote this", {}) == TYPICAL_TITLE_SHARE


def test_a_share_leans_to_the_typical_one_by_the_smoothing_papers_only() -> None:
    table = {"object detection": TitleUses(in_titles=300, papers=450)}
    expected = (300 + SMOOTHING_PAPERS * TYPICAL_TITLE_SHARE) / (450 + SMOOTHING_PAPERS)
    assert title_share("object detection", table) == expected
    few = {"rare subject": TitleUses(in_titles=2, papers=2)}
    assert TYPICAL_TITLE_SHARE < title_share("rare subject", few) < 0.6


def test_the_shipped_table_tells_subjects_from_filler() -> None:
    table = title_uses()
    assert len(table) > 10_000
    assert all(0 <= uses.in_titles <= uses.papers for uses in table.values())
    # Authors name their subject in a title and leave hedges and verbs to the abstract.
    assert title_share("anomaly detection") > 2 * TYPICAL_TITLE_SHARE
    assert title_share("promising") < 0.01
    assert title_share("unclear") < 0.01


def test_phrases_are_the_runs_the_labeller_counts() -> None:
    found = phrases_of(r"We propose \textbf{LoopBench}: protein folding, in $x^2$ steps.")
    assert {"loopbench", "protein folding", "protein", "folding", "steps"} <= found
    # Stop words, boilerplate and TeX commands end a run; none is a phrase or part of one.
    assert not {"we", "propose", "textbf", "we propose", "x2"} & found
    assert all(1 <= len(phrase.split()) <= 3 for phrase in found)


def test_a_label_is_named_by_a_subject_not_filler_just_as_many_papers_use() -> None:
    # Every paper uses both; a phrase of two words would name the topic before a word alone,
    # but "promising direction" seldom opens a title and "anomaly" often does.
    texts = [
        f"Paper {number}. A promising direction for anomaly in sensor {number}."
        for number in range(6)
    ]
    label = label_clusters(texts, np.zeros(len(texts), dtype=np.intp))[0]
    phrases = [phrase.strip().lower() for phrase in label.split(",")]
    assert phrases[0] == "anomaly"
    assert "promising direction" not in phrases
