"""Stable person ids when a name is split again (pure).

Every run splits a name's papers anew (:mod:`ranking.people`); a page's address must not
change because a new paper arrived. So each new group takes the id of the stored person whose
papers it holds most of: after a split, the larger part keeps the id and the other part is a
new person; after a merge, the person with more of the papers keeps the id and the other moves
to it. A person left without papers moves to whoever holds most of its old papers, so its
address can answer with a permanent redirect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


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
