"""The people behind one author name: its papers split by shared co-authors, then by topic, and
each person's stable id (pure).

Two papers of a name are *linked* when they share co-authors: two or more, or one when both
author lists are short (``SHORT_LIST`` names or fewer). On a consortium's paper of a hundred
names, one shared name is as likely a namesake as a colleague. Linked papers are one person.

Linked groups are then merged, closest first (average linkage), while their similarity is at
least ``MERGE_THRESHOLD``: the cosine of their embedding centroids plus ``CATEGORY_WEIGHT``
times the overlap of their arXiv categories (Jaccard). A person who changes collaborators but
not subject stays one; two people in different fields stay two. How well this tells people
apart, against one person per name and a split by primary category, is in docs/benchmarks.md
("People behind a name"); the threshold was chosen on 2025 papers.

Person ids stay stable when a name is split again (:func:`reconcile`). Every run splits a name's
papers anew; a page's address must not change because a new paper arrived. So each new group
takes the id of the stored person whose papers it holds most of: after a split, the larger part
keeps the id and the other part is a new person; after a merge, the person with more of the
papers keeps the id and the other moves to it. A person left without papers moves to whoever
holds most of its old papers, so its address can answer with a permanent redirect.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.core.vectors import Matrix

# One shared co-author links two papers only when both author lists are at most this long.
SHORT_LIST = 30
# Chosen on 2025 papers as the finest split that splits under 2 % of single authors: telling
# apart two people in one field needs more than this data holds (docs/benchmarks.md).
MERGE_THRESHOLD = 0.2
CATEGORY_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Work:
    """One paper of the name: the keys of its other authors, its categories, its unit vector."""

    coauthors: frozenset[str]
    categories: frozenset[str]
    vector: Matrix


@dataclass(frozen=True, slots=True)
class SplitParams:
    merge_threshold: float = MERGE_THRESHOLD
    category_weight: float = CATEGORY_WEIGHT
    short_list: int = SHORT_LIST


def split_people(
    works: Sequence[Work],
    params: SplitParams | None = None,
    linked: list[list[int]] | None = None,
) -> list[int]:
    """The person number of each work: 0, 1, … in the order each person's first work comes.

    ``linked``: the works' linked groups where the caller counted them
    (:class:`ranking.people_links.PaperLinks`); the works' co-authors are then not read."""
    if not works:
        return []
    chosen = params or SplitParams()
    groups = linked if linked is not None else linked_groups(works, chosen.short_list)
    merged = merged_clusters(groups, works, chosen)
    return _numbered([merged[group] for group in _group_of(groups, len(works))])


def linked_groups(works: Sequence[Work], short_list: int = SHORT_LIST) -> list[list[int]]:
    """The works joined by shared co-authors (union-find over pairs), each group in order."""
    parent = list(range(len(works)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for first, second in _sharing(works):
        if _linked(works[first], works[second], short_list):
            parent[root(first)] = root(second)
    groups: dict[int, list[int]] = {}
    for index in range(len(works)):
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())


def _sharing(works: Sequence[Work]) -> set[tuple[int, int]]:
    """The pairs of works with a co-author in common: the only ones that can be linked."""
    by_coauthor: dict[str, list[int]] = {}
    for index, work in enumerate(works):
        for coauthor in work.coauthors:
            by_coauthor.setdefault(coauthor, []).append(index)
    return {
        (first, second)
        for holders in by_coauthor.values()
        for n, first in enumerate(holders)
        for second in holders[n + 1 :]
    }


def _linked(one: Work, other: Work, short_list: int) -> bool:
    shared = len(one.coauthors & other.coauthors)
    short = len(one.coauthors) <= short_list and len(other.coauthors) <= short_list
    return shared >= 2 or (shared == 1 and short)


def merged_clusters(
    groups: list[list[int]], works: Sequence[Work], params: SplitParams
) -> list[int]:
    """The merged cluster of each group: average linkage while the best pair is similar enough.

    Average linkage (each group one observation) is scipy's; a similarity ``s`` is the
    distance ``span - s`` (``span`` above any similarity), so merging while
    ``s >= threshold`` is cutting the tree at ``span - threshold``.
    """
    if len(groups) == 1 or math.isinf(params.merge_threshold):
        return list(range(len(groups)))
    # Imported here: the web app and every command import this module, few names need it.
    from scipy.cluster.hierarchy import fcluster, linkage  # type: ignore[import-untyped]
    from scipy.spatial.distance import squareform  # type: ignore[import-untyped]

    close = similarity(groups, works, params.category_weight)
    span = 2.0 + abs(params.category_weight)
    distance = span - close
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    labels = fcluster(tree, t=span - params.merge_threshold, criterion="distance")
    return [int(label) for label in labels]


def similarity(
    groups: list[list[int]], works: Sequence[Work], category_weight: float
) -> NDArray[np.float64]:
    """Cosine of the groups' centroids plus ``category_weight`` times their categories'
    Jaccard overlap."""
    centres = np.stack([np.mean([works[i].vector for i in group], axis=0) for group in groups])
    centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12)
    cosine = (centres @ centres.T).astype(np.float64)
    categories = [frozenset().union(*(works[i].categories for i in group)) for group in groups]
    columns = {name: n for n, name in enumerate(sorted(frozenset().union(*categories)))}
    held = np.zeros((len(groups), max(len(columns), 1)))
    for row, names in enumerate(categories):
        held[row, [columns[name] for name in names]] = 1.0
    shared = held @ held.T
    union = held.sum(axis=1)[:, None] + held.sum(axis=1)[None, :] - shared
    overlap = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    result: NDArray[np.float64] = cosine + category_weight * overlap
    return result


