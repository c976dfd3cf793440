"""The project's two TeX paths against pylatexenc, on the corpus: the same text or not.

    .venv/bin/python -m benchmarks.tex_paths [--corpus PATH] [--examples 8]

Titles go through ``app.core.tex.readable`` (what mail, feeds and previews show) and author
names through ``app.core.tex.decode_tex_accents`` (what names and author keys are
made of); each is set beside pylatexenc's ``LatexNodes2Text().latex_to_text`` of the same
text (both in NFC, whitespace collapsed). Prints, for titles and for names: how many, the
share where the two agree (of all, and of those holding TeX: a backslash, a dollar, a brace or
a tilde), the time each takes, and the first disagreements; then the same for the hostile
texts of the web tests. pylatexenc would replace both paths only if it agreed on at least
99.9 % of titles and names and on every hostile text.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

from pylatexenc.latex2text import LatexNodes2Text

from app.core.tex import decode_tex_accents, readable
from benchmarks.corpus_data import CORPUS
from tests.web.conftest import HOSTILE_ABSTRACT, HOSTILE_AUTHOR, HOSTILE_TITLE

TEX_MARKS = ("\\", "$", "{", "~")
AGREEMENT_GOAL = 0.999


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--examples", type=int, default=8)
    args = parser.parse_args()
    titles, names = read_texts(args.corpus)
    peer = LatexNodes2Text().latex_to_text
    compare("titles", titles, readable, peer, args.examples)
    compare("names", names, decode_tex_accents, peer, args.examples)
    hostile = [HOSTILE_TITLE, HOSTILE_ABSTRACT, HOSTILE_AUTHOR]
    compare("hostile texts", hostile, readable, peer, args.examples)


def read_texts(corpus: Path) -> tuple[list[str], list[str]]:
    titles: list[str] = []
    names: set[str] = set()
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            titles.append(str(record["title"]))
            names.update(str(name) for name in record["authors"])
    return titles, sorted(names)


def plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def compare(
    what: str,
    texts: list[str],
    ours: Callable[[str], str],
    peer: Callable[[str], str],
    examples: int,
) -> None:
    mine, mine_seconds = _timed(ours, texts)
    theirs, their_seconds = _timed(peer, texts)
    agree = [plain(a) == plain(b) for a, b in zip(mine, theirs, strict=True)]
    with_tex = [same for text, same in zip(texts, agree, strict=True) if _has_tex(text)]
    share = sum(agree) / len(agree)
    print(f"\n{what}: {len(texts):,}, of which {len(with_tex):,} hold TeX")
    print(f"  the same text: {share:.4%} of all, {_share(with_tex)} of those with TeX")
    print(f"  time: ours {mine_seconds:.2f} s, pylatexenc {their_seconds:.2f} s")
    print(f"  pylatexenc could replace ours (>= {AGREEMENT_GOAL:.1%}): {share >= AGREEMENT_GOAL}")
    shown = (i for i, same in enumerate(agree) if not same)
    for index in list(shown)[:examples]:
        print(f"  {texts[index]!r}\n    ours: {mine[index]!r}\n    pylatexenc: {theirs[index]!r}")


def _timed(convert: Callable[[str], str], texts: Iterable[str]) -> tuple[list[str], float]:
    started = time.perf_counter()
    done = [convert(text) for text in texts]
    return done, time.perf_counter() - started


def _has_tex(text: str) -> bool:
    return any(mark in text for mark in TEX_MARKS)


def _share(flags: list[bool]) -> str:
    return f"{sum(flags) / len(flags):.2%}" if flags else "-"


if __name__ == "__main__":
    main()
