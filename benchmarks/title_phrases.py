"""Writes ``ranking/title_phrases.txt``: how often papers put each phrase in their title.

    .venv/bin/python -m benchmarks.title_phrases [--corpus ...] [--since 2026-01-01] [--papers 10]

A phrase is what the topic labeller counts as one (``ranking.labels.phrases_of``: one to three
words between stop words, boilerplate and marks, lowercase), read in a paper's title and in the
abstract's first ``LABEL_TEXT_CHARACTERS`` characters (the labeller reads that many of title and
abstract together, so a little less of the abstract). Each paper counts a phrase once. Only
papers first announced on or after ``--since`` are read: the labels are measured on 2025's days
(``benchmarks/label_keywords.py``), so the table never saw the papers it is judged on. Only
phrases that at least ``--papers`` papers use are written.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from datetime import date
from pathlib import Path

from benchmarks.corpus_data import CORPUS
from ranking.labels import LABEL_TEXT_CHARACTERS, phrases_of
from ranking.title_phrases import TITLE_PHRASES_FILE


def count_title_phrases(corpus: Path, since: date) -> tuple[Counter[str], Counter[str], int]:
    """Papers with each phrase in the title, papers using it at all, and papers read."""
    in_titles: Counter[str] = Counter()
    using: Counter[str] = Counter()
    papers = 0
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            paper = json.loads(line)
            if date.fromisoformat(min(paper["listing_dates"])) < since:
                continue
            title = phrases_of(paper["title"])
            opening = phrases_of(paper["summary"][:LABEL_TEXT_CHARACTERS])
            in_titles.update(title)
            using.update(title | opening)
            papers += 1
    return in_titles, using, papers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--since", type=date.fromisoformat, default=date(2026, 1, 1))
    parser.add_argument("--papers", type=int, default=10)
    parser.add_argument("--out", type=Path, default=TITLE_PHRASES_FILE)
    args = parser.parse_args()
    in_titles, using, papers = count_title_phrases(args.corpus, args.since)
    kept = sorted(phrase for phrase, count in using.items() if count >= args.papers)
    header = [
        f"# Phrases used by at least {args.papers} of {papers} real arXiv papers first announced",
        f"# from {args.since} ({args.corpus.name}: dw-dengwei/daily-arXiv-ai-enhanced @ b4c542b,",
        "# Apache-2.0; arXiv metadata CC0). Written by benchmarks/title_phrases.py; a phrase,",
        "# the papers with it in the title, the papers with it in the title or abstract's opening.",
    ]
    rows = [f"{phrase}\t{in_titles[phrase]}\t{using[phrase]}" for phrase in kept]
    args.out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {len(rows)} phrases to {args.out}")


if __name__ == "__main__":
    main()
