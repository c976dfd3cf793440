"""What turning a 10 KB comment into safe HTML costs: ``app.core.comment_text``'s ``cleaned``
then ``rendered`` (markdown-it-py, then nh3's allow-list), the path a post or an edit runs
once; a thread page reads the stored HTML and renders nothing.

    .venv/bin/python -m benchmarks.comment_text [--size 10000] [--runs 300]

The comment is real text: abstracts of the bundled sample (``app/sample``), each written up as
a reader would (a paragraph with emphasis, a link, inline code and maths; every third a quote),
cut at ``--size`` characters; and a worst case, every sentence marked up (``dense``). Peers in
the same run: markdown-it-py's plain CommonMark render of the same text (the parser alone, the
floor of any Markdown path on it) and nh3 cleaning the rendered HTML (the sanitizer alone).
Each figure is the median of ``--runs``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import nh3
from markdown_it import MarkdownIt

from app.core.comment_text import cleaned, rendered

SAMPLE = Path(__file__).resolve().parents[1] / "app" / "sample" / "arxiv_listings_sample.jsonl.gz"


def comment_of(size: int) -> str:
    """Abstracts written up as a reader's Markdown, cut at ``size`` characters."""
    parts: list[str] = []
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            record = json.loads(line)
            words = str(record["summary"]).split()
            words[1] = f"*{words[1]}*"
            words[-2] = f"**{words[-2]}**"
            said = " ".join(words)
            link = f"[the paper](https://arxiv.org/abs/{record['id']})"
            parts.append(f"{said} See {link}, `train.py --lr 3e-4` and $\\alpha = 0.{number}$.")
            if number % 3 == 2:
                parts.append(f"> {words[0]} {words[1]} {words[2]}")
            if sum(len(part) + 2 for part in parts) > size:
                break
    return "\n\n".join(parts)[:size]


def dense_of(size: int) -> str:
    """A worst case: every sentence marked up (emphasis, maths, a link, code; quotes)."""
    said = (
        "We tried the *ablation* in Table 3 with $\\alpha = 0.1$ and **found** the gain "
        "vanishes; see [the code](https://github.com/x/y) and `train.py --lr 3e-4`. "
    )
    paragraphs = [said * 3 + ("\n\n> A quoted line." if n % 3 == 0 else "") for n in range(60)]
    return "\n\n".join(paragraphs)[:size]


def median_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="characters of the comment")
    parser.add_argument("--runs", type=int, default=300, help="timed runs of each")
    args = parser.parse_args()
    for kind, text in (("prose", comment_of(args.size)), ("dense", dense_of(args.size))):
        report(kind, text, args.runs)


def report(kind: str, text: str, runs: int) -> None:
    plain = MarkdownIt("commonmark", {"html": False})
    html = plain.render(text)
    shipped = median_ms(lambda: rendered(cleaned(text)), runs)
    parser_alone = median_ms(lambda: plain.render(text), runs)
    sanitizer_alone = median_ms(lambda: nh3.clean(html), runs)
    ratio = shipped / parser_alone
    print(f"{kind} comment of {len(text):,} characters, median of {runs} runs")
    print(f"  cleaned + rendered (shipped)  {shipped:7.2f} ms")
    print(f"  markdown-it-py alone (peer)   {parser_alone:7.2f} ms  shipped/peer {ratio:.2f}")
    print(f"  nh3 alone (peer)              {sanitizer_alone:7.2f} ms")


if __name__ == "__main__":
    main()
