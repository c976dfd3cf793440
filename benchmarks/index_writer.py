"""Peak memory and time of writing the SQLite search index of a large store.

    .venv/bin/python -m benchmarks.index_writer --data-dir /tmp/scale/sqlite_1000000 \
        [--peer] [--command DAY] [--same-as GENERATION_DIR]

The store is one ``benchmarks/scale.py --stores sqlite --build-only`` built (synthetic papers
with vectors). Each measured path runs in a process of its own, so that its peak resident
memory (``ru_maxrss``) is its own:

- ``writer``: :func:`search.index_writer.write_search_index` into a scratch directory, the
  step the embed step and a web process without a current index run;
- ``--peer``: the index built whole in memory (:func:`search.index.build_index`), which the
  writer did before saving until it wrote a chunk at a time (and which a web process still
  does when it cannot lock the index directory);
- ``--command DAY``: ``paperboy embed --date DAY`` as the daily job runs it, on the store
  itself, after its current generation is set aside, so that the step writes the index.

``--same-as`` compares the written generation with another one of the same store, file by
file (the vectors a chunk at a time): a new writer must write the same index.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WRITER = """
import sys
from pathlib import Path
from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from search.index_writer import write_search_index
settings = get_settings()
with open_engine(settings) as engine, make_session_factory(engine)() as session:
    written = write_search_index(session, Path(sys.argv[1]), settings.embedding_model)
print(written.line())
"""

IN_MEMORY = """
from app.core.config import get_settings
from app.core.db import make_session_factory, open_engine
from search.index import build_index
settings = get_settings()
with open_engine(settings) as engine, make_session_factory(engine)() as session:
    index = build_index(session, settings.embedding_model)
print(f"built in memory: {index.paper_count} papers")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--peer", action="store_true", help="also build it whole in memory")
    parser.add_argument("--command", metavar="DAY", help="also run `paperboy embed --date DAY`")
    parser.add_argument("--same-as", type=Path, help="a generation to compare the written one to")
    args = parser.parse_args()
    environment = {**os.environ, "PAPERBOY_DATA_DIR": str(args.data_dir)}
    results: dict[str, object] = {"load_before": os.getloadavg()[0]}
    scratch = Path(tempfile.mkdtemp(prefix="index-writer-", dir=args.data_dir))
    try:
        results["writer"] = measured([sys.executable, "-c", WRITER, str(scratch)], environment)
        generation = scratch / (scratch / "current").read_text().strip()
        if args.same_as is not None:
            results["same_files"] = same_generation(generation, args.same_as)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.peer:
        results["in_memory"] = measured([sys.executable, "-c", IN_MEMORY], environment)
    if args.command:
        results["command"] = embed_command(args.data_dir, args.command, environment)
    results["load_after"] = os.getloadavg()[0]
    print(json.dumps(results, indent=1))


def measured(command: list[str], environment: dict[str, str]) -> dict[str, object]:
    """Seconds and peak resident memory (MiB) of ``command`` in a process of its own."""
    with tempfile.TemporaryFile("w+") as output:
        started = time.perf_counter()
        child = subprocess.Popen(command, env=environment, stdout=output, stderr=output, text=True)
        # wait4 gives this child's own usage (RUSAGE_CHILDREN would be the largest child's).
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        said = output.read()
    if child.returncode != 0:
        raise SystemExit(f"{command[:3]} failed:\n{said[-3000:]}")
    return {
        "seconds": round(seconds, 1),
        "peak_mib": round(usage.ru_maxrss / 1024),  # KiB on Linux
        "said": said.strip().splitlines()[-1:],
    }


def embed_command(data_dir: Path, day: str, environment: dict[str, str]) -> dict[str, object]:
    """``paperboy embed --date DAY`` with the index to write: the current pointer set aside.
    The generation the command writes becomes current (the one set aside is removed by it)."""
    directory = data_dir / "search-index"
    pointer = directory / "current"
    aside = directory / "current.aside"
    if pointer.exists():
        pointer.rename(aside)
    try:
        paperboy = str(Path(sys.executable).with_name("paperboy"))
        return measured([paperboy, "embed", "--date", day], environment)
    finally:
        if pointer.exists():
            aside.unlink(missing_ok=True)
        elif aside.exists():
            aside.replace(pointer)


def same_generation(written: Path, other: Path) -> dict[str, bool]:
    """File by file: the same text, and the same arrays (compared a slice at a time)."""
    found: dict[str, bool] = {}
    for path in sorted(other.iterdir()):
        mine = written / path.name
        if path.suffix == ".npy":
            found[path.name] = mine.exists() and same_array(np.load(mine, mmap_mode="r"), path)
        elif path.name != "meta.json":
            found[path.name] = mine.exists() and mine.read_bytes() == path.read_bytes()
    meta = [json.loads((g / "meta.json").read_text()) for g in (written, other)]
    found["meta.json (papers, terms, dimensions, fingerprint)"] = all(
        meta[0][key] == meta[1][key] for key in ("papers", "terms", "dimensions", "fingerprint")
    )
    return found


def same_array(mine: np.ndarray, path: Path, rows: int = 50_000) -> bool:
    theirs = np.load(path, mmap_mode="r")
    if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
        return False
    return all(
        np.array_equal(mine[start : start + rows], theirs[start : start + rows])
        for start in range(0, max(len(mine), 1), rows)
    )


if __name__ == "__main__":
    main()
