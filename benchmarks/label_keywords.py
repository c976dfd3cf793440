"""Topic labels against Hugging Face's ``ai_keywords``, beside KeyBERT and the old labels.

    .venv/bin/pip install -e '.[peers]'     # KeyBERT, the peer
    .venv/bin/python -m benchmarks.label_keywords --first 2025-04-01 --last 2025-09-30
    .venv/bin/python -m benchmarks.label_keywords --first 2025-10-01 --last 2025-12-31

Each measured announcement day (every ``--every``-th of the span) has its window (the day and
the six announcement days before it) clustered by the pure code ``paperboy rank`` runs, and
each labeller labels the same clusters:

- shipped: ``ranking/labels.py`` as ``paperboy rank`` runs it (by meaning, int8 query model);
  and again with each phrase keeping the vector it was first given over the measured days, as
  ``phrase_vectors`` keeps them (the int8 model scales each batch apart);
- old: ``ranking/labels.py`` at ``--old-commit``, the labels readers saw before;
- KeyBERT (``--peers``): ``keybert`` with its defaults (single words), and ``keybert-phrases``
  (one or two words, maximal marginal relevance, diversity 0.5). One document per cluster: the
  texts the shipped labeller reads (its representatives, each cut to the same length), the same
  all-MiniLM-L6-v2, four phrases as a label has, English stop words, one call a day. The
  document's embedding KeyBERT compares words with is the cluster's centre, the mean of its
  papers' vectors from the same model: the joined document is far longer than the model's 256
  tokens, so embedding it would describe its first paper or two only.

Two measures, over all measured days:

- keywords: over topics with at least ``MIN_KEYWORDED`` member papers (all the window's papers
  in the cluster) that have Hugging Face ``ai_keywords``, phrases and keywords normalised alike
  (lowercase words split on anything not a letter or digit, a plural "s" dropped from words over
  three letters). A keyword confirms a phrase when their words are equal or one's run inside the
  other's. Printed: the share of label phrases some member confirms (confirmed), the mean
  share of members confirming a phrase (support), the share of topics whose name (first
  phrase) is confirmed (names); "strictly" also asks the shorter to hold at least half the
  longer's words, as a single word inside a long keyword says little.
- retrieval, as ``benchmarks/topic_labels.py``: each of the day's own papers in a topic
  against all the day's labels (torch model), top-1 share and MRR of its own topic's label.

Also each labeller's seconds a day, and the last day's first labels.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.core.config import get_settings
from app.core.vectors import Matrix
from benchmarks.corpus_data import (
    CORPUS,
    MATRIX,
    CorpusPaper,
    read_corpus,
    read_vectors,
    vectors_of,
)
from benchmarks.topic_labels import OLD_COMMIT, WINDOW_DAYS, Day, _labeller, _old_module, _retrieval
from ranking import labels as shipped_labels
from ranking.embedder import TorchEmbedder, resolve_model_path
from ranking.onnx_encoder import phrase_encoder
from ranking.topics import Labels, TopicParams, centroids, cluster

KEYWORDS = CORPUS.parent.parent / "hf_daily" / "hf_daily_papers_2024-05-27_2025-12-31.jsonl.gz"
MIN_KEYWORDED = 5
PEERS: dict[str, dict[str, Any]] = {
    "keybert": {},
    "keybert-phrases": {"keyphrase_ngram_range": (1, 2), "use_mmr": True, "diversity": 0.5},
}
Labeller = Callable[[Sequence[str], Labels, Matrix, Matrix], list[str]]
Keywords = dict[str, list[tuple[str, ...]]]


@dataclass(frozen=True, slots=True)
class Window:
    """One measured day's window, clustered; ``own``: the day's own papers in a topic."""

    day: date
    ids: list[str]
    texts: list[str]
    vectors: Matrix
    topics: Labels
    centres: Matrix
    own: NDArray[np.bool_]


@dataclass
class Tally:
    """One labeller's figures, day after day."""

    confirmed: list[bool] = field(default_factory=list)
    strict: list[bool] = field(default_factory=list)
    support: list[float] = field(default_factory=list)
    names: list[bool] = field(default_factory=list)
    strict_names: list[bool] = field(default_factory=list)
    retrieval: list[tuple[float, float]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    last: list[str] = field(default_factory=list)


def main() -> None:
    args = _arguments()
    keywords = read_keywords(args.keywords)
    embedder = TorchEmbedder(get_settings())
    labellers = _labellers(args.old_commit, args.peers)
    tallies = {name: Tally() for name in labellers}
    topic_days = measured = 0
    for window in _windows(args):
        keyworded = _keyworded_topics(window, keywords)
        topic_days += len(window.centres)
        measured += keyworded
        for name, label in labellers.items():
            _measure(tallies[name], label, window, keywords, embedder)
        seconds = ", ".join(f"{name} {t.seconds[-1]:.1f} s" for name, t in tallies.items())
        print(f"{window.day}: {keyworded}/{len(window.centres)} topics; {seconds}", flush=True)
    days = len(tallies["shipped"].seconds)
    print(
        f"{days} announcement days {args.first}…{args.last}, every {args.every}: "
        f"{measured} of {topic_days} topics with {MIN_KEYWORDED}+ keyworded papers"
    )
    for name, tally in tallies.items():
        _report(name, tally)
    for name, tally in tallies.items():
        print(f"{name}, last day: " + " | ".join(tally.last[:6]))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--keywords", type=Path, default=KEYWORDS)
    parser.add_argument("--first", type=date.fromisoformat, required=True)
    parser.add_argument("--last", type=date.fromisoformat, required=True)
    parser.add_argument("--every", type=int, default=3, help="measure every N-th day")
    parser.add_argument("--old-commit", default=OLD_COMMIT)
    parser.add_argument("--peers", nargs="*", choices=sorted(PEERS), default=sorted(PEERS))
    return parser.parse_args()


def read_keywords(path: Path) -> Keywords:
    """Each arXiv id's Hugging Face keywords, normalised (union over its records)."""
    found: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    with gzip.open(path, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            for keyword in record.get("ai_keywords") or []:
                words = normalised(str(keyword))
                if words:
                    found[str(record["arxiv_id"])].add(words)
    return {arxiv_id: sorted(words) for arxiv_id, words in found.items()}


def normalised(phrase: str) -> tuple[str, ...]:
    """Lowercase words split on anything not a letter or digit, a plural "s" dropped from
    words over three letters."""
    words = re.findall(r"[^\W_]+", phrase.lower())
    return tuple(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words)


def confirms(keyword: tuple[str, ...], phrase: tuple[str, ...], strict: bool = False) -> bool:
    """One runs inside the other (or they are equal); ``strict``: and the shorter holds at
    least half the longer's words, so that "reasoning" is not confirmed by "long context
    reasoning" alone."""
    short, long = sorted((keyword, phrase), key=len)
    if strict and 2 * len(short) < len(long):
        return False
    return any(long[i : i + len(short)] == short for i in range(len(long) - len(short) + 1))


def _labellers(old_commit: str, peers: list[str]) -> dict[str, Labeller]:
    result = {
        "shipped": _labeller(shipped_labels, phrase_encoder(get_settings())),
        "shipped, kept vectors": _labeller(shipped_labels, _first_vectors(get_settings())),
        f"old ({old_commit})": _labeller(_old_module(old_commit)),
    }
    if peers:
        from keybert import KeyBERT  # the peer, installed with the "peers" extra

        keybert = KeyBERT(model=resolve_model_path(get_settings().embedding_model))
        result |= {f"KeyBERT {peer}": _keybert(keybert, PEERS[peer]) for peer in peers}
    return result


def _first_vectors(settings: Any) -> Callable[[Sequence[str]], Matrix]:
    """The phrase model as ``paperboy rank`` uses it with ``phrase_vectors``: each phrase keeps
    the vector it was first given, over the measured days in order."""
    encode, kept = phrase_encoder(settings), dict[str, Matrix]()

    def first(phrases: Sequence[str]) -> Matrix:
        missing = [phrase for phrase in dict.fromkeys(phrases) if phrase not in kept]
        if missing:
            kept.update(zip(missing, encode(missing), strict=True))
        return np.stack([kept[phrase] for phrase in phrases]) if phrases else encode(phrases)

    return first


def _keybert(keybert: Any, options: dict[str, Any]) -> Labeller:
    """KeyBERT on one document per cluster: the texts the shipped labeller reads."""

    def label(texts: Sequence[str], topics: Labels, vectors: Matrix, centres: Matrix) -> list[str]:
        chosen = shipped_labels.representatives(vectors, topics, centres)
        cut = shipped_labels.LABEL_TEXT_CHARACTERS
        documents = [
            " ".join(texts[int(i)][:cut] for i in np.flatnonzero(chosen == number))
            for number in range(len(centres))
        ]
        found = keybert.extract_keywords(
            documents,
            doc_embeddings=centres,
            top_n=shipped_labels.PHRASES_PER_LABEL,
            stop_words="english",
            **options,
        )
        # KeyBERT answers a single document with its phrases, not a list of one.
        per_cluster = [found] if len(documents) == 1 else found
        return [", ".join(phrase for phrase, _ in phrases) for phrases in per_cluster]

    return label


def _windows(args: argparse.Namespace) -> Iterator[Window]:
    papers = read_corpus(args.corpus)
    rows = read_vectors(args.matrix)
    announced = sorted({p.announced_on for p in papers})
    span = [d for d in announced if args.first <= d <= args.last]
    for day in span[:: args.every]:
        window_days = set(announced[: announced.index(day) + 1][-WINDOW_DAYS:])
        window = sorted((p for p in papers if p.announced_on in window_days), key=_order)
        ids = [p.arxiv_id for p in window]
        vectors = vectors_of(args.matrix, rows, ids)
        topics = cluster(vectors, TopicParams())
        own = np.array([p.announced_on == day for p in window]) & (topics >= 0)
        texts = [p.text for p in window]
        yield Window(
            day=day,
            ids=ids,
            texts=texts,
            vectors=vectors,
            topics=topics,
            centres=centroids(vectors, topics),
            own=own,
        )


def _order(paper: CorpusPaper) -> tuple[date, str]:
    return paper.announced_on, paper.arxiv_id


def _measure(
    tally: Tally, label: Labeller, window: Window, keywords: Keywords, embedder: TorchEmbedder
) -> None:
    started = time.perf_counter()
    labels = label(window.texts, window.topics, window.vectors, window.centres)
    tally.seconds.append(time.perf_counter() - started)
    tally.last = labels
    for number, text in enumerate(labels):
        members = _members_keywords(window, number, keywords)
        if len(members) >= MIN_KEYWORDED:
            _tally_topic(tally, text, members)
    own = Day(window.topics[window.own], window.vectors[window.own], {"": labels})
    tally.retrieval.append(_retrieval(own, "", embedder))


def _members_keywords(
    window: Window, number: int, keywords: Keywords
) -> list[list[tuple[str, ...]]]:
    """The keywords of each member of topic ``number`` that has any."""
    members = [window.ids[i] for i in np.flatnonzero(window.topics == number)]
    return [keywords[arxiv_id] for arxiv_id in members if arxiv_id in keywords]


def _keyworded_topics(window: Window, keywords: Keywords) -> int:
    counted = [_members_keywords(window, n, keywords) for n in range(len(window.centres))]
    return sum(len(members) >= MIN_KEYWORDED for members in counted)


def _tally_topic(tally: Tally, label: str, members: list[list[tuple[str, ...]]]) -> None:
    phrases = [words for words in map(normalised, label.split(",")) if words]
    for position, phrase in enumerate(phrases):
        backing = [any(confirms(k, phrase) for k in member) for member in members]
        strictly = any(confirms(k, phrase, strict=True) for member in members for k in member)
        tally.confirmed.append(any(backing))
        tally.strict.append(strictly)
        tally.support.append(statistics.mean(backing))
        if position == 0:
            tally.names.append(any(backing))
            tally.strict_names.append(strictly)


def _mean(values: Sequence[float]) -> float:
    """The mean, or nan where a span has no topic with enough keyworded papers."""
    return statistics.mean(values) if values else float("nan")


def _report(name: str, tally: Tally) -> None:
    top1, mrr = zip(*tally.retrieval, strict=True)
    print(
        f"{name:<24} topics {len(tally.names):>4}  confirmed {_mean(tally.confirmed):.3f}"
        f" (strictly {_mean(tally.strict):.3f})  support {_mean(tally.support):.3f}"
        f"  names {_mean(tally.names):.3f} (strictly {_mean(tally.strict_names):.3f})"
        f"  top-1 {_mean(top1):.3f}  MRR {_mean(mrr):.3f}"
        f"  {_mean(tally.seconds):.1f} s/day (max {max(tally.seconds):.1f})"
    )


if __name__ == "__main__":
    main()
