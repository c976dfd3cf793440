"""What each author had shown before a day: earlier papers and how the community received them.

Built once from every label record and corpus paper; every question is asked *as of a day*
and sees only records dated strictly before it, and never the paper's own label (some papers
are featured on Hugging Face before their arXiv listing day). That is the leakage rule of the
evaluation, enforced here in one place.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from app.names import author_key
from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord

RECENT_DAYS = 60


@dataclass(frozen=True, slots=True)
class AuthorStats:
    """The authors of one paper, summarised as of one day (all zero for newcomers)."""

    featured_max: int = 0
    featured_total: int = 0
    featured_recent: int = 0
    featured_share: float = 0.0
    upvotes_max: int = 0
    upvotes_best_mean: float = 0.0
    papers_max: int = 0

    def prior(self) -> float:
        """The author-history prior on its own: how featured these authors already were."""
        return math.log1p(self.featured_max) + 0.1 * math.log1p(self.upvotes_max)


def merge_labels(records: Iterable[LabelRecord]) -> dict[str, LabelRecord]:
    """One record per paper: its first featured day and its best upvote count."""
    merged: dict[str, LabelRecord] = {}
    for record in records:
        seen = merged.get(record.arxiv_id)
        if seen is None:
            merged[record.arxiv_id] = record
            continue
        first = min(seen, record, key=lambda item: item.featured_on)
        merged[record.arxiv_id] = LabelRecord(
            first.arxiv_id, first.featured_on, max(seen.upvotes, record.upvotes), first.authors
        )
    return merged


class AuthorHistory:
    """Featured papers (from labels) and earlier papers (from the corpus) of every author."""

    def __init__(self, labels: Iterable[LabelRecord], papers: Iterable[Candidate] = ()) -> None:
        featured: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
        merged = merge_labels(labels)
        for record in merged.values():
            for key in _keys(record.authors):
                featured[key].append(
                    (record.featured_on.toordinal(), record.arxiv_id, record.upvotes)
                )
        published: dict[str, list[int]] = defaultdict(list)
        for paper in papers:
            for key in _keys(paper.authors):
                published[key].append(paper.announced_on.toordinal())
        self._featured_ids = frozenset(merged)
        self._featured = {key: sorted(rows) for key, rows in featured.items()}
        self._published = {key: sorted(days) for key, days in published.items()}

    def featured_ids(self) -> frozenset[str]:
        """Every paper featured in the labels this history was built from (any date)."""
        return self._featured_ids

    def stats(self, paper: Candidate, day: date) -> AuthorStats:
        """What ``paper``'s authors had shown before ``day``, without ``paper``'s own label."""
        cutoff = day.toordinal()
        keys = _keys(paper.authors)
        rows = [self._featured_before(key, cutoff, paper.arxiv_id) for key in keys]
        papers = [bisect_left(self._published.get(key, []), cutoff) for key in keys]
        return _summarise(rows, papers, cutoff - RECENT_DAYS)

    def _featured_before(self, key: str, cutoff: int, own_id: str) -> list[tuple[int, str, int]]:
        rows = self._featured.get(key, [])
        end = bisect_left(rows, (cutoff, "", -1))
        return [row for row in rows[:end] if row[1] != own_id]


def _keys(authors: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(key for key in map(author_key, authors) if key))


def _summarise(
    rows: list[list[tuple[int, str, int]]], papers: list[int], recent_from: int
) -> AuthorStats:
    if not rows:
        return AuthorStats()
    counts = [len(found) for found in rows]
    upvotes = [vote for found in rows for _, _, vote in found]
    means = [sum(vote for *_, vote in found) / len(found) for found in rows if found]
    return AuthorStats(
        featured_max=max(counts),
        featured_total=sum(counts),
        featured_recent=max(sum(1 for day, *_ in found if day >= recent_from) for found in rows),
        featured_share=sum(1 for count in counts if count) / len(counts),
        upvotes_max=max(upvotes, default=0),
        upvotes_best_mean=max(means, default=0.0),
        papers_max=max(papers, default=0),
    )
