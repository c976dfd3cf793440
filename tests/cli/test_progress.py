"""Progress off a terminal: a plain line at each tenth of the work with the pace so far and
the time left, none when quiet."""

from __future__ import annotations

import re

import pytest

from app.cli.ranking import pace_words, progress_lines

PACE = re.compile(r", [\d,]+\.\d \w+s/s, (about [\w ]+ left|done)$")


def test_a_line_is_printed_as_each_tenth_is_reached(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(2_000, "vector", quiet=False) as advance:
        for _ in range(8):
            advance(250)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("vectors: 250 of 2,000 (12 %), ")
    assert lines[-1].startswith("vectors: 2,000 of 2,000 (100 %), ")
    assert lines[-1].endswith(", done")
    assert all(PACE.search(line) for line in lines)
    assert len(lines) == 8  # every step of an eighth crosses a tenth


def test_steps_within_one_tenth_print_once(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(1_000, "paper", quiet=False) as advance:
        for _ in range(100):
            advance(10)
    lines = capsys.readouterr().err.splitlines()
    tenths = range(100, 1_001, 100)
    assert [line.split(", ")[0] for line in lines] == [
        f"papers: {done:,} of 1,000 ({done // 10} %)" for done in tenths
    ]


def test_the_pace_says_the_rate_so_far_and_the_time_it_leaves() -> None:
    assert pace_words(100, 1_000, 10.0, "paper") == ", 10.0 papers/s, about 1 min 30 s left"
    assert pace_words(10, 2_700_010, 1.0, "paper") == ", 10.0 papers/s, about 75 h 0 min left"
    assert pace_words(5, 10, 1.0, "paper") == ", 5.0 papers/s, about 1 s left"
    assert pace_words(0, 10, 1.0, "paper") == ""


def test_quiet_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_lines(10, "paper", quiet=True) as advance:
        advance(10)
    assert capsys.readouterr().err == ""
