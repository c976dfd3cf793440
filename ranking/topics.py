"""Topics of a window of papers: clusters, their centroids, stable ids and trends (pure).

The window's vectors are reduced with PCA and grouped with k-means (one topic per about
``size`` papers), seeded with the centroids of the topics already known, so that the same
topic tends to come out in the same place day after day. Groups smaller than ``min_size`` are
no topic. A cluster keeps the id of the known topic whose centroid is closest, if the cosine is
at least ``match_cosine`` (one-to-one, closest pairs first); otherwise it is a new topic.
k-means with PCA is linear in the number of papers, unlike density clustering on raw vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from sklearn.cluster import KMeans, kmeans_plusplus
from threadpoolctl import threadpool_limits

from app.core.models import TopicStatus
from app.core.vectors import Matrix, normalise

UNASSIGNED = -1
REDUCED_DIMENSIONS = 32
SEED = 0
Labels = NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class TopicParams:
    size: int = 20
    min_size: int = 5
    match_cosine: float = 0.85


def cluster(vectors: Matrix, params: TopicParams, seeds: Matrix | None = None) -> Labels:
    """A cluster number per row (``UNASSIGNED`` for rows in groups below ``min_size``)."""
    count = len(vectors)
    if count < max(params.min_size, 2):
        return np.full(count, UNASSIGNED, dtype=np.intp)
    clusters = max(1, min(count, round(count / params.size)))
    mean, basis = principal_axes(vectors, min(REDUCED_DIMENSIONS, count - 1, vectors.shape[1]))
    reduced = np.asarray((vectors - mean) @ basis, dtype=np.float32)
    projected = None if seeds is None else np.asarray((seeds - mean) @ basis, dtype=np.float32)
    init = _initial_centres(reduced, clusters, projected)
    labels: Labels = KMeans(
        clusters, init=init, n_init=1, max_iter=100, random_state=SEED
    ).fit_predict(reduced)
    return _drop_small(labels, params.min_size)


def principal_axes(vectors: Matrix, dimensions: int) -> tuple[Matrix, Matrix]:
    """The mean and the top principal directions (columns), from the covariance matrix.

    An eigendecomposition of the d x d covariance costs the same for any number of papers,
    where a general PCA spends most of the clustering time on a few thousand rows. It runs
    on one BLAS thread: for a 384 x 384 matrix, more threads only wait for each other.
    """
    mean = vectors.mean(axis=0)
    centred = (vectors - mean).astype(np.float64)
    with threadpool_limits(limits=1, user_api="blas"):
        _, vectors_by_value = np.linalg.eigh(centred.T @ centred)
    basis: Matrix = vectors_by_value[:, ::-1][:, :dimensions].astype(np.float32)
    return mean.astype(np.float32), basis


def _initial_centres(reduced: Matrix, clusters: int, seeds: Matrix | None) -> Matrix:
    """Known centroids first, keeping room for new topics; the rest by k-means++ around them.

    A tenth of the clusters (at least one) are always fresh, placed where the known
    centroids explain the papers worst, so a new subject gets a cluster of its own.
    """
    if seeds is None or not len(seeds):
        centres, _ = kmeans_plusplus(reduced, n_clusters=clusters, random_state=SEED)
        return np.asarray(centres, dtype=reduced.dtype)
    kept = seeds[: max(0, clusters - max(1, clusters // 10))]
    return _extend_plusplus(reduced, np.asarray(kept, dtype=reduced.dtype), clusters)


def _extend_plusplus(points: Matrix, centres: Matrix, clusters: int) -> Matrix:
    """Greedy k-means++ seeding that continues from the given centres."""
    rng = np.random.default_rng(SEED)
    if not len(centres):
        centres = points[[int(rng.integers(len(points)))]]
    closest = _squared_distances(centres, points).min(axis=0)
    trials = 2 + int(np.log(clusters))
    while len(centres) < clusters:
        chances = closest / closest.sum() if closest.sum() > 0 else None
        picks = rng.choice(len(points), size=trials, p=chances)
        distances = _squared_distances(points[picks], points)
        potentials = np.minimum(closest[None, :], distances)
        best = int(np.argmin(potentials.sum(axis=1)))
        centres = np.vstack([centres, points[picks[best]]])
        closest = potentials[best]
    return centres


def _squared_distances(rows: Matrix, points: Matrix) -> Matrix:
    """|row - point|^2 for every pair, without a rows x points x dimensions array."""
    squared = (rows**2).sum(axis=1)[:, None] + (points**2).sum(axis=1)[None, :]
    distances: Matrix = np.maximum(squared - 2 * rows @ points.T, 0).astype(np.float32)
    return distances


def _drop_small(labels: Labels, min_size: int) -> Labels:
    numbers, sizes = np.unique(labels, return_counts=True)
    small = numbers[sizes < min_size]
    result = labels.copy()
    result[np.isin(labels, small)] = UNASSIGNED
    # Renumber 0..k-1 in order of first appearance, so numbering does not depend on k-means.
    kept = [int(n) for n in dict.fromkeys(result.tolist()) if n != UNASSIGNED]
    mapping = {old: new for new, old in enumerate(kept)}
    return np.array([mapping.get(int(n), UNASSIGNED) for n in result], dtype=np.intp)


def centroids(vectors: Matrix, labels: Labels) -> Matrix:
    """The unit mean vector of each cluster, row ``c`` for cluster ``c``."""
    count = int(labels.max()) + 1 if len(labels) else 0
    if count <= 0:
        return np.zeros((0, vectors.shape[1]), dtype=np.float32)
    return normalise(np.stack([vectors[labels == c].mean(axis=0) for c in range(count)]))


def match(current: Matrix, known: Matrix, threshold: float) -> list[int | None]:
    """For each current centroid, the row of the known centroid it continues, or None."""
    result: list[int | None] = [None] * len(current)
    if not len(current) or not len(known):
        return result
    similarity = current @ known.T
    taken: set[int] = set()
    for flat in np.argsort(-similarity, axis=None, kind="stable"):
        row, column = divmod(int(flat), len(known))
        if similarity[row, column] < threshold:
            break
        if result[row] is None and column not in taken:
            result[row] = column
            taken.add(column)
    return result


def nearest(current: Matrix, known: Matrix, threshold: float) -> list[int | None]:
    """For each current centroid, the row of the closest known centroid if their cosine is at
    least ``threshold``, or None. Unlike :func:`match`, several may continue the same one: a
    week's cluster may join topics its days kept apart."""
    if not len(current) or not len(known):
        return [None] * len(current)
    similarity = current @ known.T
    best = np.argmax(similarity, axis=1)
    return [
        int(column) if similarity[row, column] >= threshold else None
        for row, column in enumerate(best)
    ]


@dataclass(frozen=True, slots=True)
class Trend:
    baseline: float
    momentum: float
    status: TopicStatus


def trend(today: int, earlier_days: Sequence[int], is_new: bool) -> Trend:
    """A topic's size today against its own mean size on the earlier days of the window."""
    baseline = float(np.mean(earlier_days)) if len(earlier_days) else 0.0
    momentum = (today - baseline) / (baseline + 1.0)
    if is_new:
        status = TopicStatus.NEW
    elif today >= 1.5 * baseline and today - baseline >= 2:
        status = TopicStatus.GROWING
    elif today <= 0.5 * baseline:
        status = TopicStatus.FADING
    else:
        status = TopicStatus.STEADY
    return Trend(baseline=baseline, momentum=momentum, status=status)
