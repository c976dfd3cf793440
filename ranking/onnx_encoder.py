"""The cached int8 ONNX model, loaded and run without torch or transformers.

:mod:`ranking.onnx_model` builds the model once (with torch); this module only reads it, with
onnxruntime and the ``tokenizers`` library, so a web process that embeds queries stays small
(torch alone is hundreds of MiB of a process's memory). Pooling and the token limit are read
from the sentence-transformers folder, as the build does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from app.core.config import Settings
from app.core.vectors import Matrix, normalise
from search.query import QueryModelMissingError

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Phrases a batch: short texts pad little, and a batch this size keeps every core busy.
PHRASE_BATCH = 64

logger = logging.getLogger(__name__)


def model_path(source: Path, cache_dir: Path) -> Path:
    """Where the quantised model of ``source`` is cached (whether or not it exists yet)."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
    return cache_dir / f"{source.name}-{digest}.int8.onnx"


@dataclass(frozen=True)
class Pooling:
    mode: str
    max_tokens: int


def read_pooling(source: Path) -> Pooling:
    config = json.loads((source / "1_Pooling" / "config.json").read_text())
    mode = "cls" if config.get("pooling_mode_cls_token") else "mean"
    bert_config = source / "sentence_bert_config.json"
    limit = (
        json.loads(bert_config.read_text()).get("max_seq_length", 512)
        if bert_config.exists()
        else 512
    )
    return Pooling(mode, int(limit))


def read_tokenizer(source: Path, max_tokens: int) -> Tokenizer:
    """The folder's fast tokenizer, cut and padded as transformers' AutoTokenizer call is.

    tokenizer.json carries its own settings (all-MiniLM-L6-v2's: cut at 128, pad every text to
    128); sentence-transformers overrides them with its max_seq_length and pads each batch to
    its longest text only, so the same is done here.
    """
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_tokens)
    padding = tokenizer.padding or {}
    tokenizer.enable_padding(
        pad_id=padding.get("pad_id", 0),
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=padding.get("pad_token", "[PAD]"),
    )
    return tokenizer


def token_arrays(tokenizer: Tokenizer, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The model's three inputs for ``texts``, as int64 arrays (batch, tokens)."""
    encodings = tokenizer.encode_batch(list(texts))
    return {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }


class OnnxEncoder:
    """Tokenise, run the int8 model batch by batch (longest first), pool, normalise."""

    def __init__(self, session: Any, tokenizer: Tokenizer, pooling: Pooling) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._pooling = pooling
        self._inputs = {node.name for node in session.get_inputs()}

    @classmethod
    def open(cls, model: Path, source: Path, threads: int) -> OnnxEncoder:
        """The built model at ``model``, tokenised and pooled as the folder ``source`` says."""
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        pooling = read_pooling(source)
        return cls(session, read_tokenizer(source, pooling.max_tokens), pooling)

    def encode(self, texts: Sequence[str], batch_size: int) -> Matrix:
        # Sorting by length makes each batch pad to similar lengths: less wasted compute.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        rows: list[Matrix] = []
        for start in range(0, len(texts), batch_size):
            rows.append(self._batch([texts[i] for i in order[start : start + batch_size]]))
        result = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        result[order] = np.concatenate(rows)
        return result

    def _batch(self, texts: list[str]) -> Matrix:
        tokens = token_arrays(self._tokenizer, texts)
        feed = {name: tokens[name] for name in INPUTS if name in self._inputs}
        hidden = self._session.run(None, feed)[0]
        if self._pooling.mode == "cls":
            return normalise(hidden[:, 0])
        mask = tokens["attention_mask"][..., None].astype(np.float32)
        return normalise((hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9))


class QueryEncoder:
    """An :class:`ranking.embedder.Embedder` for search queries over the cached int8 model."""

    def __init__(self, encoder: OnnxEncoder, model: str) -> None:
        self._encoder = encoder
        self._model = model

    @property
    def model(self) -> str:
        return self._model

    def encode(self, texts: Sequence[str]) -> Matrix:
        return self._encoder.encode(texts, batch_size=max(len(texts), 1))


def query_encoder(settings: Settings, *, build: bool = True) -> QueryEncoder:
    """The int8 query model on ``search_threads`` threads; built first if not cached yet,
    unless ``build`` is off (a web process): then :class:`QueryModelMissingError`.

    Only the build needs torch (imported then, and it stays in this process): the embed step
    and ``paperboy migrate`` build it ahead (:func:`prepare_query_model`).
    """
    from ranking.embedder import resolve_model_path

    source = Path(resolve_model_path(settings.embedding_model))
    built = query_model_path(settings)
    if not build and not built.exists():
        raise QueryModelMissingError(
            f"no int8 query model at {built} yet: `paperboy migrate` or the daily job's embed "
            "step builds it; searches go by words alone until then"
        )
    model = prepare_query_model(settings)
    return QueryEncoder(
        OnnxEncoder.open(model, source, settings.search_threads), settings.embedding_model
    )


def phrase_encoder(settings: Settings) -> Callable[[Sequence[str]], Matrix]:
    """The int8 model for a job's short phrases (topic labels), on every core: it loads without
    torch in well under a second, where the embedding backend's model would import torch and
    load the model for a few thousand phrases.

    When the model is built already, it starts loading now, on a thread of its own:
    onnxruntime lets go of the interpreter while it builds a session, so the model is ready by
    the time the job has counted its phrases. Else it is built on the first call.
    """
    from ranking.embedder import resolve_model_path

    source = Path(resolve_model_path(settings.embedding_model))
    threads = os.cpu_count() or 1
    if not model_path(source, settings.data_dir / "models").exists():
        return _PhraseModel(
            lambda: OnnxEncoder.open(prepare_query_model(settings), source, threads)
        ).encode
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phrase-model")
    loading = pool.submit(OnnxEncoder.open, prepare_query_model(settings), source, threads)
    pool.shutdown(wait=False)
    return _PhraseModel(loading.result).encode


class _PhraseModel:
    """The phrase model, got from ``load`` on the first call that has phrases (waiting for it
    where it loads on a thread)."""

    def __init__(self, load: Callable[[], OnnxEncoder]) -> None:
        self._load = load
        self._model: OnnxEncoder | None = None

    def encode(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self._model is None:
            self._model = self._load()
        return self._model.encode(texts, batch_size=PHRASE_BATCH)


def query_model_path(settings: Settings) -> Path:
    """Where the int8 query model for these settings is cached (built or not)."""
    from ranking.embedder import resolve_model_path

    source = Path(resolve_model_path(settings.embedding_model))
    return model_path(source, settings.data_dir / "models")


def prepare_query_model(settings: Settings) -> Path:
    """The cached int8 query model's path, built now if missing (this loads torch).

    The embed step calls it, so web processes find the model made and never load torch.
    """
    from ranking.embedder import resolve_model_path

    source = Path(resolve_model_path(settings.embedding_model))
    cache_dir = settings.data_dir / "models"
    model = model_path(source, cache_dir)
    if not model.exists():
        logger.warning("no int8 query model at %s: building it once (loads torch)", model)
        from ranking.onnx_model import cached_model_path

        cached_model_path(source, cache_dir)
    return model
