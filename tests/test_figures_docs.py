"""Measured figures live in one place: the current-figures table of docs/benchmarks.md.

Another page may quote one only as a link to its row (``[278 MiB](benchmarks.md#f-web-rss)``),
and every amount in the link's words must stand in that row's latest figure; a measured
amount (milliseconds, memory, a rate) anywhere else on those pages fails, so a figure cannot
drift from the table once the table moves on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "benchmarks.md"
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p != TABLE)]
ROW = re.compile(r'^\| <a id="(f-[a-z0-9-]+)"></a>[^|]*\| ([^|]*) \|', re.MULTILINE)
LINK = re.compile(r"\[([^\]]+)\]\((?:docs/)?benchmarks\.md#(f-[a-z0-9-]+)\)")
# A number or a range (an en dash or a hyphen), then a unit of time, memory or rate.
AMOUNT = re.compile(
    r"\d[\d,.]*(?:[\u2013-]\d[\d,.]*)? ?"
    r"(?:ms|MiB|MB|GiB|GB|KB|emails/s|papers/s|requests/s|vectors/s)\b"
)
# Amounts that are not measurements: limits a setting sets, and sizes of files Paperboy ships
# or downloads.
NOT_MEASURED = {
    ("README.md", "50 MiB"),  # PAPERBOY_INGEST_MAX_RESPONSE_BYTES
    ("README.md", "750 MB"),  # torch's CPU wheel
    ("ingest.md", "50 MiB"),
    ("security.md", "50 MiB"),
    ("operations.md", "1 MiB"),  # the free space under which a disk counts as full
    ("deploy.md", "1 KB"),  # the size under which an answer is not compressed
    ("ranking.md", "8.7 MB"),  # the taste space's file
    ("ranking.md", "0.8 MB"),
}


def figures() -> dict[str, str]:
    return dict(ROW.findall(TABLE.read_text()))


def test_the_table_has_keyed_rows() -> None:
    keys = ROW.findall(TABLE.read_text())
    assert len(keys) >= 4
    assert len({key for key, _ in keys}) == len(keys)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_quoted_figure_is_the_tables(page: Path) -> None:
    table = figures()
    for words, key in LINK.findall(page.read_text()):
        assert key in table, f"{page.name}: no row {key} in docs/benchmarks.md"
        amounts = AMOUNT.findall(words) or [words]
        for amount in amounts:
            assert amount in table[key], f"{page.name}: {amount!r} is not the figure of {key}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_measured_amount_stands_outside_a_link_to_the_table(page: Path) -> None:
    text = LINK.sub("", page.read_text())
    stray = {a for a in AMOUNT.findall(text) if (page.name, a) not in NOT_MEASURED}
    assert not stray, f"{page.name}: quote these from docs/benchmarks.md: {sorted(stray)}"


def test_the_check_finds_a_stale_figure() -> None:
    quoted = "[3.3 ms](benchmarks.md#f-query-backend)"
    (words, key) = LINK.findall(quoted)[0]
    assert AMOUNT.findall(words) == ["3.3 ms"]
    assert "3.3 ms" not in figures()[key]
    assert AMOUNT.findall("about 650 MB resident") == ["650 MB"]
