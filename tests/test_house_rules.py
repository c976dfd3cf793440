"""House rules a formatter cannot hold: a constructor given more than three values names them,
and the formatter lays every statement out (migrations, frozen as written, aside)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = ("app", "ingest", "ranking", "digest", "accounts", "search", "benchmarks", "tests")
MOST_POSITIONAL = 3


def python_files() -> Iterator[Path]:
    for folder in CODE:
        yield from sorted((ROOT / folder).rglob("*.py"))


def called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def positional_constructor_calls(source: str) -> Iterator[tuple[int, str]]:
    """Calls of a class (a capitalised name) with more than three values by position."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = called_name(node)
        starred = any(isinstance(argument, ast.Starred) for argument in node.args)
        if name and name[0].isupper() and len(node.args) > MOST_POSITIONAL and not starred:
            yield node.lineno, name


def test_the_check_finds_a_constructor_given_four_values_by_position() -> None:
    assert list(positional_constructor_calls("Span(a, b, c, d)\nSpan(a, b, c, last=d)\n")) == [
        (1, "Span")
    ]


def test_a_constructor_given_more_than_three_values_names_them() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for path in python_files()
        for line, name in positional_constructor_calls(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_formatter_lays_out_every_statement() -> None:
    skipped = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith("# fmt: " + "skip")
    ]
    assert skipped == []


SOURCE = ("app", "ingest", "ranking", "digest", "accounts", "search")
MOST_MODULE_LINES = 400


def test_every_source_module_stays_small() -> None:
    """STYLE.md's size: a module past this splits by what its parts own."""
    long = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for folder in SOURCE
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MOST_MODULE_LINES
    ]
    assert long == []


MOST_FUNCTION_LINES = 40
# The source tree counted 298 modules before features were gathered into fewer, fuller ones;
# a new module is welcome where it names a new thing, but the count stays under this ceiling,
# so that a split needs a merge beside it (docs/architecture.md, "Where a new thing goes").
MOST_MODULES = 298


def source_modules() -> list[Path]:
    return [path for folder in SOURCE for path in sorted((ROOT / folder).rglob("*.py"))]


def long_functions(source: str) -> Iterator[tuple[str, int]]:
    """Each function (or method) longer than the house's limit, with its line count from
    ``def`` to its last line (a route's decorators describe it; they are not its body)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.end_lineno:
            continue
        if (length := node.end_lineno - node.lineno + 1) > MOST_FUNCTION_LINES:
            yield node.name, length


def test_the_check_measures_a_function_from_its_def_to_its_end() -> None:
    body = "".join(f"    x = {number}\n" for number in range(40))
    assert list(long_functions(f"@cache\ndef long():\n{body}")) == [("long", 41)]
    assert list(long_functions(f"@cache\ndef short():\n{body[:-12]}")) == []


def test_no_function_is_longer_than_the_limit() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {name} ({length} lines)"
        for path in source_modules()
        for name, length in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert long == []


def test_the_source_tree_holds_no_more_modules_than_the_ceiling() -> None:
    assert len(source_modules()) <= MOST_MODULES
