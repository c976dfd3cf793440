"""The embedding model as per-channel int8 ONNX: built once from the local model, cached.

At first use the sentence-transformers folder's transformer is exported to ONNX with torch,
quantised dynamically (int8 weights, one scale per output channel) with onnxruntime, and
written to ``DATA_DIR/models``; later runs load the cached file. Pooling and the token limit
are read from the model folder, so another sentence-transformers model works the same way.
Imported only when that backend is chosen: it imports torch, transformers and onnxruntime.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from transformers import AutoModel, AutoTokenizer

from app.core.vectors import Matrix, normalise

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


class _HiddenStates(torch.nn.Module):
    """Wraps the transformer so the export has plain positional inputs and one output."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> Any:
        return self.model(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]


def cached_model_path(source: Path, cache_dir: Path) -> Path:
    """Where the quantised model of ``source`` lives; built there if missing."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
    target = cache_dir / f"{source.name}-{digest}.int8.onnx"
    if not target.exists():
        _build(source, target)
    return target


def _build(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    plain = target.with_suffix(".fp32.tmp")
    model = AutoModel.from_pretrained(str(source)).eval()
    sample = AutoTokenizer.from_pretrained(str(source))(
        ["a b", "c"], padding=True, return_tensors="pt"
    )
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "hidden")}
    # The exporter warns about its own deprecations and traced branches; none concern us.
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _HiddenStates(model),
            tuple(sample[name] for name in INPUTS),
            str(plain),
            input_names=list(INPUTS),
            output_names=["hidden"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
    partial = target.with_suffix(".tmp")
    quantize_dynamic(plain, partial, per_channel=True, weight_type=QuantType.QInt8)
    plain.unlink()
    # Renamed into place only when complete, so a crash never leaves a broken cache.
    partial.replace(target)


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


class OnnxEncoder:
    """Tokenise, run the int8 model batch by batch (longest first), pool, normalise."""

    def __init__(self, session: Any, tokenizer: Any, pooling: Pooling) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._pooling = pooling
        self._inputs = {node.name for node in session.get_inputs()}

    @classmethod
    def load(cls, source: Path, cache_dir: Path) -> OnnxEncoder:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        session = onnxruntime.InferenceSession(
            str(cached_model_path(source, cache_dir)), options, providers=["CPUExecutionProvider"]
        )
        return cls(session, AutoTokenizer.from_pretrained(str(source)), read_pooling(source))

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
        tokens = self._tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=self._pooling.max_tokens,
            return_tensors="np",
        )
        feed = {name: tokens[name].astype(np.int64) for name in INPUTS if name in self._inputs}
        hidden = self._session.run(None, feed)[0]
        if self._pooling.mode == "cls":
            return normalise(hidden[:, 0])
        mask = tokens["attention_mask"][..., None].astype(np.float32)
        return normalise((hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9))
