"""The systemd units of docs/deploy.md: a web and a scheduler unit that systemd accepts line by
line, that restart their process, and whose commands are Paperboy's."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

UNIT = re.compile(r"`/etc/systemd/system/([\w.@-]+)`:\n\n```ini\n(.*?)```", re.DOTALL)
INSTALLED = "/opt/paperboy/.venv/bin/"


def documented_units() -> dict[str, str]:
    text = (PROJECT_ROOT / "docs" / "deploy.md").read_text()
    return dict(UNIT.findall(text))


def parsed(body: str) -> configparser.ConfigParser:
    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys keep case
    unit.read_string(body)
    return unit


def test_the_deploy_guide_gives_a_web_and_a_scheduler_unit_that_come_back() -> None:
    units = documented_units()
    assert set(units) == {"paperboy-web.service", "paperboy-scheduler.service"}
    for name, body in units.items():
        unit = parsed(body)
        assert unit["Service"]["Restart"] in {"always", "on-failure"}, name
        assert int(unit["Service"]["RestartSec"]) > 0, name
        assert {"StartLimitIntervalSec", "StartLimitBurst"} <= set(unit["Unit"]), name
        assert unit["Service"]["User"] == "paperboy", name


def test_the_units_run_paperboy_web_and_the_scheduler_command() -> None:
    units = {name: parsed(body) for name, body in documented_units().items()}
    web = units["paperboy-web.service"]["Service"]["ExecStart"]
    # The parent checks the settings once: uvicorn alone respawns refusing workers for ever.
    assert web.startswith(f"{INSTALLED}paperboy web ") and "--workers" in web
    assert "--proxy-headers" in web and "--forwarded-allow-ips" in web
    scheduler = units["paperboy-scheduler.service"]["Service"]
    assert scheduler["ExecStart"] == f"{INSTALLED}paperboy scheduler"
    assert scheduler["KillSignal"] == "SIGTERM"  # the scheduler's clean stop


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_accepts_every_line_of_the_units(tmp_path: Path) -> None:
    # The programs of this environment stand in for /opt/paperboy's: systemd checks they exist.
    programs = f"{Path(sys.executable).parent}/"
    paths = []
    for name, body in documented_units().items():
        path = tmp_path / name
        path.write_text(body.replace(INSTALLED, programs))
        paths.append(path)
    verified = subprocess.run(
        ["systemd-analyze", "verify", *map(str, paths)], capture_output=True, text=True, check=False
    )
    complaints = [line for line in verified.stderr.splitlines() if str(tmp_path) in line]
    assert complaints == []