def _group_of(groups: list[list[int]], count: int) -> list[int]:
    owner = [0] * count
    for number, group in enumerate(groups):
        for index in group:
            owner[index] = number
    return owner


def _numbered(labels: Sequence[int]) -> list[int]:
    """Labels renumbered 0, 1, … by first appearance."""
    seen: dict[int, int] = {}
    return [seen.setdefault(label, len(seen)) for label in labels]


@dataclass(frozen=True, slots=True)
class Reconciled:
    """Which stored person each new group is (``None``: a new person), and the moves."""

    people: list[int | None]
    # A stored person left without papers, and the group (index) now holding most of them.
    moved: dict[int, int]


def reconcile(
    stored: Mapping[str, int],
    groups: Sequence[Sequence[str]],
    first_pick: frozenset[int] = frozenset(),
) -> Reconciled:
    """Match new ``groups`` of paper ids to the ``stored`` person of each paper.

    Most shared papers first; a person in ``first_pick`` (a claimed one) chooses before the
    others, so a claimant's page keeps its address whenever any of its papers remain."""
    overlap = Counter(
        (group, stored[paper])
        for group, papers in enumerate(groups)
        for paper in papers
        if paper in stored
    )
    order = sorted(overlap, key=lambda gp: (gp[1] not in first_pick, -overlap[gp], gp[1], gp[0]))
    people: list[int | None] = [None] * len(groups)
    taken: set[int] = set()
    for group, person in order:
        if people[group] is None and person not in taken:
            people[group] = person
            taken.add(person)
    return Reconciled(people, _moves(overlap, taken))


def claimed_apart(
    stored: Mapping[str, int], groups: Sequence[Sequence[str]], claimed: frozenset[int]
) -> list[list[str]]:
    """``groups`` with no two claimed people in one: two readers claimed them, and each said
    "this is me", which outweighs a split's guess that they are one person. A group holding
    papers of several claimed people is cut into one part each; its other papers go with the
    part holding the most papers."""
    apart: list[list[str]] = []
    for group in groups:
        owners = Counter(stored[p] for p in group if stored.get(p) in claimed)
        if len(owners) < 2:
            apart.append(list(group))
            continue
        parts = {owner: [p for p in group if stored.get(p) == owner] for owner in sorted(owners)}
        largest = max(sorted(owners), key=lambda owner: owners[owner])
        parts[largest] += [p for p in group if stored.get(p) not in owners]
        apart += parts.values()
    return apart


def _moves(overlap: Counter[tuple[int, int]], taken: set[int]) -> dict[int, int]:
    best: dict[int, tuple[int, int]] = {}
    for (group, person), count in sorted(overlap.items()):
        if person not in taken and count > best.get(person, (0, -1))[0]:
            best[person] = (count, group)
    return {person: group for person, (_, group) in best.items()}
