"""The docs state what is true now: history lives in git, not in the pages.

docs/benchmarks.md holds one current row per benchmark and one way to reproduce each; the
changelog holds one short line per change, under a release or under Unreleased.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
CHANGELOG = ROOT / "CHANGELOG.md"
LINKING_PAGES = [ROOT / "README.md", CHANGELOG, *sorted((ROOT / "docs").glob("*.md"))]
MOST_BENCHMARK_LINES = 400
MOST_ROW_CHARACTERS = 300
MOST_BULLET_CHARACTERS = 100
ANCHOR = re.compile(r'<a id="([^"]+)"></a>|\{#([^}]+)\}')
ANCHOR_LINK = re.compile(r"benchmarks\.md#([A-Za-z0-9_-]+)")
RELEASE = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$")


def current_figures_rows() -> list[str]:
    section = BENCHMARKS.read_text(encoding="utf-8").split("## Current figures", 1)[1]
    table = section.split("\n## ", 1)[0]
    return [line for line in table.splitlines() if line.startswith("| ")][1:]


def anchors(text: str) -> set[str]:
    return {first or second for first, second in ANCHOR.findall(text)}


def test_benchmarks_page_stays_short() -> None:
    lines = BENCHMARKS.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MOST_BENCHMARK_LINES


def test_each_current_figure_row_states_one_figure_tersely() -> None:
    rows = current_figures_rows()
    assert rows
    long = [row[:60] for row in rows if len(row) > MOST_ROW_CHARACTERS]
    assert long == []


def test_every_link_into_the_benchmarks_page_finds_its_anchor() -> None:
    known = anchors(BENCHMARKS.read_text(encoding="utf-8"))
    missing = [
        f"{page.relative_to(ROOT)}: #{anchor}"
        for page in LINKING_PAGES
        for anchor in ANCHOR_LINK.findall(page.read_text(encoding="utf-8"))
        if anchor not in known
    ]
    assert missing == []


def test_anchors_are_found_in_either_spelling() -> None:
    assert anchors('| <a id="f-one"></a>row |\n## Heading {#f-two}\n') == {"f-one", "f-two"}


def releases() -> list[tuple[str, str | None]]:
    lines = CHANGELOG.read_text(encoding="utf-8").splitlines()
    return [(match["version"], match["date"]) for line in lines if (match := RELEASE.match(line))]


def test_every_changelog_bullet_is_one_short_line() -> None:
    lines = CHANGELOG.read_text(encoding="utf-8").splitlines()
    bullets = [line for line in lines if line.startswith("- ")]
    assert bullets
    long = [line[:60] for line in bullets if len(line) > MOST_BULLET_CHARACTERS]
    assert long == []


def test_the_changelog_opens_with_unreleased_above_the_latest_release() -> None:
    found = releases()
    assert found[0] == ("Unreleased", None)
    assert found[1][1] is not None, "the latest release carries its date"
    assert all(date is not None for _, date in found[1:])


MOST_SCREENSHOT_BYTES = 120_000


def test_every_screenshot_is_shown_by_a_page_and_stays_small() -> None:
    shots = sorted((ROOT / "docs").glob("*.png"))
    assert shots
    linked = "\n".join(page.read_text(encoding="utf-8") for page in LINKING_PAGES)
    unshown = [shot.name for shot in shots if f"({shot.name})" not in linked]
    assert unshown == [], "benchmarks/screenshots.py makes them; docs/readers.md shows them"
    large = [shot.name for shot in shots if shot.stat().st_size > MOST_SCREENSHOT_BYTES]
    assert large == []
