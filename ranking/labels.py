"""Topic labels: a few key phrases that set each cluster apart (class-based TF-IDF, pure).

Each cluster is represented by the texts of its papers closest to its centroid (at most
``REPRESENTATIVES``: counting phrases is the slow part, and the core of a cluster names it
best), read as one document; a phrase scores by its frequency in the cluster
times log(1 + average words per cluster / its frequency across all clusters), so phrases common
everywhere ("large language models") lose to those particular to one cluster. English stop
words and the boilerplate of abstracts are removed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from app.core.vectors import Matrix
from ranking.topics import Labels

PHRASES_PER_LABEL = 4
REPRESENTATIVES = 10
# The opening of an abstract says what it is about; counting the rest costs more than it adds.
LABEL_TEXT_CHARACTERS = 600
# A word starts with a letter: numbers and "x2" make poor labels.
WORD = r"(?u)\b[a-zA-Z][a-zA-Z0-9-]+\b"
_BOILERPLATE_WORDS = """
paper propose proposed proposes method methods approach approaches result results
show shows demonstrate demonstrates based performance state art existing novel work
works using use used new framework experiments experimental extensive achieve
achieves significant significantly outperforms code available github com https http
www introduce introduces present presents study task tasks problem problems benchmark
benchmarks effective effectively improve improves improved improving recent recently
various different including leverage leverages leveraging enable enables key
challenge challenges address furthermore moreover remains critical crucial model
models
"""
# Words every abstract uses: they name no topic.
BOILERPLATE = frozenset(_BOILERPLATE_WORDS.split())
STOP_WORDS = sorted(ENGLISH_STOP_WORDS | BOILERPLATE)


def representatives(vectors: Matrix, labels: Labels, centres: Matrix) -> Labels:
    """Labels kept only for each cluster's ``REPRESENTATIVES`` papers closest to its centre."""
    result = np.full(len(labels), -1, dtype=np.intp)
    for number, centre in enumerate(centres):
        members = np.flatnonzero(labels == number)
        closest = members[np.argsort(-(vectors[members] @ centre), kind="stable")]
        result[closest[:REPRESENTATIVES]] = number
    return result


def label_clusters(texts: Sequence[str], labels: Labels) -> list[str]:
    """One label per cluster number 0..k-1, from the texts labelled with it (-1: ignored)."""
    count = int(labels.max()) + 1 if len(labels) else 0
    if count <= 0:
        return []
    used = np.flatnonzero(labels >= 0)
    texts, labels = [texts[int(i)][:LABEL_TEXT_CHARACTERS] for i in used], labels[used]
    vectorizer = CountVectorizer(
        ngram_range=(1, 2),
        stop_words=STOP_WORDS,
        min_df=2,
        token_pattern=WORD,
    )
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError:  # no phrase occurs twice: nothing to label with
        return [""] * count
    class_counts = np.vstack([np.asarray(counts[labels == c].sum(axis=0)) for c in range(count)])
    return _top_phrases(class_counts, vectorizer.get_feature_names_out())


def _top_phrases(class_counts: np.ndarray, phrases: np.ndarray) -> list[str]:
    frequency = class_counts / np.maximum(class_counts.sum(axis=1, keepdims=True), 1)
    average_words = class_counts.sum() / len(class_counts)
    weight = frequency * np.log1p(average_words / np.maximum(class_counts.sum(axis=0), 1))
    return [_pick(row, phrases) for row in weight]


def _pick(weights: np.ndarray, phrases: np.ndarray) -> str:
    chosen: list[str] = []
    for index in np.argsort(-weights, kind="stable")[: PHRASES_PER_LABEL * 4]:
        phrase = str(phrases[index])
        if weights[index] <= 0 or len(chosen) == PHRASES_PER_LABEL:
            break
        # "folding" adds nothing next to "protein folding": the longer phrase replaces its parts.
        if any(phrase in other.split() or phrase in other for other in chosen):
            continue
        chosen = [other for other in chosen if other not in phrase.split()]
        chosen.append(phrase)
    return ", ".join(chosen)
