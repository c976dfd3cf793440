import argparse
import gzip
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import COMMANDS, Command, Deferred, build_parser, main
from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import head_revision
from search.database_indexes import has_vector_column
from tests.conftest import SAMPLE_PATH, Database


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert all(command.name in shown for command in COMMANDS)


def resolved(wired: object) -> object:
    """The function a command names: imported now if the command defers it."""
    return wired.resolve() if isinstance(wired, Deferred) else wired


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.name)
def test_every_command_names_a_handler_and_an_argument_builder_that_exist(
    command: Command,
) -> None:
    # A misspelt module or function would otherwise surface only when someone runs the command.
    handler, add_arguments = resolved(command.handler), resolved(command.add_arguments)

    assert callable(handler)
    assert callable(add_arguments)
    inspect.signature(handler).bind(argparse.Namespace(), get_settings())
    inspect.signature(add_arguments).bind(argparse.ArgumentParser())


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.name)
def test_every_command_prints_its_help(
    command: Command, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command.name, "--help"])

    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: paperboy {command.name} ")


def test_a_command_loads_only_its_own_module() -> None:
    # Every command's module together costs seconds to import (scikit-learn for ranking);
    # send-digests, run hourly, has no use for them.
    probe = (
        "import sys; from app.cli.main import build_parser; build_parser('send-digests'); "
        "print(sorted(m for m in ('sklearn', 'app.cli.ranking') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_import_exits_2_when_lines_were_rejected(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "2503.11731"}\n')
    assert main(["import", str(path), "--quiet"], database.settings) == 2
    captured = capsys.readouterr()
    assert f"{path}:1: rejected: missing title" in captured.err
    assert "read 1, new 0, updated 0, unchanged 0, rejected 1" in captured.out


def test_import_refuses_no_index_workers(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["import", str(SAMPLE_PATH), "--index-workers", "0"], database.settings)
    assert exited.value.code == 2
    assert "--index-workers: invalid choice: 0" in capsys.readouterr().err


def test_import_exits_1_on_a_truncated_file_and_names_the_problem(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(SAMPLE_PATH.read_bytes())[:200])
    assert main(["import", str(path)], database.settings) == 1
    assert "cut short or corrupt" in capsys.readouterr().err


def test_import_of_a_missing_file_exits_1(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(tmp_path / "nope.jsonl")], database.settings) == 1
    assert "no such file" in capsys.readouterr().err


def test_commands_refuse_an_unmigrated_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats"], get_settings(data_dir=tmp_path)) == 1
    assert "run `paperboy migrate` first" in capsys.readouterr().err


def test_migrate_says_whether_it_created_upgraded_or_found_the_schema_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = get_settings(data_dir=tmp_path)
    head = head_revision(make_engine(settings))
    assert main(["migrate"], settings) == 0
    assert f"created the schema at revision {head}: sqlite:///" in capsys.readouterr().out
    assert main(["migrate"], settings) == 0
    assert f"the schema is up to date at revision {head}" in capsys.readouterr().out


def test_migrate_says_where_search_runs(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate"], database.settings) == 0
    printed = capsys.readouterr().out
    if database.engine.dialect.name != "postgresql":
        assert "search runs in this process (SQLite keeps no vectors)" in printed
    elif has_vector_column(database.engine):
        assert "search runs in the database (pgvector)" in printed
    else:
        assert "pgvector (the PostgreSQL extension `vector`) is not installed" in printed
