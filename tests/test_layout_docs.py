"""The README's layout and docs/development.md name only paths that exist in the tree."""

import re

import pytest

from tests.conftest import PROJECT_ROOT

LAYOUT_START = "Layout ("
LAYOUT_END = "`make lint`"
# A backticked name is a path when it holds a slash or a file suffix and nothing a command has.
PATH_NAME = re.compile(r"`([\w.\-]+(?:/[\w.\-]*)+|[\w\-]+\.[a-z]+)`")


def layout_section(readme: str) -> str:
    """The README's layout list: from its opening line to the paragraph after it."""
    start = readme.index(LAYOUT_START)
    return readme[start : readme.index(LAYOUT_END, start)]


def named_paths(section: str) -> list[str]:
    """Every path the section names, once each, in order."""
    return list(dict.fromkeys(PATH_NAME.findall(section)))


README_PATHS = named_paths(layout_section((PROJECT_ROOT / "README.md").read_text()))
# The development guide also names files inside a folder it has just named (`body.txt`), and
# the virtual environment's commands, which `make setup` creates.
DEVELOPMENT_PATHS = [
    path
    for path in named_paths((PROJECT_ROOT / "docs" / "development.md").read_text())
    if "/" in path and not path.startswith(".venv/")
]


def test_the_readme_layout_names_the_top_level_folders() -> None:
    for folder in ("app/core/", "app/services/", "app/web/", "ingest/", "ranking/", "digest/"):
        assert folder in README_PATHS


@pytest.mark.parametrize("path", README_PATHS)
def test_every_path_the_readme_layout_names_exists(path: str) -> None:
    assert (PROJECT_ROOT / path).exists(), f"README's layout names {path}, which is not in the tree"


@pytest.mark.parametrize("path", DEVELOPMENT_PATHS)
def test_every_path_the_development_guide_names_exists(path: str) -> None:
    assert (PROJECT_ROOT / path).exists(), f"docs/development.md names {path}, not in the tree"
