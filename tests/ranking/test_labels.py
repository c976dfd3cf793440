"""Topic labels on three real announcement days (the bundled sample and its real vectors)."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from app.core.config import get_settings
from ranking.embedder import make_embedder
from ranking.embeddings import embedding_text
from ranking.labels import WORD, Meaning, generic_words, label_clusters, representatives
from ranking.topics import Labels, TopicParams, centroids, cluster
from tests.conftest import SAMPLE_PATH
from tests.ranking.conftest import sample_vectors


@dataclass(frozen=True)
class Day:
    topics: Labels
    vectors: np.ndarray
    labels: list[str]
    counted_labels: list[str]  # the same clusters labelled from counts alone


@pytest.fixture(scope="module")
def days() -> list[Day]:
    """Each sample day clustered with the days before it, as ``paperboy rank`` does."""
    with gzip.open(SAMPLE_PATH, "rt") as lines:
        papers = sorted((json.loads(line) for line in lines), key=lambda p: p["listing_dates"][0])
    vectors = sample_vectors()
    encode = make_embedder(get_settings()).encode
    result = []
    for day in sorted({p["listing_dates"][0] for p in papers}):
        window = [p for p in papers if p["listing_dates"][0] <= day]
        matrix = np.stack([vectors[p["id"]] for p in window])
        topics = cluster(matrix, TopicParams())
        texts = [embedding_text(p["title"], p["summary"]) for p in window]
        centres = centroids(matrix, topics)
        chosen = representatives(matrix, topics, centres)
        labels = label_clusters(texts, chosen, Meaning(encode, centres))
        own = np.array([p["listing_dates"][0] == day for p in window]) & (topics >= 0)
        result.append(
            Day(
                topics=topics[own],
                vectors=matrix[own],
                labels=labels,
                counted_labels=label_clusters(texts, chosen),
            )
        )
    return result


def test_no_topic_is_named_by_one_of_the_corpus_most_frequent_words_alone(days: list[Day]) -> None:
    names = {label.split(",")[0].strip().lower() for day in days for label in day.labels}
    alone = {name for name in names if len(re.findall(WORD, name)) == 1}
    assert names and not alone & generic_words()
    assert {"model", "language", "large", "reasoning", "research"} <= generic_words()


def test_no_two_topics_of_a_day_open_with_the_same_phrase(days: list[Day]) -> None:
    for day in days:
        names = Counter(label.split(",")[0].strip().lower() for label in day.labels)
        assert all(names) and names.most_common(1)[0][1] == 1


def test_a_label_has_a_few_phrases_none_a_near_duplicate_of_another(days: list[Day]) -> None:
    for label in (label for day in days for label in day.labels):
        phrases = [p.strip().lower() for p in label.split(",")]
        assert 1 <= len(phrases) <= 4 and len(set(phrases)) == len(phrases)
        words = [
            w[:-1] if w.endswith("s") and len(w) > 3 else w for p in phrases for w in p.split()
        ]
        assert len(set(words)) == len(words)


def _top1(day: Day, labels: list[str]) -> float:
    """The share of the day's papers whose nearest label (by the model) is their own topic's."""
    similarity = day.vectors @ make_embedder(get_settings()).encode(labels).T
    return float((similarity.argmax(axis=1) == day.topics).mean())


def test_a_topic_s_papers_are_nearest_to_its_own_label_far_above_chance(days: list[Day]) -> None:
    top1 = [_top1(day, day.labels) for day in days]
    assert np.mean(top1) >= 3 * np.mean([1 / len(day.labels) for day in days])


def test_labels_chosen_by_meaning_find_their_papers_better_than_counts_alone(
    days: list[Day],
) -> None:
    by_meaning = np.mean([_top1(day, day.labels) for day in days])
    counted = np.mean([_top1(day, day.counted_labels) for day in days])
    assert by_meaning > counted
