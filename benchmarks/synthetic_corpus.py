"""Synthetic papers resampled from the real corpus, for the scale benchmark (``scale.py``).

    .venv/bin/python -m benchmarks.synthetic_corpus --papers 300000   # prints a summary
    .venv/bin/python -m benchmarks.synthetic_corpus --papers 1000000 --write FILE.jsonl.gz

``--write`` writes the papers as Kaggle's ``arxiv-metadata-oai-snapshot`` gives them (the file
``paperboy import`` reads for all of arXiv), one JSON object a line, gzip: its first version's
``created`` time is the announced day.

The first papers are the real corpus itself (74,728 papers, their real vectors, unchanged);
synthetic paper ``i`` after them is made from one real *base* paper drawn at random:

- **abstract**: the base's sentences (split after ``.``, ``!`` or ``?`` followed by a space and
  a capital letter), each replaced with chance ``SENTENCE_SWAP`` (0.3) by a random sentence of
  a random real paper of the same primary category (the first arXiv category the listing names);
  when no sentence was replaced, one is (a synthetic abstract never equals its base's).
- **title**: the first half of the base title's words (rounded up) followed by the second half
  of the words of another real title of the same primary category.
- **authors**: as many as the base has; each position keeps the base's author with chance
  ``AUTHOR_KEPT`` (0.5), which keeps part of the real co-author structure (the kept authors did
  write together), else takes a random author of a random paper of the same primary category;
  a name already on the list is drawn again (up to three times, then the base's is kept).
- **categories** and **comment**: the base's.
- **announced day**: uniform over the weekdays of ``SPREAD`` (the five years before the corpus's
  first day), so the store reads as an archive that reaches back in time.
- **identifier**: ``YYMM.NNNNN`` of the announced month, numbered in order of generation within
  the month, skipping real identifiers.
- **vector**: the base's vector plus Gaussian noise with standard deviation ``SIGMA`` (0.025)
  per dimension, normalised again: a synthetic paper is a near duplicate of its base, as close
  as the closest real pairs (docs/benchmarks.md, "Scale"), so at 1M papers each real paper
  heads a cluster of such near duplicates.

Everything depends on ``--seed`` only, and papers are made in order in chunks of
``CHUNK`` with a generator seeded by (seed, chunk): the first N papers of a run that makes more
are the same N papers, so a 300k store is the first 300k papers of the 1M store.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.core.names import collapse_each, collapse_whitespace
from app.core.vectors import Matrix, normalise
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors
from ingest.records import arxiv_categories

SEED = 20261123
CHUNK = 10_000
SENTENCE_SWAP = 0.3
AUTHOR_KEPT = 0.5
SIGMA = 0.025
SPREAD = (date(2020, 3, 18), date(2025, 3, 17))
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Batch:
    """Papers as columns, with their vectors (row ``i`` is paper ``i``)."""

    arxiv_ids: list[str]
    titles: list[str]
    abstracts: list[str]
    authors: list[tuple[str, ...]]
    categories: list[tuple[str, ...]]
    comments: list[str | None]
    announced: list[date]
    vectors: Matrix

    @property
    def size(self) -> int:
        return len(self.arxiv_ids)


@dataclass(frozen=True)
class Source:
    """The real corpus: the base papers and the pools they are resampled from."""

    papers: Batch
    sentences: list[list[str]]
    peers: dict[str, NDArray[np.int64]]  # primary category -> rows of its papers


def read_source(corpus: Path = CORPUS, matrix: Path = MATRIX) -> Source:
    with gzip.open(corpus, "rt") as lines:
        raw = [json.loads(line) for line in lines]
    rows = read_vectors(matrix)
    stored = np.load(matrix, mmap_mode="r")
    papers = Batch(
        arxiv_ids=[str(r["id"]) for r in raw],
        titles=[collapse_whitespace(r["title"]) for r in raw],
        abstracts=[collapse_whitespace(r["summary"] or "") for r in raw],
        authors=[collapse_each(r["authors"]) for r in raw],
        categories=[arxiv_categories(r["categories"]) for r in raw],
        comments=[
            collapse_whitespace(r["comment"]) or None if r.get("comment") else None for r in raw
        ],
        announced=[date.fromisoformat(r["listing_dates"][0]) for r in raw],
        vectors=normalise(np.asarray(stored[[rows[str(r["id"])] for r in raw]], dtype=np.float32)),
    )
    by_category: dict[str, list[int]] = {}
    for row, categories in enumerate(papers.categories):
        by_category.setdefault(primary(categories), []).append(row)
    return Source(
        papers,
        [_SENTENCE_END.split(abstract) for abstract in papers.abstracts],
        {name: np.array(found, dtype=np.int64) for name, found in by_category.items()},
    )


def primary(categories: tuple[str, ...]) -> str:
    """The first arXiv category a listing names (the listings do not say which is primary)."""
    return categories[0] if categories else ""


def batches(source: Source, total: int, seed: int = SEED) -> Iterator[Batch]:
    """The first ``total`` papers: the real ones (in chunks), then synthetic ones."""
    real = source.papers
    for start in range(0, min(total, real.size), CHUNK):
        yield _slice(real, start, min(start + CHUNK, total))
    maker = _Maker(source, seed)
    made = 0
    while real.size + made < total:
        count = min(CHUNK, total - real.size - made)
        yield maker.chunk(made // CHUNK, count)
        made += count


def _slice(papers: Batch, start: int, stop: int) -> Batch:
    return Batch(
        arxiv_ids=papers.arxiv_ids[start:stop],
        titles=papers.titles[start:stop],
        abstracts=papers.abstracts[start:stop],
        authors=papers.authors[start:stop],
        categories=papers.categories[start:stop],
        comments=papers.comments[start:stop],
        announced=papers.announced[start:stop],
        vectors=papers.vectors[start:stop],
    )


class _Maker:
    """Makes synthetic chunks in order (identifiers are numbered across chunks)."""

    def __init__(self, source: Source, seed: int) -> None:
        self.source = source
        self.seed = seed
        self.taken = set(source.papers.arxiv_ids)
        self.numbers: dict[str, int] = {}
        first, last = SPREAD
        self.days = [
            first + timedelta(days=n)
            for n in range((last - first).days + 1)
            if (first + timedelta(days=n)).weekday() < 5
        ]

    def chunk(self, index: int, count: int) -> Batch:
        rng = np.random.default_rng([self.seed, index])
        real = self.source.papers
        bases = rng.integers(0, real.size, count)
        announced = [self.days[d] for d in rng.integers(0, len(self.days), count)]
        noise = rng.normal(0.0, SIGMA, (count, real.vectors.shape[1])).astype(np.float32)
        texts = [self._paper(rng, int(base)) for base in bases]
        return Batch(
            arxiv_ids=[self._identifier(day) for day in announced],
            titles=[title for title, _, _ in texts],
            abstracts=[abstract for _, abstract, _ in texts],
            authors=[authors for _, _, authors in texts],
            categories=[real.categories[base] for base in bases],
            comments=[real.comments[base] for base in bases],
            announced=announced,
            vectors=normalise(real.vectors[bases] + noise),
        )

    def _paper(self, rng: np.random.Generator, base: int) -> tuple[str, str, tuple[str, ...]]:
        peers = self.source.peers[primary(self.source.papers.categories[base])]
        return (
            self._title(rng, base, peers),
            self._abstract(rng, base, peers),
            self._authors(rng, base, peers),
        )

    def _title(self, rng: np.random.Generator, base: int, peers: NDArray[np.int64]) -> str:
        titles = self.source.papers.titles
        own, other = titles[base].split(), titles[int(rng.choice(peers))].split()
        return " ".join(own[: (len(own) + 1) // 2] + other[len(other) // 2 :])

    def _abstract(self, rng: np.random.Generator, base: int, peers: NDArray[np.int64]) -> str:
        sentences = list(self.source.sentences[base])
        swapped = rng.random(len(sentences)) < SENTENCE_SWAP
        if not swapped.any():
            swapped[rng.integers(0, len(sentences))] = True
        for position in np.flatnonzero(swapped):
            donor = self.source.sentences[int(rng.choice(peers))]
            sentences[position] = donor[int(rng.integers(0, len(donor)))]
        return " ".join(sentences)

    def _authors(
        self, rng: np.random.Generator, base: int, peers: NDArray[np.int64]
    ) -> tuple[str, ...]:
        own = self.source.papers.authors[base]
        chosen: list[str] = []
        for position, name in enumerate(own):
            pick = name
            if rng.random() >= AUTHOR_KEPT:
                for _ in range(3):
                    donor = self.source.papers.authors[int(rng.choice(peers))]
                    drawn = donor[int(rng.integers(0, len(donor)))] if donor else name
                    if drawn not in chosen and drawn not in own[position + 1 :]:
                        pick = drawn
                        break
            chosen.append(pick if pick not in chosen else name)
        return tuple(dict.fromkeys(chosen))

    def _identifier(self, day: date) -> str:
        month = f"{day.year % 100:02d}{day.month:02d}"
        while True:
            number = self.numbers.get(month, 0) + 1
            self.numbers[month] = number
            arxiv_id = f"{month}.{number:05d}"
            if arxiv_id not in self.taken:
                return arxiv_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--papers", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--write", type=Path, help="a Kaggle-shaped .jsonl.gz of the papers")
    args = parser.parse_args()
    started = time.perf_counter()
    source = read_source(args.corpus, args.matrix)
    print(f"read {source.papers.size} real papers in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    if args.write:
        written = write_snapshot(batches(source, args.papers, args.seed), args.write)
        print(f"{written} papers written to {args.write} in {time.perf_counter() - started:.1f} s")
        return
    made = list(batches(source, args.papers, args.seed))
    print(f"{sum(b.size for b in made)} papers in {time.perf_counter() - started:.1f} s")
    _describe(source, made[-1])


def write_snapshot(papers: Iterator[Batch], path: Path) -> int:
    """The papers as Kaggle snapshot lines (gzip); returns how many were written."""
    written = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as file:
        for batch in papers:
            for row in range(batch.size):
                file.write(json.dumps(snapshot_record(batch, row)) + "\n")
            written += batch.size
    return written


def snapshot_record(batch: Batch, row: int) -> dict[str, object]:
    authors = batch.authors[row]
    created = datetime.combine(batch.announced[row], datetime.min.time(), UTC)
    return {
        "id": batch.arxiv_ids[row],
        "submitter": authors[0] if authors else None,
        "authors": ", ".join(authors),
        "title": batch.titles[row],
        "comments": batch.comments[row],
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": " ".join(batch.categories[row]),
        "license": None,
        "abstract": batch.abstracts[row],
        "versions": [{"version": "v1", "created": format_datetime(created, usegmt=True)}],
        "update_date": batch.announced[row].isoformat(),
        "authors_parsed": [_name_parts(name) for name in authors],
    }


def _name_parts(name: str) -> list[str]:
    """[last, first, suffix], as Kaggle splits a name: the last word is the family name."""
    *given, family = name.split(" ")
    return [family, " ".join(given), ""]


def _describe(source: Source, batch: Batch) -> None:
    """A few synthetic papers of the last chunk, and their cosine to their nearest real paper."""
    nearest = (batch.vectors[:1000] @ source.papers.vectors.T).max(axis=1)
    print(f"cosine to the nearest real paper: median {np.median(nearest):.3f}")
    for row in range(2):
        print(
            f"\n{batch.arxiv_ids[row]} {batch.announced[row]} {batch.categories[row]}\n"
            f"{batch.titles[row]}\n{'; '.join(batch.authors[row])}\n{batch.abstracts[row]}"
        )


if __name__ == "__main__":
    main()
