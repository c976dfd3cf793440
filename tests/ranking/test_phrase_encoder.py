"""Topic labels' phrases embedded by the int8 query model, as ``paperboy rank`` does where
searches use it: the torch model's vectors, and no torch loaded in the process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.core.config import get_settings
from ranking.embedder import TorchEmbedder
from ranking.onnx_encoder import phrase_encoder
from tests.conftest import PROJECT_ROOT, with_int8_query_model

PHRASES = [
    "graph neural networks",
    "video diffusion",
    "reinforcement learning from human feedback",
    "mixture of experts",
    "3D gaussian splatting",
    "speech recognition",
]
# What rank's label step does, in a process of its own: which model, and is torch loaded?
LABEL_STEP = (
    "import sys; from app.core.config import get_settings;"
    " from app.services.editions import _label_encoder;"
    " encode = _label_encoder(get_settings()); vectors = encode(['video diffusion']);"
    " print(vectors.shape, 'torch' in sys.modules)"
)


@pytest.mark.model
def test_phrases_get_the_torch_models_vectors(int8_query_model: Path, tmp_path: Path) -> None:
    settings = with_int8_query_model(get_settings(), int8_query_model, tmp_path)
    encode = phrase_encoder(settings)
    ours, reference = encode(PHRASES), TorchEmbedder(settings).encode(PHRASES)
    assert ours.shape == reference.shape == (len(PHRASES), 384)
    assert float(np.min(np.sum(ours * reference, axis=1))) >= 0.98
    # Each phrase is still closest to its own torch vector.
    assert (np.argmax(ours @ reference.T, axis=1) == np.arange(len(PHRASES))).all()
    assert encode([]).shape[0] == 0


@pytest.mark.model
def test_the_label_step_embeds_without_loading_torch(
    int8_query_model: Path, tmp_path: Path
) -> None:
    with_int8_query_model(get_settings(), int8_query_model, tmp_path)
    env = {
        **os.environ,
        "PAPERBOY_DATA_DIR": str(tmp_path),
        "PAPERBOY_SEARCH_QUERY_BACKEND": "onnx-int8",  # the default (the tests set torch)
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", LABEL_STEP],
        env=env,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["(1,", "384)", "False"]


def test_without_a_built_model_nothing_is_built_until_there_are_phrases(tmp_path: Path) -> None:
    settings = get_settings().model_copy(update={"data_dir": tmp_path})
    encode = phrase_encoder(settings)
    assert encode([]).shape[0] == 0
    assert not (tmp_path / "models").exists()
