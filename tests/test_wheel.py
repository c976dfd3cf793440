"""A wheel built from the repository installs and runs with no checkout on the path.

It is built as ``python -m build`` builds it (an sdist, then the wheel from that sdist) and
installed, not editable, into a fresh virtual environment without its dependencies: those come
from this environment's site-packages through a ``.pth`` file, so torch is not installed twice.
Every command runs from an empty folder, so only the wheel's copy of Paperboy can be imported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import PROJECT_ROOT
from tests.servers import free_port

pytestmark = pytest.mark.install

# Where each of the repository's packages (the layer contract's roots) and folders is found.
WHERE_IT_IMPORTS_FROM = """
import importlib, json, sys
from app.core.bundled import BundledFolder, bundled_folder
found = [importlib.import_module(name).__file__ for name in sys.argv[1:]]
print(json.dumps(found + [str(bundled_folder(folder)) for folder in BundledFolder]))
"""


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding Paperboy's wheel, and an empty folder to work in."""

    venv: Path
    workdir: Path

    def environment(self) -> dict[str, str]:
        outside = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        outside = {key: value for key, value in outside.items() if "DATABASE_URL" not in key}
        return {**outside, "PAPERBOY_DATA_DIR": str(self.workdir / "data")}

    def command(self, name: str, *args: str) -> list[str]:
        return [str(self.venv / "bin" / name), *args]

    def run(self, name: str, *args: str, timeout: float = 60) -> str:
        done = subprocess.run(
            self.command(name, *args),
            cwd=self.workdir,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


# What the sdist is not built from: the environment, caches, and folders other processes
# write into while the suite runs (a byte-code file written and renamed under the sdist's walk
# of the tree fails the build).
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "var",
    "__pycache__",
    "*.pyc*",
    "*_cache",
    ".hypothesis",
    "*.egg-info",
    "build",
    "dist",
    ".coverage*",
    "node_modules",
)


def _build_wheel(out: Path) -> Path:
    """The sdist, then the wheel from it (no build isolation: this environment's setuptools),
    built from a still copy of the checkout's sources."""
    sources = out / "sources"
    shutil.copytree(PROJECT_ROOT, sources, ignore=NOT_SOURCES)
    hook = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
    built = _check_output([sys.executable, "-c", hook, str(out)], cwd=sources)
    sdist = built.splitlines()[-1]  # the hook's answer, after setuptools' own lines
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    _check_output([*pip, "-w", str(out), str(out / sdist)], cwd=out)
    (wheel,) = out.glob("paperboy-*.whl")
    return wheel


def _install(wheel: Path, venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(target), "install", "--no-deps", "-q"]
    _check_output([*pip, str(wheel)], cwd=venv)
    site_packages = _check_output(
        [str(target), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=venv
    ).strip()
    ours = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (Path(site_packages) / "dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")


def _check_output(command: list[str], cwd: Path) -> str:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    venv, workdir = root / "venv", root / "work"
    workdir.mkdir()
    _install(_build_wheel(root), venv)
    return Installed(venv, workdir)


@contextmanager
def serving(installed: Installed) -> Iterator[str]:
    """The production app factory served by uvicorn in that environment; yields its URL."""
    port = free_port()
    factory = ["-m", "uvicorn", "app.web.app:create_app", "--factory", "--port", str(port)]
    log = installed.workdir / "uvicorn.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            installed.command("python", *factory),
            cwd=installed.workdir,
            env=installed.environment(),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        assert _came_up(url, server), f"uvicorn did not start: {log.read_text()}"
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _came_up(url: str, server: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(f"{url}/healthz", timeout=1)
            return True
        except httpx.TransportError:
            time.sleep(0.2)
    return False


def _packages() -> list[str]:
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    packages: list[str] = pyproject["tool"]["importlinter"]["root_packages"]
    return packages


def test_the_installed_packages_and_folders_come_from_the_wheel(installed: Installed) -> None:
    found = json.loads(installed.run("python", "-c", WHERE_IT_IMPORTS_FROM, *_packages()))
    assert all(Path(path).is_relative_to(installed.venv) for path in found), found
    assert all(Path(path).exists() for path in found)


def test_the_installed_wheel_migrates_runs_the_demo_and_serves_the_site(
    installed: Installed,
) -> None:
    assert "created the schema" in installed.run("paperboy", "migrate")
    assert "mail sink: " in installed.run("paperboy", "demo", "--no-serve", timeout=300)
    # The digest went out, rendered from the wheel's mail templates.
    assert list((installed.workdir / "data" / "mail").glob("*.eml"))
    with serving(installed) as url:
        page = httpx.get(f"{url}/", timeout=30)
        stylesheet = httpx.get(f"{url}/static/paperboy.css", timeout=30)
    assert page.status_code == 200 and "</html>" in page.text
    assert 'href="/static/paperboy.css' in page.text and 'href="/papers/' in page.text
    assert stylesheet.status_code == 200
    assert stylesheet.text == (PROJECT_ROOT / "static" / "paperboy.css").read_text()
