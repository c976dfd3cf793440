"""Each migration carries the code it runs: replaying an old one gives the same result however
the application's code changes since."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.conftest import PROJECT_ROOT

MIGRATIONS = sorted((PROJECT_ROOT / "migrations" / "versions").glob("*.py"))


def project_packages() -> set[str]:
    """The project's top-level packages: the roots of its layer contract."""
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    return set(pyproject["tool"]["importlinter"]["root_packages"])


def imported_modules(source: Path) -> set[str]:
    """Every module the file imports, at its top or inside a function."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
    return modules


def test_no_migration_imports_the_projects_packages() -> None:
    packages = project_packages()
    importing = {
        source.name: sorted(
            module for module in imported_modules(source) if module.split(".")[0] in packages
        )
        for source in MIGRATIONS
    }

    assert MIGRATIONS
    assert {name: modules for name, modules in importing.items() if modules} == {}
