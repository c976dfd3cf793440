"""Comments and docstrings say why, not how fast: a measured figure goes stale in code.

Timings, speed-ups, rates and measured sizes belong in docs/benchmarks.md, where each has a
date and a machine. A comment may still name a constant it explains (a page size, a cache, a
protocol's limit), listed in ``CONSTANTS``; quoted text (an example of output) and a
confidence interval's level are not measurements.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ("app", "ingest", "ranking", "digest", "accounts", "search")
NUMBER = r"(?<![\w.:/])\d[\d,]*(?:\.\d+)?(?:\s?(?:-|\u2013|to)\s?\d[\d,]*(?:\.\d+)?)?"
FIGURE = re.compile(
    NUMBER
    + r"(?:"
    + r"\s?(?:ms|\u00b5s|\u03bcs|ns)\b"  # durations
    + r"|\s(?:s|secs?|seconds?|min|minutes?|h|hours?)\b"
    + r"|\s?(?:\u00d7|x\b)(?!\s*\d)"  # speed ratios, not a matrix's shape
    + r"|\s?(?:requests|papers|emails|vectors|queries|rows|searches)/s\b"  # rates
    + r"|\s?[KMGT]i?B\b"  # sizes
    + r"|\s?%(?!\s*(?:paired\s+)?(?:bootstrap|interval|confidence))"  # shares, not a level
    + r")"
)
QUOTED = re.compile(r'"[^"\n]*"|``[^`\n]*``')
# Constants a comment explains, by file: settings and limits, not measurements.
CONSTANTS = {
    ("app/core/db.py", "16 KB"),  # SQLITE_PAGE_SIZE
    ("app/core/db.py", "4 KB"),  # SQLite's default page size
    ("app/core/db.py", "2 MB"),  # SQLite's default page cache
    ("app/core/db.py", "64 MB"),  # SQLITE_CACHE_SIZE
    ("app/core/db_faults.py", "32 KiB"),  # SQLite's shared-memory file
    ("app/core/explanations.py", "0%"),  # the chance's words never say these
    ("app/core/explanations.py", "100%"),
    ("app/core/replicas.py", "2 s"),  # how often the primary's position is checked
    ("app/services/taste_training.py", "5 MB"),  # 20,000 terms by 128 dimensions in float16
    ("app/web/routes/site.py", "50 MB"),  # the sitemaps.org protocol's limit
    ("digest/ledger.py", "30 s"),  # the mailer's TIMEOUT_SECONDS
    ("ingest/bulk/importer.py", "256 MB"),  # the bulk loader's page cache
    ("ranking/people.py", "2 %"),  # the goal the split was chosen for
    ("search/word_index.py", "10%"),  # RARE_WORD_RARITY's share of papers
}


def figures_in(text: str) -> list[str]:
    return [match.group(0) for match in FIGURE.finditer(QUOTED.sub("", text))]


def comments_and_docstrings(source: str) -> Iterator[tuple[int, str]]:
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, documented) and (docstring := ast.get_docstring(node, clean=False)):
            yield node.body[0].lineno, docstring


def figures_in_source() -> list[str]:
    found = []
    for folder in SOURCE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            for line, text in comments_and_docstrings(path.read_text(encoding="utf-8")):
                found += [
                    f"{name}:{line} {figure!r}"
                    for figure in figures_in(text)
                    if (name, figure) not in CONSTANTS
                ]
    return found


def test_the_check_flags_a_timing_and_not_a_plain_count() -> None:
    assert figures_in("# takes about 12 ms a query") == ["12 ms"]
    assert figures_in("# one row per paper") == []


def test_the_check_flags_speed_ratios_rates_and_sizes() -> None:
    assert figures_in("# 1.4\u00d7 the peer, 3x faster than before") == ["1.4\u00d7", "3x"]
    assert figures_in("# 2.5 s at 900 papers/s, peak 60 MB, 40 µs a paper") == [
        "2.5 s",
        "900 papers/s",
        "60 MB",
        "40 µs",
    ]
    assert figures_in("# a PostgreSQL restart takes 10 to 25 s") == ["10 to 25 s"]


def test_the_check_leaves_shapes_clocks_quotes_and_interval_levels_alone() -> None:
    assert figures_in("# for a 384 x 384 matrix") == []
    assert figures_in("# arXiv announces at 20:00 US/Eastern") == []
    assert figures_in('Prints ", 35.2 papers/s, about 4 min 16 s left": the pace') == []
    assert figures_in("# the mean with a 95% bootstrap interval, [95% interval]") == []
    assert figures_in("# removes the 422s nothing refers to") == []


def test_comments_and_docstrings_state_no_measured_figures() -> None:
    assert figures_in_source() == []
