"""Writes ``ranking/generic_words.txt``: the corpus's most document-frequent words.

    .venv/bin/python benchmarks/generic_words.py [--corpus ...] [--count 300]

A word in most abstracts ("model", "learning", "results") names no topic, so the topic
labeller never puts one in a label. A document is a paper's title and abstract; a word is
what the labeller counts as one (``ranking.labels.WORD``), lower-cased; each paper counts a
word once. Ties in document frequency go alphabetically, so the list is reproducible.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

from benchmarks.corpus_data import CORPUS
from ranking.labels import GENERIC_WORDS_FILE, WORD

WORDS = re.compile(WORD)


def document_frequencies(corpus: Path) -> tuple[Counter[str], int]:
    frequency: Counter[str] = Counter()
    documents = 0
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            paper = json.loads(line)
            text = f"{paper['title']}. {paper['summary']}".lower()
            frequency.update(set(WORDS.findall(text)))
            documents += 1
    return frequency, documents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--out", type=Path, default=GENERIC_WORDS_FILE)
    args = parser.parse_args()
    frequency, documents = document_frequencies(args.corpus)
    ranked = sorted(frequency.items(), key=lambda item: (-item[1], item[0]))[: args.count]
    header = [
        f"# The {args.count} most document-frequent words of {documents} real arXiv papers",
        f"# ({args.corpus.name}: dw-dengwei/daily-arXiv-ai-enhanced @ b4c542b, Apache-2.0;",
        "# arXiv metadata CC0), title and abstract, one count per paper.",
        "# Written by benchmarks/generic_words.py; a word and the share of papers using it.",
    ]
    rows = [f"{word}\t{count / documents:.4f}" for word, count in ranked]
    args.out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {len(rows)} words to {args.out}")


if __name__ == "__main__":
    main()
