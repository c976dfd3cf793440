"""The commands a newcomer copies from the docs agree with what the project pins and parses."""

from __future__ import annotations

import re
import shlex

import pytest

from app.cli.main import build_parser
from tests.conftest import PROJECT_ROOT

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _read(name: str) -> str:
    return (PROJECT_ROOT / name).read_text()


def _pinned_torch() -> str:
    found = re.search(r'"torch==([^"]+)"', _read("pyproject.toml"))
    assert found is not None, "pyproject.toml pins torch"
    return found[1]


def test_the_image_and_make_install_the_pinned_torch_first() -> None:
    version = _pinned_torch()
    assert f"pip install --no-deps --index-url {CPU_INDEX} torch=={version}" in _read("Dockerfile")
    makefile = _read("Makefile")
    assert f"TORCH := torch=={version}" in makefile
    # make takes the CPU index when told (CI's machines reach no index but their own).
    assert "--no-deps $(TORCH) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))" in makefile
    assert f"make setup TORCH_INDEX={CPU_INDEX}" in _read("README.md")


def test_the_image_make_and_the_readme_install_the_locked_versions() -> None:
    assert "LOCK := requirements/lock.txt" in _read("Makefile")
    assert "pip install --progress-bar off -c $(LOCK) -e '.[dev]'" in _read("Makefile")
    assert "pip install -c requirements/lock.txt " in _read("Dockerfile")
    readme = _read("README.md")
    assert ".venv/bin/pip install -c requirements/lock.txt -e '.[dev]'" in readme
    assert "`make lock`" in readme


@pytest.mark.parametrize("doc", ["README.md", "docs/deploy.md"])
def test_the_docs_give_the_cpu_torch_install_as_a_command(doc: str) -> None:
    command = f"pip install torch=={_pinned_torch()} --index-url {CPU_INDEX}"
    assert any(
        line.strip().endswith(command) or command + " " in line for line in _read(doc).splitlines()
    )


def _readme_commands(name: str) -> list[list[str]]:
    """Each ``paperboy NAME ...`` line of the README's shell blocks, continuation lines joined,
    comments and optional ``[...]`` parts left out, as arguments."""
    text = _read("README.md").replace("\\\n", " ")
    lines = (line.split("  #", 1)[0] for line in text.splitlines())
    commands = [re.sub(r"\[[^\]]*\]", "", line) for line in lines if f"paperboy {name} " in line]
    return [
        shlex.split(command.split("paperboy ", 1)[1]) for command in commands if "`" not in command
    ]


def test_the_readme_shows_import_embeddings_with_its_real_arguments() -> None:
    commands = _readme_commands("import-embeddings")
    assert len(commands) >= 2  # in the command list and in its own section
    for arguments in commands:
        parsed = build_parser("import-embeddings").parse_args(arguments)
        assert parsed.matrix.suffix == ".npy" and str(parsed.ids).endswith(".ids.json")


def test_the_debian_walkthrough_sets_real_settings_and_runs_real_commands() -> None:
    from app.core.config import Settings

    deploy = _read("docs/deploy.md")
    settings_file = deploy.split("<<ENV\n", 1)[1].split("\nENV\n", 1)[0]
    names = [line.split("=", 1)[0] for line in settings_file.splitlines()]
    assert "PAPERBOY_DATABASE_URL" in names and "PAPERBOY_SECRET_KEY" in names
    for name in names:
        assert name.removeprefix("PAPERBOY_").lower() in Settings.model_fields, name
    steps = re.findall(r"^as_paperboy (.+?)(?:\s+#.*)?$", deploy, flags=re.MULTILINE)
    assert len(steps) >= 2
    for step in steps:
        arguments = shlex.split(step)
        build_parser(arguments[0]).parse_args(arguments)
