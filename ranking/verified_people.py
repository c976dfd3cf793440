"""The people behind a name when one of them is known: a verified claimant's listed papers
(the papers arXiv's author feed names for the claimant's ORCID iD) are one person (pure).

The listed papers, and the papers linked to them by shared co-authors (:mod:`ranking.people`),
are the verified person. Every other linked group joins that person only where the ordinary
split would merge it with the listed papers (average linkage at ``MERGE_THRESHOLD``) *and* it
is close to the listed papers themselves: the cosine of its centroid to theirs plus
``CATEGORY_WEIGHT`` times the overlap of their categories is at least ``VERIFIED_THRESHOLD``.
The stricter bar is the point of the claim: the listing shows what the person writes, so a
paper unlike it is someone else's even where the ordinary split, knowing less, would merge it.
The papers left over are split as if the name had no claimant. A new paper by the verified
person is unlisted until the feed is read again, and joins them by the same rule.

The threshold was chosen on 2025 papers (docs/benchmarks.md, "People behind a name").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ranking.people import (
    SplitParams,
    Work,
    linked_groups,
    merged_clusters,
    similarity,
    split_people,
)

VERIFIED_THRESHOLD = 0.4


@dataclass(frozen=True, slots=True)
class VerifiedParams:
    """The ordinary split's settings and the verified person's own bar."""

    split: SplitParams = field(default_factory=SplitParams)
    threshold: float = VERIFIED_THRESHOLD


def split_verified(
    works: Sequence[Work], listed: Collection[int], params: VerifiedParams | None = None
) -> list[int]:
    """The person number of each work, the verified person's being 0 (the others 1, 2, … in
    the order each one's first work comes); ``listed`` are the positions of the listed works.
    With nothing listed, the ordinary split."""
    chosen = params or VerifiedParams()
    listed = frozenset(listed)
    if not listed:
        return split_people(works, chosen.split)
    groups = linked_groups(works, chosen.split.short_list)
    known = [index for group in groups if not listed.isdisjoint(group) for index in group]
    others = [group for group in groups if listed.isdisjoint(group)]
    joined = _joining(known, others, works, chosen)
    verified = set(known).union(*(others[n] for n in joined))
    rest = [index for index in range(len(works)) if index not in verified]
    labels = [0] * len(works)
    others_split = split_people([works[i] for i in rest], chosen.split)
    for index, label in zip(rest, others_split, strict=True):
        labels[index] = label + 1
    return labels


def _joining(
    known: list[int], others: list[list[int]], works: Sequence[Work], params: VerifiedParams
) -> list[int]:
    """The positions in ``others`` of the groups that join the verified person."""
    if not others:
        return []
    groups = [known, *others]
    merged = merged_clusters(groups, works, params.split)
    close = similarity(groups, works, params.split.category_weight)[0]
    return [
        n
        for n in range(len(others))
        if merged[n + 1] == merged[0] and bool(np.greater_equal(close[n + 1], params.threshold))
    ]


def pinned(stored: Mapping[str, int], verified: Collection[str], person: int) -> dict[str, int]:
    """The stored person of each paper as the matching of new groups to stored people
    (:func:`ranking.people.reconcile`) should see it once ``person``'s claim is verified: the
    verified group's papers are all that person's, and no other paper is, so the verified
    group keeps the claimed page's address wherever its papers were before."""
    chosen = frozenset(verified)
    kept = {paper: owner for paper, owner in stored.items() if owner != person}
    return kept | dict.fromkeys(chosen, person)
