"""Write requirements/lock.txt from pip's installation report (`make lock`).

`make lock` asks pip to resolve pyproject.toml's dependencies and the dev extra as a fresh
install would (``pip install --dry-run --ignore-installed --report -``) and pipes the report
here. Each package is pinned to its exact version without a local label (``torch==2.13.0``,
not ``+cpu``), so the CPU build and PyPI's build both satisfy the pin. A resolution that took
torch's CUDA build is refused: its GPU packages must never reach a lock that CPU servers use.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

PROJECT = "paperboy"
CUDA_PREFIXES = ("nvidia-", "cuda-", "triton")
HEADER = """\
# The dependency set `make setup`, .ci/run and the Dockerfile install (pip install -c), resolved
# for CPython 3.11 on Linux x86-64. Written by `make lock` (.ci/lock.py); do not edit by hand.
"""


def canonical(name: str) -> str:
    """The name as pip compares names (PEP 503): ``PyYAML`` is ``pyyaml``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def public(version: str) -> str:
    """The version without its local label: ``2.13.0+cpu`` is ``2.13.0``."""
    return version.split("+", 1)[0]


class CudaInLockError(ValueError):
    """The resolution took torch's CUDA build (PyPI's on Linux) rather than its CPU build."""


def pins(report: dict[str, Any]) -> list[str]:
    """``name==version`` for every package the report installs but the project, by name."""
    resolved = {
        canonical(item["metadata"]["name"]): public(item["metadata"]["version"])
        for item in report["install"]
    }
    resolved.pop(PROJECT, None)
    cuda = sorted(name for name in resolved if name.startswith(CUDA_PREFIXES))
    if cuda:
        raise CudaInLockError(
            f"torch's CUDA build was resolved ({', '.join(cuda)}): rerun with "
            "TORCH_INDEX=https://download.pytorch.org/whl/cpu"
        )
    return [f"{name}=={version}" for name, version in sorted(resolved.items())]


def main() -> int:
    target = Path(sys.argv[1])
    try:
        lines = pins(json.load(sys.stdin))
    except json.JSONDecodeError:
        print("make lock: pip gave no report (its error is above)", file=sys.stderr)  # noqa: T201
        return 1
    except CudaInLockError as refused:
        print(f"make lock: {refused}", file=sys.stderr)  # noqa: T201
        return 1
    written = target.with_suffix(".tmp")
    written.write_text(HEADER + "".join(f"{line}\n" for line in lines))
    written.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
