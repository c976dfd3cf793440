"""What citing one paper costs in each format of its "Cite" menu: BibTeX, RIS and CSL-JSON
(``app.web.citations``' writers) and the APA and IEEE references (citeproc-py with the shipped
CSL styles), through the functions the ``/papers/{id}/cite.*`` routes call.

    .venv/bin/python -m benchmarks.cite [--papers 200] [--runs 5]

The papers are real: the first ``--papers`` records of the bundled sample (``app/sample``),
parsed as ``paperboy import`` parses them. A formatted reference is remembered by its item
once rendered, so APA and IEEE are timed twice: rendered afresh (the memo emptied before each
call: a paper's first citation) and remembered (every later one). The peer in the same run is
the paper's CSL item built and written by ``json.dumps``, about the least any format costs. Each
figure is the median (p50) over the papers of each paper's fastest of ``--runs``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import fields
from itertools import islice
from pathlib import Path

from app.web.citations import Cited, bibtex_entry, csl_item, ris
from app.web.citing import _rendered, csl_json_item, reference
from app.web.view_models import PaperFacts
from ingest.snapshot import parse_snapshot_record

SAMPLE = Path(__file__).resolve().parents[1] / "app" / "sample" / "arxiv_listings_sample.jsonl.gz"
Format = Callable[[PaperFacts], object]


def sample_papers(count: int) -> list[PaperFacts]:
    """The sample's first ``count`` papers as the web reads a stored paper."""
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as lines:
        records = [parse_snapshot_record(json.loads(line)) for line in islice(lines, count)]
    names = [field.name for field in fields(PaperFacts)]
    return [PaperFacts(**{name: getattr(r, name) for name in names}) for r in records]


def afresh(style: str) -> Format:
    """A reference in ``style`` rendered with the memo emptied first."""

    def render(paper: PaperFacts) -> str:
        _rendered.cache_clear()
        return reference(paper, style)

    return render


FORMATS: dict[str, Format] = {
    "json.dumps of the CSL item (peer)": lambda p: json.dumps(csl_item(Cited(p))),
    "BibTeX (cite.bib)": lambda p: bibtex_entry(p) + "\n",
    "RIS (cite.ris)": lambda p: ris([Cited(p)]),
    "CSL-JSON (cite.json)": csl_json_item,
    "APA, rendered afresh (cite.txt)": afresh("apa"),
    "IEEE, rendered afresh (cite.txt?style=ieee)": afresh("ieee"),
    "APA, remembered": lambda p: reference(p, "apa"),
    "IEEE, remembered": lambda p: reference(p, "ieee"),
}


def p50_ms(render: Format, papers: list[PaperFacts], runs: int) -> float:
    """The median over the papers of each one's fastest of ``runs`` renderings."""
    fastest = []
    for paper in papers:
        render(paper)  # warm: styles parsed, a remembered reference stored
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            render(paper)
            times.append(time.perf_counter() - started)
        fastest.append(min(times))
    return statistics.median(fastest) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=200, help="papers of the sample cited")
    parser.add_argument("--runs", type=int, default=5, help="timed renderings of each paper")
    args = parser.parse_args()
    papers = sample_papers(args.papers)
    figures = {name: p50_ms(render, papers, args.runs) for name, render in FORMATS.items()}
    peer = next(iter(figures.values()))
    print(f"{len(papers)} papers of the sample, p50 of each paper's fastest of {args.runs} runs")
    for name, figure in figures.items():
        print(f"  {name:44} {figure * 1000:9.1f} µs  {figure / peer:8.1f} x the peer")


if __name__ == "__main__":
    main()
