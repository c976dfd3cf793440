"""The import contract ([tool.importlinter] in pyproject.toml): the entry points reach the
domain packages only through app.services. The tree keeps it, and a copy of the tree where a
route and a command import a domain package directly breaks it, naming both imports.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import PROJECT_ROOT

PACKAGES = ("app", "ingest", "ranking", "digest", "accounts", "search")
FORBIDDEN = "Entry points reach the domain packages only through app.services"
# A route and a command taking the domain's own schedule rather than a use case's answer.
INJECTED = "import digest.due_rows\n"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` in ``root`` (its contract, its packages first on the path), uncached."""
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", command, "--no-cache"],
        cwd=root,
        env=os.environ | {"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )


def copy_sources(target: Path) -> None:
    """The packages' Python files and the contract: all that the linter reads."""
    for package in PACKAGES:
        shutil.copytree(PROJECT_ROOT / package, target / package, ignore=not_python)
    shutil.copy(PROJECT_ROOT / "pyproject.toml", target / "pyproject.toml")


def not_python(folder: str, names: list[str]) -> list[str]:
    """What copying a package leaves out: all but its folders and Python files."""
    return [
        name
        for name in names
        if name == "__pycache__" or not (name.endswith(".py") or (Path(folder) / name).is_dir())
    ]


def inject(root: Path, path: Path) -> str:
    """Add a direct import of a domain module to ``path``; the line the linter will name."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines) + INJECTED, encoding="utf-8")
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    return f"{module} -> digest.due_rows (l.{len(lines) + 1})"


def test_a_route_or_command_importing_a_domain_package_breaks_the_contract(
    tmp_path: Path,
) -> None:
    copy_sources(tmp_path)
    route = sorted((tmp_path / "app" / "web" / "routes").glob("[a-z]*.py"))[0]
    command = tmp_path / "app" / "cli" / "digest.py"
    expected = [inject(tmp_path, route), inject(tmp_path, command)]

    linted = lint_imports(tmp_path)

    assert linted.returncode == 1, linted.stdout + linted.stderr
    assert f"{FORBIDDEN} BROKEN" in linted.stdout
    for line in expected:
        assert line in linted.stdout


def test_the_tree_keeps_the_import_contract() -> None:
    linted = lint_imports(PROJECT_ROOT)

    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert f"{FORBIDDEN} KEPT" in linted.stdout
