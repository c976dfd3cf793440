"""requirements/lock.txt: what every install takes, and `make lock`, which writes it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import PROJECT_ROOT

LOCK = PROJECT_ROOT / "requirements" / "lock.txt"
WRITER = PROJECT_ROOT / ".ci" / "lock.py"


def _locked() -> dict[str, str]:
    lines = (line for line in LOCK.read_text().splitlines() if not line.startswith("#"))
    return {
        canonicalize_name(name): version for name, version in (line.split("==") for line in lines)
    }


def _declared() -> list[Requirement]:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    return [
        Requirement(text)
        for text in project["dependencies"] + project["optional-dependencies"]["dev"]
    ]


def test_the_lock_pins_every_declared_dependency_at_a_version_pyproject_allows() -> None:
    locked = _locked()
    for requirement in _declared():
        version = locked.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not locked: run make lock"
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)


def test_the_lock_holds_torchs_cpu_build_and_no_gpu_package() -> None:
    locked = _locked()
    assert locked["torch"] == "2.13.0"  # no local label: the CPU build and PyPI's both match
    assert not [name for name in locked if name.startswith(("nvidia-", "cuda-", "triton"))]


def _report(*packages: tuple[str, str]) -> str:
    """pip's installation report (``--report``), as much of it as the writer reads."""
    install: list[dict[str, Any]] = [
        {"metadata": {"name": name, "version": version}} for name, version in packages
    ]
    return json.dumps({"version": "1", "install": install})


def _write_lock(report: str, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(WRITER), str(target)], input=report, capture_output=True, text=True
    )


def test_make_lock_pins_each_package_by_its_canonical_name_without_the_project(
    tmp_path: Path,
) -> None:
    target = tmp_path / "lock.txt"
    report = _report(("PyYAML", "6.0.4"), ("paperboy", "0.1.0"), ("torch", "2.13.0+cpu"))
    assert _write_lock(report, target).returncode == 0
    pins = [line for line in target.read_text().splitlines() if not line.startswith("#")]
    assert pins == ["pyyaml==6.0.4", "torch==2.13.0"]


def test_make_lock_refuses_torchs_cuda_build_and_keeps_the_old_lock(tmp_path: Path) -> None:
    target = tmp_path / "lock.txt"
    target.write_text("torch==2.13.0\n")
    done = _write_lock(_report(("torch", "2.13.0"), ("nvidia-cublas", "13.1.0.3")), target)
    assert done.returncode == 1
    assert "TORCH_INDEX=https://download.pytorch.org/whl/cpu" in done.stderr
    assert target.read_text() == "torch==2.13.0\n"
