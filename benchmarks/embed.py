"""Embedding throughput: Paperboy's embedders against plain ``SentenceTransformer.encode``.

    .venv/bin/python benchmarks/embed.py [--corpus ...jsonl.gz] [--matrix ...f16.npy] \
        [--count 2000] [--batch-size 64]

On the same real abstracts (every n-th paper of the corpus) in one run: plain encode (the
peer), Paperboy's ``onnx-int8`` backend (the one-off build of the quantised model timed
apart), and plain encode again to show drift. Paperboy's ``torch`` backend is plain encode
with the configured batch size; only its agreement is checked. Prints papers/s, the ratio
to plain encode and the mean cosine agreement with plain encode and with the corpus file.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.core.config import get_settings
from app.core.vectors import Matrix, normalise
from benchmarks.corpus_data import CORPUS, MATRIX, read_corpus, read_vectors, vectors_of
from ranking.embedder import OnnxInt8Embedder, TorchEmbedder, resolve_model_path


def timed(label: str, work: Callable[[], Matrix], peer: float | None) -> tuple[Matrix, float]:
    started = time.perf_counter()
    vectors = work()
    rate = len(vectors) / (time.perf_counter() - started)
    ratio = f"{rate / peer:5.2f} x plain" if peer else "peer"
    print(f"{label:<28} {rate:8.1f} papers/s  {ratio}")
    return vectors, rate


def agreement(label: str, vectors: Matrix, reference: Matrix) -> None:
    cosines = (vectors * reference).sum(axis=1)
    print(f"  cosine with {label:<16} mean {cosines.mean():.4f}  min {cosines.min():.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    papers = read_corpus(args.corpus)
    chosen = papers[:: max(1, len(papers) // args.count)][: args.count]
    texts = [paper.text for paper in chosen]
    stored = vectors_of(args.matrix, read_vectors(args.matrix), [p.arxiv_id for p in chosen])
    print(f"{len(texts)} real abstracts, batch {args.batch_size}, {os.cpu_count()} CPUs")
    run(texts, stored, args.batch_size)


def run(texts: list[str], stored: Matrix, batch_size: int) -> None:
    from sentence_transformers import SentenceTransformer

    plain_model = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    with tempfile.TemporaryDirectory() as scratch:
        settings = get_settings(data_dir=Path(scratch), embedding_batch_size=batch_size)
        onnx = OnnxInt8Embedder(settings.model_copy(update={"embedding_backend": "onnx-int8"}))
        started = time.perf_counter()
        onnx.encode(texts[:2])
        print(f"onnx-int8 one-off build and load: {time.perf_counter() - started:.1f} s")
        torch_embedder = TorchEmbedder(settings)
        torch_embedder.encode(texts[:2])

        def plain() -> Matrix:
            return normalise(plain_model.encode(texts, batch_size=batch_size))

        reference, rate = timed("plain encode", plain, None)
        agreement("the corpus file", reference, stored)
        # The torch backend is plain encode itself (batch size from the settings): checked
        # on a slice for agreement, not timed again.
        agreement("plain encode", torch_embedder.encode(texts[:64]), reference[:64])
        fast, _ = timed("paperboy onnx-int8", lambda: onnx.encode(texts), rate)
        agreement("plain encode", fast, reference)
        agreement("the corpus file", fast, stored)
        timed("plain encode (again)", plain, rate)
    assert np.isfinite(fast).all()


if __name__ == "__main__":
    main()
