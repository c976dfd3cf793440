"""What each author had shown before a day: earlier papers and how the community received them.

Built once from every label record and corpus paper; every question is asked *as of a day*
and sees only records dated strictly before it, and never the paper's own label (some papers
are featured on Hugging Face before their arXiv listing day). That is the leakage rule of the
evaluation, enforced here in one place.

Names are ambiguous ("Wei Wang" is many people), so besides counts the history gives each
author a featured *rate*: featured papers over all their papers, shrunk towards the base rate
(``RATE_PRIOR_PAPERS`` imaginary papers at ``BASE_RATE``). A common name with many papers and
a few featured ones gets a low rate; a small group featured every time gets a high one.

A name is one person more surely when it comes with its co-authors: the *team* features count
only earlier papers that share at least ``TEAM_OVERLAP`` author names with the paper (many
unfeatured papers share a name with a featured author; a shared pair rarely misleads).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from app.core.names import cached_author_key
from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord

RECENT_DAYS = 60
BASE_RATE = 0.05
RATE_PRIOR_PAPERS = 5.0
HIGH_RATE = 0.2
NEVER = 10**9  # ordinal of "not featured"
TEAM_OVERLAP = 2  # shared author names that make an earlier paper the same team's
TEAM_AUTHORS = 60  # hyper-authored papers: the first 60 names decide the team


@dataclass(frozen=True, slots=True)
class Published:
    """What the history needs of an earlier paper (a :class:`Candidate` has it too); with
    ``keyed``, ``authors`` are the stored author keys rather than names."""

    arxiv_id: str
    authors: tuple[str, ...]
    announced_on: date
    keyed: bool = False


class Featured(NamedTuple):
    """A paper of an author's featured on a day; ordered by day (bisected by it)."""

    day: int  # ordinal
    arxiv_id: str
    upvotes: int


@dataclass(frozen=True, slots=True)
class AuthorRecord:
    """One author of a paper as of a day."""

    featured: list[Featured]  # earlier featured papers
    papers: int  # earlier corpus papers
    featured_papers: int  # of those, featured before the day
    earlier: tuple[tuple[str, bool], ...] = ()  # earlier corpus papers: id, featured before

    def rate(self) -> float:
        return _shrunk(self.featured_papers, self.papers)

    def label_rate(self) -> float:
        """Rate counting every featured record (labels reach back before the corpus)."""
        return _shrunk(len(self.featured), self.papers + len(self.featured))


def _shrunk(hits: int, total: int) -> float:
    return (hits + RATE_PRIOR_PAPERS * BASE_RATE) / (total + RATE_PRIOR_PAPERS)


@dataclass(frozen=True, slots=True)
class AuthorStats:
    """The authors of one paper, summarised as of one day (newcomers get the base rate)."""

    featured_max: int = 0
    featured_total: int = 0
    featured_recent: int = 0
    featured_share: float = 0.0
    upvotes_max: int = 0
    upvotes_best_mean: float = 0.0
    papers_max: int = 0
    corpus_featured_total: int = 0
    rate_max: float = BASE_RATE
    rate_mean: float = BASE_RATE
    rate_first: float = BASE_RATE
    rate_last: float = BASE_RATE
    label_rate_max: float = BASE_RATE
    label_rate_mean: float = BASE_RATE
    label_rate_last: float = BASE_RATE
    high_rate_authors: int = 0
    log_rate_sum: float = math.log(BASE_RATE)
    team_featured: int = 0  # earlier featured papers sharing TEAM_OVERLAP authors
    team_papers: int = 0  # earlier corpus papers sharing TEAM_OVERLAP authors
    team_rate: float = BASE_RATE  # featured share of those, shrunk like an author's rate
    team_upvotes_max: int = 0

    def prior(self) -> float:
        """The author-history prior on its own: how featured these authors already were."""
        return self.rate_max + 0.01 * math.log1p(self.featured_max)


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
            arxiv_id=first.arxiv_id,
            featured_on=first.featured_on,
            upvotes=max(seen.upvotes, record.upvotes),
            authors=first.authors,
        )
    return merged


