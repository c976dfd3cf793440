"""Would the trending model's author history gain from people instead of names?

    .venv/bin/python -m benchmarks.trending_people --data ../shared/data

Splits every name of the corpus before ``--until`` into people as ``paperboy people`` does
(:func:`ranking.people.split_people` on co-authors, categories and vectors), then writes each
person other than a name's first as a name of its own ("Zhe Qu", "Zhe Qu Person2"), in the
corpus and in Hugging Face's records of the same papers. A featured paper outside the corpus
cannot be split, so it counts for every person of its names. Both corpora go through
``benchmarks/trending_cv.py``'s folds (June to September 2025, the shipped C and ranker weight);
prints the mean NDCG@10 and AUC of each, and the paired difference over the folds' days with
a 95 % bootstrap interval. The split reads papers of every fold (no labels): a mild look
ahead that can only favour people.
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.core.names import cached_author_key
from benchmarks.trending_cv import CORPUS, EMBEDDINGS, LABELS, MIN_POOL, fold_scores
from ranking.people import Work, split_people
from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord, load_corpus, load_embeddings, load_labels
from ranking.trending.metrics import day_metrics
from ranking.trending.replay import Replay
from ranking.trending.training import TrainingSet, training_set, window_labels

C, RANKER_WEIGHT = 0.001, 1.0
DRAWS = 2000

# (paper, author key) -> the person's number within the name (0: the name itself)
People = dict[tuple[str, str], int]


def split_corpus(corpus: Sequence[Candidate], vectors: Mapping[str, NDArray[np.float32]]) -> People:
    by_key: dict[str, list[Candidate]] = defaultdict(list)
    for paper in corpus:
        for key in _keys(paper):
            by_key[key].append(paper)
    people: People = {}
    for key, papers in by_key.items():
        if len(papers) < 2:
            continue
        works = [
            Work(
                coauthors=frozenset(k for k in _keys(p) if k != key),
                categories=frozenset(p.categories),
                vector=np.asarray(vectors[p.arxiv_id], dtype=np.float32),
            )
            for p in papers
        ]
        for paper, person in zip(papers, split_people(works), strict=True):
            if person:
                people[(paper.arxiv_id, key)] = person
    return people


def _keys(paper: Candidate | LabelRecord) -> list[str]:
    return list(dict.fromkeys(k for k in map(cached_author_key, paper.authors) if k))


def as_people(
    corpus: Sequence[Candidate], labels: Sequence[LabelRecord], people: People
) -> tuple[list[Candidate], list[LabelRecord]]:
    """The corpus and records with each person after a name's first named apart."""
    written = {p.arxiv_id: replace(p, authors=_named(p, people)) for p in corpus}
    persons: dict[str, set[int]] = defaultdict(set)
    for (_, key), person in people.items():
        persons[key].add(person)
    return list(written.values()), [
        replace(r, authors=written[r.arxiv_id].authors)
        if r.arxiv_id in written
        else replace(r, authors=_everyone(r, persons))
        for r in labels
    ]


def _named(paper: Candidate, people: People) -> tuple[str, ...]:
    return tuple(
        f"{name} Person{people[(paper.arxiv_id, key)] + 1}"
        if (paper.arxiv_id, key := cached_author_key(name)) in people
        else name
        for name in paper.authors
    )


def _everyone(record: LabelRecord, persons: Mapping[str, set[int]]) -> tuple[str, ...]:
    extra = [
        f"{name} Person{n + 1}"
        for name in record.authors
        for n in sorted(persons.get(cached_author_key(name), ()))
    ]
    return (*record.authors, *extra)


def day_scores(data: TrainingSet, bounds: list[int], until: int) -> dict[int, dict[str, float]]:
    """NDCG@10 and AUC of each fold day, ranked by a model fitted on the days before it."""
    found: dict[int, dict[str, float]] = {}
    for start, end in itertools.pairwise(bounds):
        test, scores = fold_scores(data, start, end, C, RANKER_WEIGHT)
        days, featured = data.days[test], data.targets(until)[test]
        upvotes = data.upvotes[test]
        for day in np.unique(days):
            on = days == day
            grades = [int(u) if f else None for u, f in zip(upvotes[on], featured[on], strict=True)]
            if on.sum() >= MIN_POOL and any(g is not None for g in grades):
                found[int(day)] = day_metrics(list(scores[on]), grades)
    return found


def paired(one: Sequence[float], other: Sequence[float]) -> tuple[float, float, float]:
    """Mean of other - one over days, with a 95 % bootstrap interval."""
    diff = np.asarray(other) - np.asarray(one)
    rng = np.random.default_rng(0)
    means = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(DRAWS)]
    low, high = np.percentile(means, [2.5, 97.5])
    return float(diff.mean()), float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--until", type=date.fromisoformat, default=date(2025, 10, 1))
    args = parser.parse_args()
    labels = window_labels(load_labels([args.data / LABELS]), args.until)
    corpus = [p for p in load_corpus(args.data / CORPUS) if p.announced_on < args.until]
    vectors = load_embeddings(args.data / EMBEDDINGS)
    people = split_corpus(corpus, vectors)
    split_names = len({key for _, key in people})
    print(f"{split_names} names split; {len(people)} (paper, name) pairs moved to a later person")
    until = args.until.toordinal()
    bounds = [date(2025, m, 1).toordinal() for m in (6, 7, 8, 9)] + [until]
    runs = {}
    for label, (papers, records) in {
        "names": (corpus, labels),
        "people": as_people(corpus, labels, people),
    }.items():
        runs[label] = day_scores(
            training_set(Replay(papers, vectors, records), args.until), bounds, until
        )
    days = sorted(set(runs["names"]) & set(runs["people"]))
    for metric in ("ndcg@10", "auc"):
        one = [runs["names"][d][metric] for d in days]
        other = [runs["people"][d][metric] for d in days]
        mean, low, high = paired(one, other)
        print(
            f"{metric}: names {np.mean(one):.4f}, people {np.mean(other):.4f}, "
            f"people - names {mean:+.4f} [{low:+.4f}, {high:+.4f}] over {len(days)} days"
        )


if __name__ == "__main__":
    main()
