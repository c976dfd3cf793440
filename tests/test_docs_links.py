"""Every relative link in the docs and the README leads somewhere, and the settings file the
Debian walk-through writes starts production without a warning."""

from __future__ import annotations

import re
import secrets
import shlex
from pathlib import Path

import pytest

from app.core.config import get_settings
from app.core.settings_check import production_problems
from tests.conftest import PROJECT_ROOT

PAGES = sorted([PROJECT_ROOT / "README.md", *(PROJECT_ROOT / "docs").glob("*.md")])
# A Markdown link's target: [words](target) or [words](target "title").
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# A file of the project named in code spans: `docs/x.md`, `benchmarks/y.py`.
NAMED_FILE = re.compile(r"`((?:docs|benchmarks|tests|app|deploy)/[\w./-]+\.(?:md|py|png|sh))`")
# A test named in code spans: `tests/x/test_y.py::test_z`.
NAMED_TEST = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _relative_targets(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    links = [target for target in LINK.findall(text) if "://" not in target]
    links = [target.split("#", 1)[0] for target in links if not target.startswith(("#", "mailto:"))]
    return [target for target in links if target]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    missing = [target for target in _relative_targets(page) if not (page.parent / target).exists()]
    assert missing == [], f"{page.name} links to missing {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_project_file_named_in_the_docs_exists(page: Path) -> None:
    named = NAMED_FILE.findall(page.read_text(encoding="utf-8"))
    missing = [path for path in named if "*" not in path and not (PROJECT_ROOT / path).exists()]
    assert missing == [], f"{page.name} names missing {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_test_named_in_the_docs_exists(page: Path) -> None:
    named = NAMED_TEST.findall(page.read_text(encoding="utf-8"))
    missing = [
        f"{path}::{name}"
        for path, name in named
        if f"def {name}(" not in _text_of(PROJECT_ROOT / path)
    ]
    assert missing == [], f"{page.name} names missing tests {missing}"


def _text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_the_walkthrough_settings_file_starts_production_without_a_warning() -> None:
    deploy = (PROJECT_ROOT / "docs/deploy.md").read_text(encoding="utf-8")
    settings_file = deploy.split("<<ENV\n", 1)[1].split("\nENV\n", 1)[0]
    values: dict[str, str] = {}
    for line in settings_file.splitlines():
        name, value = line.split("=", 1)
        if value.startswith("$("):  # the secret key the shell draws
            value = secrets.token_urlsafe(48)
        values[name.removeprefix("PAPERBOY_").lower()] = shlex.split(value)[0]
    settings = get_settings(**values)
    assert [str(problem) for problem in production_problems(settings)] == []