class AuthorHistory:
    """Featured papers (from labels) and earlier papers (from the corpus) of every author."""

    def __init__(
        self, labels: Iterable[LabelRecord], papers: Iterable[Candidate | Published] = ()
    ) -> None:
        merged = merge_labels(labels)
        self._merged = merged
        self._first_featured = {
            key: record.featured_on.toordinal() for key, record in merged.items()
        }
        featured: dict[str, list[Featured]] = defaultdict(list)
        for record in merged.values():
            row = Featured(record.featured_on.toordinal(), record.arxiv_id, record.upvotes)
            for key in _keys(record.authors):
                featured[key].append(row)
        published: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        for paper in papers:
            featured_on = self._first_featured.get(paper.arxiv_id, NEVER)
            for key in _paper_keys(paper):
                published[key].append((paper.announced_on.toordinal(), featured_on, paper.arxiv_id))
        self._featured = {key: sorted(rows) for key, rows in featured.items()}
        self._published = {key: sorted(rows) for key, rows in published.items()}

    def label_records(self) -> list[LabelRecord]:
        """One merged record per featured paper: first featured day, best upvotes."""
        return list(self._merged.values())

    def first_featured(self, arxiv_id: str) -> int:
        """Ordinal of the paper's first featured day, or :data:`NEVER`."""
        return self._first_featured.get(arxiv_id, NEVER)

    def stats(self, paper: Candidate, day: date) -> AuthorStats:
        """What ``paper``'s authors had shown before ``day``, without ``paper``'s own label."""
        cutoff = day.toordinal()
        records = [self._record(key, cutoff, paper.arxiv_id) for key in _keys(paper.authors)]
        return summarise(records, cutoff - RECENT_DAYS, team(records[:TEAM_AUTHORS]))

    def _record(self, key: str, cutoff: int, own_id: str) -> AuthorRecord:
        rows = self._featured.get(key, [])
        end = bisect_left(rows, Featured(day=cutoff, arxiv_id="", upvotes=-1))
        papers = self._published.get(key, [])
        count = bisect_left(papers, (cutoff, -1, ""))
        earlier = tuple(
            (arxiv_id, on < cutoff) for _, on, arxiv_id in papers[:count] if arxiv_id != own_id
        )
        return AuthorRecord(
            featured=[row for row in rows[:end] if row.arxiv_id != own_id],
            papers=count,
            featured_papers=sum(1 for _, featured in earlier if featured),
            earlier=earlier,
        )


def _keys(authors: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(key for key in map(cached_author_key, authors) if key))


def _paper_keys(paper: Candidate | Published) -> list[str]:
    # A stored key is kept as it is: keying a key again is not always the same key.
    if isinstance(paper, Published) and paper.keyed:
        return list(dict.fromkeys(paper.authors))
    return _keys(paper.authors)


class Team(NamedTuple):
    """Earlier papers that share at least ``TEAM_OVERLAP`` authors with the paper."""

    featured: int = 0
    papers: int = 0
    featured_papers: int = 0
    upvotes_max: int = 0


def team(records: Sequence[AuthorRecord]) -> Team:
    featured: Counter[str] = Counter()
    upvotes: dict[str, int] = {}
    for record in records:
        for row in record.featured:
            featured[row.arxiv_id] += 1
            upvotes[row.arxiv_id] = row.upvotes
    papers: Counter[tuple[str, bool]] = Counter(p for record in records for p in record.earlier)
    shared = [arxiv_id for arxiv_id, count in featured.items() if count >= TEAM_OVERLAP]
    same_team = [paper for paper, count in papers.items() if count >= TEAM_OVERLAP]
    return Team(
        featured=len(shared),
        papers=len(same_team),
        featured_papers=sum(1 for _, was_featured in same_team if was_featured),
        upvotes_max=max((upvotes[arxiv_id] for arxiv_id in shared), default=0),
    )


def summarise(
    records: list[AuthorRecord], recent_from: int, same_team: Team | None = None
) -> AuthorStats:
    if not records:
        return AuthorStats()
    same_team = same_team or Team()
    counts = [len(record.featured) for record in records]
    upvotes = [row.upvotes for record in records for row in record.featured]
    means = [
        sum(row.upvotes for row in record.featured) / len(record.featured)
        for record in records
        if record.featured
    ]
    rates = [record.rate() for record in records]
    label_rates = [record.label_rate() for record in records]
    return AuthorStats(
        featured_max=max(counts),
        featured_total=sum(counts),
        featured_recent=max(
            sum(1 for row in record.featured if row.day >= recent_from) for record in records
        ),
        featured_share=sum(1 for count in counts if count) / len(counts),
        upvotes_max=max(upvotes, default=0),
        upvotes_best_mean=max(means, default=0.0),
        papers_max=max(record.papers for record in records),
        corpus_featured_total=sum(record.featured_papers for record in records),
        rate_max=max(rates),
        rate_mean=sum(rates) / len(rates),
        rate_first=rates[0],
        rate_last=rates[-1],
        label_rate_max=max(label_rates),
        label_rate_mean=sum(label_rates) / len(label_rates),
        label_rate_last=label_rates[-1],
        high_rate_authors=sum(1 for rate in rates if rate > HIGH_RATE),
        log_rate_sum=sum(math.log(rate) for rate in rates),
        team_featured=same_team.featured,
        team_papers=same_team.papers,
        team_rate=_shrunk(same_team.featured_papers, same_team.papers),
        team_upvotes_max=same_team.upvotes_max,
    )
