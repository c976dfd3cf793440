"""What splitting names into people costs when a collaboration of thousands signs every paper:
``paperboy people`` over a store of one collaboration's papers.

    .venv/bin/python -m benchmarks.people_giants [--papers 100] [--roster 3000] [--profile]

The collaboration is synthesized from real data: its roster is the real author list of the
corpus's largest paper (2507.06261, Gemini 2.5, 3,302 distinct names), cut to ``--roster``
names, and its papers are ``--papers`` real corpus papers (ids, titles, abstracts, categories,
days, vectors) whose author lists are replaced by the roster, each member on a paper with
probability ``PRESENT`` (a collaboration's author list changes a little from paper to paper),
followed by the group's name "Gemini Team". Every name is split once (the first run: a new
person each) and again (a settled store). Peer: importing the same papers (``import_file``),
timed in the same run; the split's time over the import's is printed as a ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import json
import pstats
import random
import tempfile
import time
from pathlib import Path

from app.core.config import Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.schema import upgrade_to_head
from app.services.people import PeopleReport, split_names
from benchmarks.corpus_data import CORPUS, MATRIX, read_vectors, vectors_of
from ingest.bulk.importer import import_file
from ranking.embeddings import import_matrix

ROSTER_PAPER = "2507.06261"
GROUP = "Gemini Team"
PRESENT = 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--papers", type=int, default=100)
    parser.add_argument("--roster", type=int, default=3000)
    parser.add_argument("--profile", action="store_true", help="print the first split's profile")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch))
        listing = Path(scratch) / "collaboration.jsonl.gz"
        ids = write_collaboration(args.corpus, listing, args.papers, args.roster)
        imported = _store(settings, listing, args.matrix, ids)
        print(f"{len(ids)} papers of {args.roster} authors and {GROUP!r}: import {imported:.2f} s")
        with open_engine(settings) as engine:
            sessions = make_session_factory(engine)
            for run in ("first", "again"):
                profile = cProfile.Profile() if args.profile and run == "first" else None
                started = time.perf_counter()
                if profile is not None:
                    profile.enable()
                report = split_names(settings, sessions)
                split = time.perf_counter() - started
                if profile is not None:
                    profile.disable()
                    pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
                ratio = split / imported
                print(f"people, {run}: {_line(report)}, {split:.2f} s, {ratio:.2f} x the import")


def write_collaboration(corpus: Path, listing: Path, papers: int, roster: int) -> list[str]:
    """The collaboration's papers as an import file; returns their ids."""
    names: list[str] = []
    hosts = []
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            raw = json.loads(line)
            if raw["id"] == ROSTER_PAPER:
                names = list(dict.fromkeys(raw["authors"]))[:roster]
            elif "cs.CL" in raw["categories"]:
                hosts.append(raw)
    chosen = random.Random(57).sample(hosts, papers)
    draw = random.Random(3000)
    with gzip.open(listing, "wt") as out:
        for raw in chosen:
            members = [name for name in names if draw.random() < PRESENT]
            out.write(json.dumps({**raw, "authors": [*members, GROUP]}) + "\n")
    return [str(raw["id"]) for raw in chosen]


def _store(settings: Settings, listing: Path, matrix: Path, ids: list[str]) -> float:
    """Import the listing and its vectors; the import's seconds (the peer)."""
    with open_engine(settings) as engine:
        upgrade_to_head(engine)
        sessions = make_session_factory(engine)
        started = time.perf_counter()
        import_file(listing, sessions)
        imported = time.perf_counter() - started
        with session_scope(sessions) as session:
            vectors = vectors_of(matrix, read_vectors(matrix), ids)
            import_matrix(session, vectors, ids, settings.embedding_model)
    return imported


def _line(report: PeopleReport) -> str:
    return f"{report.names} names, {report.people} people, {report.new_people} new"


if __name__ == "__main__":
    main()
