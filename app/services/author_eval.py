"""How well names are split into people, on synthetic merges of the corpus's authors.

Distinct authors (author keys) with at least ``MIN_PAPERS`` papers in the window are given
one name: random pairs, random triples, and *hard* pairs (the same main category and a
co-author name in common). Each method splits the merged name's papers; B-cubed F1 scores
the split against who wrote what. Each constituent author is also split alone: the share of
them split in two or more is ``oversplit``.

Methods: ``paperboy`` (:func:`ranking.people.split_people`), ``links_only`` (its co-author
links alone), ``one_per_name`` (every name one person) and ``by_category`` (one person per
primary category). The corpus's author keys
are themselves name strings, so a constituent may already hold namesakes; the truth is
"one key, one person".
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np

from app.core.names import author_keys
from app.core.vectors import Matrix
from ranking.people import MERGE_THRESHOLD as MERGE_THRESHOLD
from ranking.people import SplitParams as SplitParams
from ranking.people import Work, split_people
from ranking.scoring import Candidate
from ranking.trending.metrics import summarise

MIN_PAPERS = 3
KINDS = ("pair", "triple", "hard")
# Whether a name's authors work in the same arXiv archive ("cs", "math", …) or not.
FIELDS = ("same", "different")
# How many draws a kind may take to find its names before it gives up.
MAX_DRAWS = 200_000


@dataclass(frozen=True, slots=True)
class Authored:
    """The corpus's papers by author key, within the window."""

    papers: dict[str, list[Candidate]]
    vectors: Mapping[str, Matrix]

    def keys(self, paper: Candidate) -> tuple[str, ...]:
        return tuple(dict.fromkeys(author_keys(paper.authors)))


def authored(papers: Sequence[Candidate], vectors: Mapping[str, Matrix]) -> Authored:
    """Every author key's papers that have a vector."""
    by_key: dict[str, list[Candidate]] = defaultdict(list)
    for paper in papers:
        if paper.arxiv_id not in vectors:
            continue
        for key in dict.fromkeys(author_keys(paper.authors)):
            by_key[key].append(paper)
    return Authored(dict(by_key), vectors)


@dataclass(frozen=True, slots=True)
class Merged:
    """Distinct authors given one name."""

    kind: str
    authors: tuple[str, ...]


Method = Callable[[Sequence[Candidate], Sequence[Work]], list[int]]


def methods(params: SplitParams | None = None) -> dict[str, Method]:
    """The split as shipped, its co-author links alone (nothing merged by subject), and the
    two baselines."""
    unmerged = replace(params or SplitParams(), merge_threshold=math.inf)
    return {
        "paperboy": lambda papers, works: split_people(works, params),
        "links_only": lambda papers, works: split_people(works, unmerged),
        "one_per_name": lambda papers, works: [0] * len(papers),
        "by_category": lambda papers, works: _by_category(papers),
    }


def _by_category(papers: Sequence[Candidate]) -> list[int]:
    seen: dict[str, int] = {}
    return [seen.setdefault(_primary(paper), len(seen)) for paper in papers]


def _primary(paper: Candidate) -> str:
    return paper.primary_category or (paper.categories[0] if paper.categories else "")


def draw(corpus: Authored, counts: Mapping[str, int], seed: int) -> list[Merged]:
    """``counts[kind]`` merged names of each kind; no two authors of one name share a paper."""
    rng = random.Random(seed)
    eligible = sorted(key for key, papers in corpus.papers.items() if len(papers) >= MIN_PAPERS)
    draws = _Draws(corpus, eligible, rng)
    found: list[Merged] = []
    # The rarest kind first, so that random draws do not use its names up.
    for kind in reversed(KINDS):
        found += draws.of(kind, counts.get(kind, 0))
    return found


class _Draws:
    def __init__(self, corpus: Authored, eligible: list[str], rng: random.Random) -> None:
        self._corpus, self._eligible, self._rng = corpus, eligible, rng
        self._ids = {key: {p.arxiv_id for p in corpus.papers[key]} for key in eligible}
        self._main = {key: _main_category(corpus.papers[key]) for key in eligible}
        self._coauthors = {key: _coauthors(corpus, key) for key in eligible}
        self._seen: set[tuple[str, ...]] = set()  # one name per set of authors, of any kind
        self._by_coauthor: dict[str, list[str]] = defaultdict(list)
        for key in eligible:
            for other in self._coauthors[key]:
                self._by_coauthor[other].append(key)

    def of(self, kind: str, count: int) -> list[Merged]:
        found: list[Merged] = []
        tries = MAX_DRAWS if len(self._eligible) >= 2 else 0
        for _ in range(tries):
            if len(found) >= count:
                break
            group = self._hard() if kind == "hard" else self._random(3 if kind == "triple" else 2)
            if group is None or tuple(sorted(group)) in self._seen or not self._apart(group):
                continue
            self._seen.add(tuple(sorted(group)))
            found.append(Merged(kind, group))
        return found

    def _random(self, size: int) -> tuple[str, ...] | None:
        if len(self._eligible) < size:
            return None
        return tuple(self._rng.sample(self._eligible, size))

    def _hard(self) -> tuple[str, ...] | None:
        """An author and another of the same main category who shares a co-author name."""
        if not self._eligible:
            return None
        first = self._rng.choice(self._eligible)
        coauthors = sorted(self._coauthors[first])
        if not coauthors:
            return None
        sharing = self._by_coauthor[self._rng.choice(coauthors)]
        same = [k for k in sharing if k != first and self._main[k] == self._main[first]]
        return (first, self._rng.choice(same)) if same else None

    def _apart(self, group: tuple[str, ...]) -> bool:
        """Distinct authors who never wrote together (a merged name appears once a paper)."""
        return len(set(group)) == len(group) and all(
            not self._ids[one] & self._ids[other] for one, other in combinations(group, 2)
        )


