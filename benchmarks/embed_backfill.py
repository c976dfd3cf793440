"""``paperboy embed --all`` as a backfill: papers per second as shipped, memory against N, and
the time all of arXiv would take, for each CPU backend.

    .venv/bin/python -m benchmarks.embed_backfill [--papers 2000] [--backend onnx-int8 ...]
        [--device cuda] [--model PATH] [--batch 64]

For each backend, two scratch SQLite stores hold the corpus's first N and 2N papers; the
command runs on each in its own process (imports, model load and every chunk's commit
included), its peak memory sampled. The marginal rate, N papers over the difference of the two
times, is the backfill's pace once started; the full-arXiv time is 2.7 million papers at that
pace plus the start-up. The peer in the same run: plain ``SentenceTransformer.encode`` on the
first N texts in this process, on the same device, batch 64, the model already loaded.
``--device``, ``--model`` and ``--batch`` set ``PAPERBOY_EMBEDDING_DEVICE``, ``_MODEL`` and
``_BATCH_SIZE`` for the runs (``cuda``: the GPU path, its card named in the output).
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import psutil

from app.core.config import PACKAGED_MODEL_NAME
from benchmarks.corpus_data import CORPUS, read_corpus

ARXIV = 2_700_000
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Run:
    papers: int
    seconds: float
    peak_mib: float


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--backend", action="append", choices=["onnx-int8", "torch"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--model", default=PACKAGED_MODEL_NAME)
    parser.add_argument("--batch", type=int)
    args = parser.parse_args()
    chosen = {"PAPERBOY_EMBEDDING_DEVICE": args.device, "PAPERBOY_EMBEDDING_MODEL": args.model}
    if args.batch:
        chosen["PAPERBOY_EMBEDDING_BATCH_SIZE"] = str(args.batch)
    os.environ.update(chosen)
    peer = plain_encode_rate(args.corpus, args.papers, args.model, args.device)
    print(f"peer: plain SentenceTransformer.encode, {peer:.1f} papers/s on {_named(args.device)}")
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data"
        for backend in args.backend or ["onnx-int8", "torch"]:
            _warm(args.corpus, Path(scratch), data, backend)
            small, large = (
                _run(args.corpus, Path(scratch), data, backend, n)
                for n in (args.papers, 2 * args.papers)
            )
            _report(backend, small, large, peer)


def plain_encode_rate(corpus: Path, count: int, name: str, device: str) -> float:
    from sentence_transformers import SentenceTransformer

    from ranking.embedder import resolve_model_path

    texts = [paper.text for paper in read_corpus(corpus)[:count]]
    model = SentenceTransformer(resolve_model_path(name), device=device)
    model.encode(texts[:64], batch_size=64, show_progress_bar=False)  # the device warmed up
    started = time.perf_counter()
    model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    return count / (time.perf_counter() - started)


def _named(device: str) -> str:
    """The device as its maker names it: the GPU's model, or the CPU count."""
    if device.startswith("cuda"):
        import torch

        return f"{torch.cuda.get_device_name(device)} ({device})"
    return f"{os.cpu_count()} CPUs"


def _warm(corpus: Path, scratch: Path, data: Path, backend: str) -> None:
    """Build what a backend caches once (the int8 model) outside the timed runs."""
    _run(corpus, scratch, data, backend, 10)


def _run(corpus: Path, scratch: Path, data: Path, backend: str, count: int) -> Run:
    database = scratch / f"{backend}-{count}.sqlite3"
    lines = scratch / f"first-{count}.jsonl.gz"
    with gzip.open(corpus, "rt") as source, gzip.open(lines, "wt") as target:
        target.writelines(islice(source, count))
    environment = {
        **os.environ,
        "PAPERBOY_DATABASE_URL": f"sqlite:///{database}",
        "PAPERBOY_DATA_DIR": str(data),
        "PAPERBOY_EMBEDDING_BACKEND": backend,
    }
    paperboy = [sys.executable, "-m", "app.cli.main"]
    subprocess.run([*paperboy, "migrate"], env=environment, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*paperboy, "import", str(lines), "--quiet"], env=environment, check=True)
    started = time.perf_counter()
    command = [*paperboy, "embed", "--all", "--quiet"]
    with subprocess.Popen(command, env=environment, cwd=ROOT, stdout=subprocess.DEVNULL) as run:
        peak = _peak_rss(run)
    seconds = time.perf_counter() - started
    assert run.returncode == 0, f"embed failed on {backend}"
    return Run(count, seconds, peak / 2**20)


def _peak_rss(run: subprocess.Popen[bytes]) -> float:
    process, peak = psutil.Process(run.pid), 0.0
    while run.poll() is None:
        try:
            peak = max(peak, float(process.memory_info().rss))
        except psutil.NoSuchProcess:
            break
        time.sleep(0.1)
    return peak


def _report(backend: str, small: Run, large: Run, peer: float) -> None:
    pace = (large.papers - small.papers) / (large.seconds - small.seconds)
    start_up = max(small.seconds - small.papers / pace, 0.0)
    hours = (ARXIV / pace + start_up) / 3600
    runs = "; ".join(
        f"{run.papers:,} papers {run.seconds:.1f} s, peak {run.peak_mib:.0f} MiB"
        for run in (small, large)
    )
    print(f"{backend:<10} {runs}")
    print(
        f"{'':<10} pace {pace:.1f} papers/s ({pace / peer:.2f}x plain encode), start-up "
        f"{start_up:.1f} s; all of arXiv ({ARXIV:,} papers): {hours:.1f} h"
    )


if __name__ == "__main__":
    main()
