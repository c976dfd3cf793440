"""Topic labels, old and new, over 30 consecutive announcement days of the real corpus.

    .venv/bin/python -m benchmarks.topic_labels [--corpus ...] [--matrix ...] \
        [--first 2026-05-01] [--days 30] [--old-commit ce833d4]

Each day's window (the day and the six announcement days before it) is clustered by the pure
code ``paperboy rank`` runs (``ranking.topics``) and labelled twice on the same clusters: by
``ranking/labels.py`` as it stands and as it was at ``--old-commit`` (read from git). For each
labeller it prints, over all days:

- generic: the share of topics named (first phrase) by one of the corpus's 300 most
  document-frequent words alone (``ranking/generic_words.txt``);
- shared names: the share of topics whose first phrase another topic of the day also opens with;
Four labellers: the old one, the new one on counts alone, and the new one ordering its
candidates by meaning (``PAPERBOY_TOPIC_LABELS_BY_MEANING``) with the torch model and with the
int8 query model, as ``paperboy rank`` ships it.

- retrieval: each label embedded with the real model (all-MiniLM-L6-v2), each of the day's own
  papers in a topic against all that day's labels by cosine: the share whose nearest label is
  its own topic's (top-1) and the mean reciprocal rank of its own label (MRR).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import types
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from app.core.config import get_settings
from app.core.vectors import Matrix
from benchmarks.corpus_data import (
    CorpusPaper,
    add_days_arguments,
    read_corpus,
    read_vectors,
    vectors_of,
)
from ranking import labels as new_labels
from ranking.embedder import TorchEmbedder
from ranking.onnx_encoder import phrase_encoder
from ranking.topics import Labels, TopicParams, centroids, cluster

OLD_COMMIT = "ce833d4"
WINDOW_DAYS = 7
Labeller = Callable[[Sequence[str], Labels, Matrix, Matrix], list[str]]


@dataclass(frozen=True, slots=True)
class Day:
    """One measured day: its own papers' topics and vectors, and each labeller's labels."""

    topics: Labels
    vectors: Matrix
    labels: dict[str, list[str]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_days_arguments(parser)
    parser.add_argument("--old-commit", default=OLD_COMMIT)
    args = parser.parse_args()
    papers = read_corpus(args.corpus)
    embedder = TorchEmbedder(get_settings())
    labellers = {f"old ({args.old_commit})": _labeller(_old_module(args.old_commit))}
    labellers["new, counts only"] = _labeller(new_labels)
    labellers["new, by meaning (torch)"] = _labeller(new_labels, embedder.encode)
    labellers["new, by meaning (int8, as shipped)"] = _labeller(
        new_labels, phrase_encoder(get_settings())
    )
    days = _label_days(papers, args, labellers)
    print(f"{len(days)} announcement days from {args.first}, {WINDOW_DAYS}-day windows")
    for name in labellers:
        _report(name, days, embedder)
    for name in labellers:
        print(f"{name}, last day: " + " | ".join(days[-1].labels[name][:6]))


def _old_module(commit: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{commit}:ranking/labels.py"], check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(f"labels_at_{commit}")
    exec(compile(source, f"ranking/labels.py@{commit}", "exec"), module.__dict__)
    return module


def _labeller(module: types.ModuleType, encode: new_labels.Encode | None = None) -> Labeller:
    """Label clusters with ``module``'s code (by meaning too, as ``paperboy rank`` does, given
    ``encode``)."""

    def label(texts: Sequence[str], topics: Labels, vectors: Matrix, centres: Matrix) -> list[str]:
        chosen = module.representatives(vectors, topics, centres)
        if encode is None:
            result: list[str] = module.label_clusters(texts, chosen)
        else:
            result = module.label_clusters(texts, chosen, new_labels.Meaning(encode, centres))
        return result

    return label


def _label_days(
    papers: list[CorpusPaper], args: argparse.Namespace, labellers: dict[str, Labeller]
) -> list[Day]:
    rows = read_vectors(args.matrix)
    announced = sorted({p.announced_on for p in papers})
    measured = [d for d in announced if d >= args.first][: args.days]
    days = []
    for day in measured:
        window_days = set(announced[: announced.index(day) + 1][-WINDOW_DAYS:])
        window = sorted((p for p in papers if p.announced_on in window_days), key=_order)
        vectors = vectors_of(args.matrix, rows, [p.arxiv_id for p in window])
        topics = cluster(vectors, TopicParams())
        centres = centroids(vectors, topics)
        texts = [p.text for p in window]
        own = np.array([p.announced_on == day for p in window]) & (topics >= 0)
        labels = {name: label(texts, topics, vectors, centres) for name, label in labellers.items()}
        days.append(Day(topics[own], vectors[own], labels))
    return days


def _order(paper: CorpusPaper) -> tuple[date, str]:
    return paper.announced_on, paper.arxiv_id


def _report(name: str, days: list[Day], embedder: TorchEmbedder) -> None:
    generic = new_labels.generic_words()
    labels = [label for day in days for label in day.labels[name]]
    with_generic = [_generic_alone(label.split(",")[0], generic) for label in labels]
    shared = [_shared_names(day.labels[name]) for day in days]
    top1, mrr = zip(*(_retrieval(day, name, embedder) for day in days), strict=True)
    print(
        f"{name:<20} labels {len(labels)}  generic {statistics.mean(with_generic):.3f}  "
        f"shared names {sum(s for s, _ in shared) / sum(n for _, n in shared):.3f}  "
        f"top-1 {statistics.mean(top1):.3f}  MRR {statistics.mean(mrr):.3f}"
    )


def _generic_alone(phrase: str, generic: frozenset[str]) -> bool:
    words = _words(phrase)
    return len(words) == 1 and words[0] in generic


def _words(label: str) -> list[str]:
    return [w.lower() for w in re.findall(new_labels.WORD, label)]


def _shared_names(labels: list[str]) -> tuple[int, int]:
    """How many topics open with a phrase another topic opens with, of how many."""
    names = Counter(label.split(",")[0].strip().lower() for label in labels)
    return sum(n for n in names.values() if n > 1), len(labels)


def _retrieval(day: Day, name: str, embedder: TorchEmbedder) -> tuple[float, float]:
    """Top-1 share and MRR of each paper's own label among the day's labels."""
    label_vectors = embedder.encode(day.labels[name])
    similarity = day.vectors @ label_vectors.T
    own = similarity[np.arange(len(day.topics)), day.topics]
    ranks = 1 + (similarity > own[:, None]).sum(axis=1)
    return float((ranks == 1).mean()), float((1.0 / ranks).mean())


if __name__ == "__main__":
    main()