def _main_category(papers: Sequence[Candidate]) -> str:
    return Counter(_primary(paper) for paper in papers).most_common(1)[0][0]


def _coauthors(corpus: Authored, key: str) -> set[str]:
    return {other for p in corpus.papers[key] for other in corpus.keys(p) if other != key}


def works_of(corpus: Authored, authors: Sequence[str]) -> tuple[list[Candidate], list[int]]:
    """The papers under the merged name, and which of the authors wrote each."""
    papers: list[Candidate] = []
    truth: list[int] = []
    for number, key in enumerate(authors):
        papers += corpus.papers[key]
        truth += [number] * len(corpus.papers[key])
    return papers, truth


def as_works(corpus: Authored, papers: Sequence[Candidate], name: Sequence[str]) -> list[Work]:
    """What a splitter knows of each paper: every author key but the name's own."""
    own = set(name)
    return [
        Work(
            coauthors=frozenset(key for key in corpus.keys(paper) if key not in own),
            categories=frozenset(paper.categories),
            vector=np.asarray(corpus.vectors[paper.arxiv_id], dtype=np.float32),
        )
        for paper in papers
    ]


def bcubed(predicted: Sequence[int], truth: Sequence[int]) -> dict[str, float]:
    """B-cubed precision, recall and F1 of a clustering against the true one."""
    guess, real = np.asarray(predicted), np.asarray(truth)
    same_guess = guess[:, None] == guess[None, :]
    same_real = real[:, None] == real[None, :]
    both = (same_guess & same_real).sum(axis=1)
    precision = float(np.mean(both / same_guess.sum(axis=1)))
    recall = float(np.mean(both / same_real.sum(axis=1)))
    f1 = 2 * precision * recall / (precision + recall)
    return {"bcubed_precision": precision, "bcubed_recall": recall, "bcubed_f1": f1}


def evaluate(corpus: Authored, merged: Sequence[Merged], split: Mapping[str, Method]) -> Any:
    """The results document: per name and per method B-cubed scores, each constituent's
    oversplit, and per method and per kind the mean with a 95% bootstrap interval."""
    rows = [_name_row(corpus, name, split) for name in merged]
    singles = sorted({author for name in merged for author in name.authors})
    alone = [_single_row(corpus, author, split) for author in singles]
    return {
        "names": len(rows),
        "kinds": dict(Counter(row["kind"] for row in rows)),
        "hard_share": sum(row["kind"] == "hard" for row in rows) / max(len(rows), 1),
        "single_authors": len(alone),
        "summary": {method: _summary(rows, alone, method) for method in split},
        "by_kind": {kind: _summaries(rows, split, "kind", kind) for kind in KINDS},
        "by_field": {field: _summaries(rows, split, "fields", field) for field in FIELDS},
        "rows": rows,
    }


def _summaries(
    rows: list[dict[str, Any]], split: Mapping[str, Method], column: str, value: str
) -> dict[str, Any]:
    chosen = [row for row in rows if row[column] == value]
    return {method: summarise([row["methods"][method] for row in chosen]) for method in split}


def _name_row(corpus: Authored, name: Merged, split: Mapping[str, Method]) -> dict[str, Any]:
    papers, truth = works_of(corpus, name.authors)
    works = as_works(corpus, papers, name.authors)
    scored = {method: bcubed(run(papers, works), truth) for method, run in split.items()}
    archives = {_main_category(corpus.papers[author]).split(".")[0] for author in name.authors}
    return {
        "kind": name.kind,
        "fields": "same" if len(archives) == 1 else "different",
        "authors": list(name.authors),
        "papers": len(papers),
        "methods": scored,
    }


def _single_row(corpus: Authored, author: str, split: Mapping[str, Method]) -> dict[str, float]:
    papers, _ = works_of(corpus, [author])
    works = as_works(corpus, papers, [author])
    return {method: float(len(set(run(papers, works))) > 1) for method, run in split.items()}


def _summary(rows: list[dict[str, Any]], alone: list[dict[str, float]], method: str) -> Any:
    scores = summarise([row["methods"][method] for row in rows])
    return scores | summarise([{"oversplit": single[method]} for single in alone])


def markdown_table(results: Mapping[str, Any]) -> str:
    """Summary as a markdown table: one row per method, then F1 per kind."""
    lines = ["| method | B-cubed F1 | precision | recall | oversplit |", "|---|---|---|---|---|"]
    for method, summary in results["summary"].items():
        cells = [
            cell(summary.get(metric))
            for metric in ("bcubed_f1", "bcubed_precision", "bcubed_recall", "oversplit")
        ]
        lines.append(f"| {method} | {' | '.join(cells)} |")
    for group in ("by_kind", "by_field"):
        for value, by_method in results[group].items():
            cells = [f"{m} {cell(s.get('bcubed_f1'))}" for m, s in by_method.items()]
            lines.append(f"{group.removeprefix('by_')} {value}: {', '.join(cells)}")
    return "\n".join(lines)


def cell(value: Mapping[str, Any] | None) -> str:
    if not value:
        return "-"
    low, high = value["ci95"]
    return f"{value['mean']:.3f} [{low:.3f}, {high:.3f}]"
