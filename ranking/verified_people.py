"""The people behind a name when one of them is known: a verified claimant's listed papers
(the papers arXiv's author feed names for the claimant's ORCID iD) are one person (pure).

The listed papers, and the papers linked to them by shared co-authors (:mod:`ranking.people`),
are the verified person. A linked group holding an *older* paper, one announced before the
feed was read, that the feed does not name and that shares no co-author with the listed
papers, is someone else's: the feed would name it if it were the claimant's. Every other
group (newer papers only) joins the verified person where it is as close to the listed
papers as the ordinary split asks of two groups it merges: the cosine of their centroids plus
``CATEGORY_WEIGHT`` times the overlap of their categories is at least ``VERIFIED_THRESHOLD``.
The papers left over are split as if the name had no claimant.

The listing is evidence the split's own guesses lack: papers of one field (this corpus is
mostly machine learning) are too alike for their subjects to tell two people apart, but an
older paper the claimant's feed leaves out, with none of its co-authors, is most likely a
namesake's. A claimant whose feed leaves out their own paper links it to their arXiv account,
and the next read of the feed lists it.

That bar was chosen on 2025 papers (docs/benchmarks.md, "People behind a name").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ranking.people import (
    MERGE_THRESHOLD,
    SplitParams,
    Work,
    linked_groups,
    similarity,
    split_people,
)

# The ordinary split's own bar: on 2025, a stricter one split off more of the verified
# person's papers and kept few namesakes' out.
VERIFIED_THRESHOLD = MERGE_THRESHOLD


@dataclass(frozen=True, slots=True)
class VerifiedParams:
    """The ordinary split's settings and the verified person's own bar."""

    split: SplitParams = field(default_factory=SplitParams)
    threshold: float = VERIFIED_THRESHOLD


def split_verified(
    works: Sequence[Work],
    listed: Collection[int],
    params: VerifiedParams | None = None,
    older: Collection[int] = (),
) -> list[int]:
    """The person number of each work, the verified person's being 0 (the others 1, 2, … in
    the order each one's first work comes); ``listed`` are the positions of the listed works,
    ``older`` of the works announced before the feed was read. With nothing listed, the
    ordinary split."""
    chosen = params or VerifiedParams()
    listed, older = frozenset(listed), frozenset(older)
    if not listed:
        return split_people(works, chosen.split)
    groups = linked_groups(works, chosen.split.short_list)
    known = [index for group in groups if not listed.isdisjoint(group) for index in group]
    newer = [group for group in groups if listed.isdisjoint(group) and older.isdisjoint(group)]
    joined = _joining(known, newer, works, chosen)
    verified = set(known).union(*(newer[n] for n in joined))
    rest = [index for index in range(len(works)) if index not in verified]
    labels = [0] * len(works)
    others_split = split_people([works[i] for i in rest], chosen.split)
    for index, label in zip(rest, others_split, strict=True):
        labels[index] = label + 1
    return labels


def _joining(
    known: list[int], newer: list[list[int]], works: Sequence[Work], params: VerifiedParams
) -> list[int]:
    """The positions in ``newer`` of the groups close enough to join the verified person."""
    if not newer:
        return []
    close = similarity([known, *newer], works, params.split.category_weight)[0]
    return [n for n in range(len(newer)) if bool(np.greater_equal(close[n + 1], params.threshold))]


def pinned(stored: Mapping[str, int], verified: Collection[str], person: int) -> dict[str, int]:
    """The stored person of each paper as the matching of new groups to stored people
    (:func:`ranking.people.reconcile`) should see it once ``person``'s claim is verified: the
    verified group's papers are all that person's, and no other paper is, so the verified
    group keeps the claimed page's address wherever its papers were before."""
    chosen = frozenset(verified)
    kept = {paper: owner for paper, owner in stored.items() if owner != person}
    return kept | dict.fromkeys(chosen, person)
