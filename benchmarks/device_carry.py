"""What a GPU benchmark takes to a lent device machine, where only 64 MiB travel and nothing
can be fetched: the packaged model with its weights as int8 per row (a quarter of their
size), turned back into fp32 there, and a corpus cloned from the bundled sample.

    .venv/bin/python -m benchmarks.device_carry pack .gpu/model_q        (here)
    python3 -m benchmarks.device_carry unpack .gpu/model_q /tmp/model    (there)
    python3 -m benchmarks.device_carry corpus 40000 /tmp/corpus.jsonl.gz (there)

The unpacked model computes as the packaged one does (fp32); its vectors are at cosine 0.998
or more from the packaged weights' (``docs/benchmarks.md``, "Embedding backfill").
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from app.core.config import PACKAGED_MODEL_NAME
from ranking.embedder import resolve_model_path

WEIGHTS = "model.safetensors"
PACKED = "model.int8.safetensors"
SCALE = ".__scale"
SAMPLE = (
    Path(__file__).resolve().parent.parent / "app" / "sample" / "arxiv_listings_sample.jsonl.gz"
)


def pack(target: Path) -> None:
    """Each matrix as int8 with one fp32 scale per row; the rest as it is."""
    source = Path(resolve_model_path(PACKAGED_MODEL_NAME))
    packed: dict[str, torch.Tensor] = {}
    for name, tensor in load_file(source / WEIGHTS).items():
        if tensor.is_floating_point() and tensor.dim() == 2:
            scale = tensor.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127.0
            packed[name] = torch.round(tensor / scale).to(torch.int8).contiguous()
            packed[name + SCALE] = scale.float().contiguous()
        else:
            packed[name] = tensor.contiguous()
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(WEIGHTS, "README.md"))
    save_file(packed, str(target / PACKED), metadata={"format": "pt"})


def unpack(source: Path, target: Path) -> None:
    packed = load_file(source / PACKED)
    weights = {
        name: tensor.float() * packed[name + SCALE] if name + SCALE in packed else tensor
        for name, tensor in packed.items()
        if not name.endswith(SCALE)
    }
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(PACKED))
    save_file({k: v.contiguous() for k, v in weights.items()}, str(target / WEIGHTS))


def corpus(papers: int, target: Path) -> None:
    """``papers`` records cycling through the sample's, each with an id of its own."""
    with gzip.open(SAMPLE, "rt") as lines:
        sample = [json.loads(line) for line in lines]
    with gzip.open(target, "wt") as out:
        for n in range(papers):
            arxiv_id = f"26{n // 99_999 + 1:02d}.{n % 99_999 + 1:05d}"
            record = sample[n % len(sample)] | {
                "id": arxiv_id,
                "pdf": f"https://arxiv.org/pdf/{arxiv_id}",
                "abs": f"https://arxiv.org/abs/{arxiv_id}",
            }
            out.write(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    steps.add_parser("pack").add_argument("target", type=Path)
    unpacking = steps.add_parser("unpack")
    unpacking.add_argument("source", type=Path)
    unpacking.add_argument("target", type=Path)
    cloning = steps.add_parser("corpus")
    cloning.add_argument("papers", type=int)
    cloning.add_argument("target", type=Path)
    args = parser.parse_args()
    if args.step == "pack":
        pack(args.target)
    elif args.step == "unpack":
        unpack(args.source, args.target)
    else:
        corpus(args.papers, args.target)


if __name__ == "__main__":
    main()
