"""The embedding model as per-channel int8 ONNX: built once from the local model, cached.

At first use the sentence-transformers folder's transformer is exported to ONNX with torch,
quantised dynamically (int8 weights, one scale per output channel) with onnxruntime, and
written to ``DATA_DIR/models``; later runs load the cached file. Pooling and the token limit
are read from the model folder, so another sentence-transformers model works the same way.
Imported only to build: it imports torch and transformers. Loading and running the cached
model is :mod:`ranking.onnx_encoder`'s, which imports neither.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from transformers import AutoModel, AutoTokenizer

from ranking.onnx_encoder import INPUTS, OnnxEncoder, model_path

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
    target = model_path(source, cache_dir)
    if not target.exists():
        _build(source, target)
    return target


def _build(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # Named per process: several web processes of one DATA_DIR may build at once.
    plain = target.with_suffix(f".{os.getpid()}.fp32.tmp")
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
    partial = target.with_suffix(f".{os.getpid()}.tmp")
    quantize_dynamic(plain, partial, per_channel=True, weight_type=QuantType.QInt8)
    plain.unlink()
    # Renamed into place only when complete, so a crash never leaves a broken cache.
    partial.replace(target)


def load_encoder(source: Path, cache_dir: Path) -> OnnxEncoder:
    """The cached model of ``source`` (built first if missing) on as many threads as torch's."""
    return OnnxEncoder.open(cached_model_path(source, cache_dir), source, torch.get_num_threads())
