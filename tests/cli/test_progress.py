"""Progress off a terminal: a plain line at each tenth of the work, none when quiet."""

from __future__ import annotations

import pytest

from app.cli.ranking import progress_lines


def test_a_line_is_printed_as_each_tenth_is_reached(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(2_000, "vector", quiet=False) as advance:
        for _ in range(8):
            advance(250)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "vectors: 250 of 2,000 (12 %)"
    assert lines[-1] == "vectors: 2,000 of 2,000 (100 %)"
    assert len(lines) == 8  # every step of an eighth crosses a tenth


def test_steps_within_one_tenth_print_once(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(1_000, "paper", quiet=False) as advance:
        for _ in range(100):
            advance(10)
    lines = capsys.readouterr().err.splitlines()
    tenths = range(100, 1_001, 100)
    assert lines == [f"papers: {done:,} of 1,000 ({done // 10} %)" for done in tenths]


def test_quiet_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(10, "paper", quiet=True) as advance:
        advance(10)
    assert capsys.readouterr().err == ""
