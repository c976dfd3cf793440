"""Which of a name's papers are linked by shared co-authors, counted for many papers at once
(pure): the same links as :func:`ranking.people.linked_groups`, for names on long author lists.

On a collaboration's papers, each signed by thousands, counting shared co-authors pair by pair
costs the square of the papers times the roster, and again for every member's name. Here each
paper is a row of a sparse matrix of its authors, and one product counts what every pair of
papers shares; each member's name then reads its own papers' block of it, less one (the name
itself is on both papers of every pair).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import connected_components  # type: ignore[import-untyped]

from ranking.people import SHORT_LIST

# A name whose papers list more authors than this in all is linked here; below it, pair by
# pair costs less than building the matrix.
LONG_LISTS = 2_000
# Papers whose shared counts are kept as a dense matrix (4 bytes a pair).
DENSE_PAPERS = 2_000


class PaperLinks:
    """The authors every pair of ``authors``' papers share (each paper: its author keys)."""

    def __init__(self, authors: Mapping[str, Sequence[str]]) -> None:
        self._row = {arxiv_id: row for row, arxiv_id in enumerate(authors)}
        keys = [key for keys in authors.values() for key in keys]
        rows = np.repeat(np.arange(len(authors)), [len(keys) for keys in authors.values()])
        names, cells = np.unique(np.array(keys, dtype=str), return_inverse=True)
        held = csr_matrix(
            (np.ones(len(rows), dtype=np.int32), (rows, cells.reshape(-1))),
            shape=(len(authors), max(len(names), 1)),
        )
        held.sum_duplicates()
        held.data[:] = 1  # a name listed twice on a paper is one author
        shared = held @ held.T
        # Dense while small enough to read blocks of at numpy's speed, else kept sparse.
        self._shared = shared.toarray() if len(authors) <= DENSE_PAPERS else shared.tocsr()
        self._coauthors = np.diff(held.indptr) - 1

    def linked_groups(self, ids: Sequence[str], short_list: int = SHORT_LIST) -> list[list[int]]:
        """The papers ``ids`` (all by one name) joined by shared co-authors, as
        :func:`ranking.people.linked_groups` joins them: indices into ``ids``, each group in
        order, the groups by their first paper."""
        rows = [self._row[arxiv_id] for arxiv_id in ids]
        block = self._shared[np.ix_(rows, rows)] if isinstance(self._shared, np.ndarray) else None
        shared = (block if block is not None else self._shared[rows][:, rows].toarray()) - 1
        short = self._coauthors[rows] <= short_list
        linked = (shared >= 2) | ((shared == 1) & short[:, None] & short[None, :])
        np.fill_diagonal(linked, True)
        if linked.all():  # a collaboration member's papers: one group, nothing to search
            return [list(range(len(ids)))]
        _, labels = connected_components(csr_matrix(linked), directed=False)
        groups: dict[int, list[int]] = {}
        for index, label in enumerate(labels):
            groups.setdefault(int(label), []).append(index)
        return list(groups.values())
