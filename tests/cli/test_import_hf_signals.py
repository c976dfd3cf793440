"""``paperboy import-hf-signals``: what it stores, prints and exits with."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.models import HfDailyPaper
from ingest.hf_daily import parse_daily_page, store_signals
from tests.conftest import FIXTURES, Database

RECORDS = FIXTURES / "hf_daily" / "hf_daily_papers_2025-11-03.jsonl"
RESPONSE = FIXTURES / "hf_daily" / "daily_papers_2025-11-03.json"


def stored(database: Database) -> dict[str, HfDailyPaper]:
    with database.sessions() as session:
        return {row.arxiv_id: row for row in session.scalars(select(HfDailyPaper))}


def test_the_records_are_stored_once_however_often_they_are_imported(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import-hf-signals", str(RECORDS)], database.settings) == 0
    assert main(["import-hf-signals", str(RECORDS)], database.settings) == 0
    first, again = capsys.readouterr().out.split(f"{RECORDS}: read 15, rejected 0\n")[1:]
    assert first == "hf signals: new 15, filled 0, unchanged 0, rejected 0\n"
    assert again == "hf signals: new 0, filled 0, unchanged 15, rejected 0\n"
    seed = stored(database)["2510.25602"]
    assert (seed.daily_date, seed.upvotes, seed.github_stars) == (date(2025, 11, 3), 32, 16)
    assert (seed.submitted_by, seed.organization_name, seed.organization_fullname) == (
        "ChenMnZ",
        None,
        "ByteDance Seed",
    )
    assert stored(database)["2510.27492"].project_page == "https://thinkmorph.github.io/"


def test_bad_lines_are_reported_and_the_good_ones_stored_with_exit_2(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = RECORDS.read_text(encoding="utf-8").splitlines()
    broken = json.dumps({**json.loads(lines[2]), "upvotes": -1})
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join([lines[0], "not json", broken, lines[1]]) + "\n", encoding="utf-8")
    assert main(["import-hf-signals", str(path)], database.settings) == 2
    out = capsys.readouterr().out
    assert f"{path}: read 2, rejected 2\n" in out
    assert f"{path}:3: rejected: upvotes: not a count: '-1'\n" in out
    assert out.endswith("hf signals: new 2, filled 0, unchanged 0, rejected 2\n")
    assert sorted(stored(database)) == ["2510.25602", "2510.27492"]


def test_signals_stored_by_live_ingest_keep_their_counts_and_slug_and_gain_what_they_lack(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = json.loads(RESPONSE.read_bytes())
    items[1]["paper"]["upvotes"] = 50  # counted later in the day than the archive's
    del items[0]["paper"]["projectPage"]
    with database.sessions.begin() as session:
        store_signals(
            session, parse_daily_page(json.dumps(items).encode(), date(2025, 11, 3)).signals
        )
    assert main(["import-hf-signals", str(RECORDS)], database.settings) == 0
    assert "hf signals: new 0, filled 1, unchanged 14, rejected 0" in capsys.readouterr().out
    rows = stored(database)
    seed, think = rows["2510.25602"], rows["2510.27492"]
    assert (seed.upvotes, seed.organization_name) == (50, "ByteDance-Seed")
    assert think.project_page == "https://thinkmorph.github.io/"


def test_a_file_that_cannot_be_read_exits_1_and_the_others_are_stored(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.jsonl.gz"
    assert main(["import-hf-signals", str(missing), str(RECORDS)], database.settings) == 1
    assert f"{missing}: no such file\n" in capsys.readouterr().out
    assert len(stored(database)) == 15
