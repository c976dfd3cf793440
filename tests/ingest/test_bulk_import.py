import gzip
import json
from collections.abc import Iterable
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.core.models import Author, IngestRun, Paper, PaperAuthor
from ingest.bulk.chunk_reader import Rejection
from ingest.bulk.importer import import_file
from ingest.records import LIMITS
from tests.conftest import FIXTURES, SAMPLE_PATH, Database

SAMPLE_SIZE = 491
KAGGLE = FIXTURES / "kaggle_snapshot_head_50.jsonl"


def sample_lines(count: int) -> list[dict[str, object]]:
    with gzip.open(SAMPLE_PATH, "rt") as lines:
        return [json.loads(line) for _, line in zip(range(count), lines, strict=False)]


def write_jsonl(path: Path, lines: Iterable[object]) -> Path:
    path.write_text("".join(f"{json.dumps(line)}\n" for line in lines))
    return path


def paper(sessions: sessionmaker[Session], arxiv_id: str) -> Paper:
    with sessions() as session:
        found = session.get_one(Paper, arxiv_id)
        _ = found.authors, found.categories  # load before the session closes
        return found


def count(sessions: sessionmaker[Session], model: type[object]) -> int:
    with sessions() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def test_the_bundled_sample_is_imported_whole(sessions: sessionmaker[Session]) -> None:
    summary = import_file(SAMPLE_PATH, sessions)
    assert (summary.read, summary.counts.new, summary.exit_code) == (SAMPLE_SIZE, SAMPLE_SIZE, 0)
    assert count(sessions, Paper) == SAMPLE_SIZE
    stored = paper(sessions, sample_lines(1)[0]["id"])  # type: ignore[arg-type]
    first = sample_lines(1)[0]
    assert stored.author_names == first["authors"]
    assert [link.position for link in stored.authors] == list(range(len(stored.authors)))
    assert stored.announced_on == date.fromisoformat(first["listing_dates"][0])  # type: ignore[index]


def test_importing_the_same_file_twice_changes_nothing(sessions: sessionmaker[Session]) -> None:
    import_file(SAMPLE_PATH, sessions)
    authors_before = count(sessions, PaperAuthor)
    again = import_file(SAMPLE_PATH, sessions)
    assert (again.counts.new, again.counts.updated, again.counts.unchanged) == (0, 0, SAMPLE_SIZE)
    assert count(sessions, Paper) == SAMPLE_SIZE
    assert count(sessions, PaperAuthor) == authors_before


def test_a_newer_version_updates_the_paper_and_its_author_list(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    original = sample_lines(1)[0]
    import_file(
        write_jsonl(tmp_path / "v1.jsonl", [{**original, "id": f"{original['id']}v1"}]), sessions
    )
    revised = {
        **original,
        "id": f"{original['id']}v2",
        "title": "Revised title",
        "authors": ["New Author", "José Pérez"],
    }
    summary = import_file(write_jsonl(tmp_path / "v2.jsonl", [revised]), sessions)
    assert (summary.counts.new, summary.counts.updated) == (0, 1)
    stored = paper(sessions, str(original["id"]))
    assert (stored.version, stored.title) == (2, "Revised title")
    assert stored.author_names == ["New Author", "José Pérez"]
    assert [link.author_key for link in stored.authors] == ["new-author", "jose-perez"]


def test_an_older_version_does_not_overwrite_a_newer_one(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    original = sample_lines(1)[0]
    import_file(
        write_jsonl(tmp_path / "v3.jsonl", [{**original, "id": f"{original['id']}v3"}]), sessions
    )
    stale = {**original, "id": f"{original['id']}v1", "title": "Old title"}
    summary = import_file(write_jsonl(tmp_path / "v1.jsonl", [stale]), sessions)
    assert summary.counts.unchanged == 1
    assert paper(sessions, str(original["id"])).title == original["title"]


def test_changed_text_updates_a_paper_from_a_format_without_versions(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    original = sample_lines(1)[0]
    import_file(write_jsonl(tmp_path / "a.jsonl", [original]), sessions)
    changed = {**original, "summary": "A corrected abstract."}
    summary = import_file(write_jsonl(tmp_path / "b.jsonl", [changed]), sessions)
    assert summary.counts.updated == 1
    assert paper(sessions, str(original["id"])).abstract == "A corrected abstract."


def test_a_richer_source_fills_in_what_a_listing_lacked_and_keeps_the_announcement(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    kaggle = json.loads(KAGGLE.read_text().splitlines()[0])
    listing = {
        "id": kaggle["id"],
        "title": kaggle["title"],
        "summary": kaggle["abstract"],
        "authors": ["C. Balázs"],
        "categories": ["hep-ph"],
        "comment": None,
        "listing_dates": ["2007-04-03"],
    }
    import_file(write_jsonl(tmp_path / "listing.jsonl", [listing]), sessions)
    import_file(write_jsonl(tmp_path / "kaggle.jsonl", [kaggle]), sessions)
    stored = paper(sessions, kaggle["id"])
    assert (stored.version, stored.primary_category, stored.doi) == (
        2,
        "hep-ph",
        "10.1103/PhysRevD.76.013009",
    )
    assert stored.announced_on == date(2007, 4, 3)
    assert len(stored.authors) == 4


def test_the_kaggle_snapshot_format_imports(sessions: sessionmaker[Session]) -> None:
    summary = import_file(KAGGLE, sessions)
    assert (summary.read, summary.counts.new, summary.exit_code) == (50, 50, 0)
    stored = paper(sessions, "0704.0002")
    assert stored.category_names == ["math.CO", "cs.CG"]
    assert stored.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"


def test_bad_lines_are_reported_by_number_and_the_rest_is_imported(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    good = sample_lines(3)
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(good[0]),
                "{not json",
                json.dumps({**good[1], "id": None}),
                json.dumps({**good[1], "title": None}),
                json.dumps({**good[1], "authors": "Jane Doe"}),
                "",
                json.dumps(good[1]),
                "[1, 2, 3]",
                json.dumps(good[2]),
            ]
        )
        + "\n"
    )
    path.write_bytes(path.read_bytes() + b'{"id": "2503.11731", "title": "\xff\xfe"}\n')
    reported: list[Rejection] = []
    summary = import_file(path, sessions, on_rejection=reported.append)
    assert [(rejection.line, rejection.reason) for rejection in summary.rejections] == [
        (2, summary.rejections[0].reason),
        (3, "missing id"),
        (4, "missing title"),
        (5, "authors must be a list of strings"),
        (8, "expected a JSON object, got list"),
        (10, "not UTF-8 text"),
    ]
    assert summary.rejections[0].reason.startswith("not valid JSON")
    assert reported == summary.rejections
    assert (summary.read, summary.counts.new, summary.exit_code) == (9, 3, 2)
    assert count(sessions, Paper) == 3


def test_control_characters_are_stripped_from_every_imported_field(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    line = {
        **sample_lines(1)[0],
        "title": "A\u0000 title\u0007 with\u001b[31m colour",
        "summary": "An abstract\u0000 with\u007f controls\u0085 and \u009bmore.",
        "authors": ["Ann\u0000 Lee", "\u0008", "Bo\tLi"],
        "comment": "10 pages\u0001",
    }
    summary = import_file(write_jsonl(tmp_path / "controls.jsonl", [line]), sessions)
    assert (summary.counts.new, summary.exit_code) == (1, 0)
    stored = paper(sessions, str(line["id"]))
    assert stored.title == "A title with[31m colour"
    assert stored.abstract == "An abstract with controls and more."
    assert stored.author_names == ["Ann Lee", "Bo Li"]
    assert stored.comment == "10 pages"


def test_an_oversized_line_is_rejected_with_its_reason_and_the_rest_stored(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    first, huge, third = sample_lines(3)
    lines = [
        first,
        {**huge, "summary": "x" * 50_000_000},
        {**third, "authors": [f"Author {index}" for index in range(LIMITS.authors + 1)]},
    ]
    summary = import_file(write_jsonl(tmp_path / "huge.jsonl", lines), sessions)
    assert [(rejection.line, rejection.reason) for rejection in summary.rejections] == [
        (2, f"abstract: 50,000,000 characters, over the limit of {LIMITS.abstract:,}"),
        (3, f"authors: {LIMITS.authors + 1:,} names, over the limit of {LIMITS.authors:,}"),
    ]
    assert (summary.read, summary.counts.new, summary.exit_code) == (3, 1, 2)
    with sessions() as session:
        assert session.scalars(select(Paper.arxiv_id)).all() == [first["id"]]


def test_a_truncated_gzip_stops_loudly_and_keeps_what_was_read(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    truncated = tmp_path / "cut.jsonl.gz"
    data = SAMPLE_PATH.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    summary = import_file(truncated, sessions, chunk_size=50)
    assert summary.exit_code == 1
    assert summary.fatal is not None and "cut short" in summary.fatal
    assert 50 < summary.counts.new < SAMPLE_SIZE
    assert count(sessions, Paper) == summary.counts.new


def test_every_run_is_written_to_the_ingest_log(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    import_file(SAMPLE_PATH, sessions)
    import_file(write_jsonl(tmp_path / "bad.jsonl", [{"id": "x"}]), sessions)
    with sessions() as session:
        runs = session.scalars(select(IngestRun).order_by(IngestRun.id)).all()
        assert [(run.source, run.status, run.new_count, run.rejected_count) for run in runs] == [
            ("import", "ok", SAMPLE_SIZE, 0),
            ("import", "partial", 0, 1),
        ]
        assert runs[1].error == "line 1: not an arXiv identifier: 'x'"
        assert all(run.finished_at is not None for run in runs)


def test_one_author_row_per_normalised_name(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    base = sample_lines(2)
    lines = [
        {**base[0], "authors": ["José Pérez", "Ann Lee"]},
        {**base[1], "authors": ["Jose Perez"]},
    ]
    import_file(write_jsonl(tmp_path / "names.jsonl", lines), sessions)
    with sessions() as session:
        keys = session.scalars(select(Author.key).order_by(Author.key)).all()
        spellings = session.scalars(
            select(PaperAuthor.name).where(PaperAuthor.author_key == "jose-perez")
        ).all()
    assert keys == ["ann-lee", "jose-perez"]
    assert sorted(spellings) == ["Jose Perez", "José Pérez"]


def test_a_name_written_in_tex_is_stored_decoded_as_the_same_author(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    base = sample_lines(2)
    lines = [
        {**base[0], "authors": ["Daniel P\\'erez Herrera"]},
        {**base[1], "authors": ["Daniel Pérez Herrera"]},
    ]
    import_file(write_jsonl(tmp_path / "tex.jsonl", lines), sessions)
    with sessions() as session:
        authors = session.execute(select(Author.key, Author.name)).all()
        spellings = session.scalars(select(PaperAuthor.name)).all()
    assert [tuple(author) for author in authors] == [
        ("daniel-perez-herrera", "Daniel Pérez Herrera")
    ]
    assert spellings == ["Daniel Pérez Herrera"] * 2


def test_an_author_list_glued_into_one_long_name_is_stored_on_every_backend(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    # Real case: 2506.02197 lists "Xiangyu Kongand Xiaoxia Xingand ..." as one 512-char name.
    glued = "and ".join(f"Author Number{index}" for index in range(40))
    line = {**sample_lines(1)[0], "authors": [glued, "Ann Lee"]}
    summary = import_file(write_jsonl(tmp_path / "glued.jsonl", [line]), sessions)
    assert (summary.counts.new, summary.exit_code) == (1, 0)
    stored = paper(sessions, str(line["id"]))
    assert stored.author_names == [glued, "Ann Lee"]
    assert len(stored.authors[0].author_key) <= 200


def test_every_stored_link_points_at_a_stored_paper_and_author(
    sessions: sessionmaker[Session],
) -> None:
    # On SQLite the importer skips per-row foreign-key checks and keeps integrity itself.
    import_file(SAMPLE_PATH, sessions, chunk_size=100)
    with sessions() as session:
        orphans = session.scalar(
            select(func.count())
            .select_from(PaperAuthor)
            .where(
                ~PaperAuthor.author_key.in_(select(Author.key))
                | ~PaperAuthor.arxiv_id.in_(select(Paper.arxiv_id))
            )
        )
        linked = session.scalar(select(func.count()).select_from(PaperAuthor))
    assert orphans == 0
    assert linked is not None and linked > SAMPLE_SIZE


def test_foreign_keys_are_enforced_again_after_an_import(
    sessions: sessionmaker[Session],
) -> None:
    import_file(SAMPLE_PATH, sessions)
    with pytest.raises(IntegrityError), sessions() as session:
        session.add(PaperAuthor(arxiv_id="9999.99999", position=0, author_key="nobody", name="N"))
        session.flush()


def index_names(engine: Engine) -> set[str]:
    tables = ("papers", "paper_authors", "paper_categories")
    found = (index["name"] for table in tables for index in inspect(engine).get_indexes(table))
    return {name for name in found if name}


def test_a_first_import_builds_every_index_of_the_schema(database: Database) -> None:
    # A first import drops the secondary indexes and builds them at the end.
    expected = index_names(database.engine)
    assert {"ix_papers_announced_on", "ix_paper_authors_author_key"} <= expected
    import_file(SAMPLE_PATH, database.sessions, chunk_size=100)
    assert index_names(database.engine) == expected


def test_an_import_rebuilds_an_index_a_killed_first_import_left_out(
    database: Database, tmp_path: Path
) -> None:
    expected = index_names(database.engine)
    import_file(write_jsonl(tmp_path / "one.jsonl", sample_lines(1)), database.sessions)
    with database.engine.begin() as connection:  # as a first import killed mid-way leaves it
        connection.execute(text("DROP INDEX ix_paper_authors_author_key"))
    import_file(SAMPLE_PATH, database.sessions)
    assert index_names(database.engine) == expected


def test_a_first_import_leaves_sqlite_connections_syncing_and_checking_keys(
    database: Database,
) -> None:
    if database.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's per-connection settings")
    import_file(SAMPLE_PATH, database.sessions)
    with database.engine.connect() as connection:
        pragma = connection.exec_driver_sql
        assert pragma("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert pragma("PRAGMA foreign_keys").scalar() == 1


def foreign_key_names(engine: Engine) -> set[str]:
    tables = ("paper_authors", "paper_categories")
    found = (key["name"] for table in tables for key in inspect(engine).get_foreign_keys(table))
    return {name for name in found if name}


def test_a_first_import_leaves_every_foreign_key_of_the_schema(database: Database) -> None:
    # On PostgreSQL a first import drops the link tables' foreign keys and adds them back.
    expected = foreign_key_names(database.engine)
    assert "fk_paper_authors_author_key_authors" in expected
    import_file(SAMPLE_PATH, database.sessions, chunk_size=100)
    assert foreign_key_names(database.engine) == expected


def test_an_import_adds_back_a_foreign_key_a_killed_first_import_left_out(
    database: Database, tmp_path: Path
) -> None:
    if database.engine.dialect.name != "postgresql":
        pytest.skip("only PostgreSQL's foreign keys are dropped during a first import")
    expected = foreign_key_names(database.engine)
    import_file(write_jsonl(tmp_path / "one.jsonl", sample_lines(1)), database.sessions)
    with database.engine.begin() as connection:  # as a first import killed mid-way leaves it
        connection.execute(
            text("ALTER TABLE paper_authors DROP CONSTRAINT fk_paper_authors_author_key_authors")
        )
    import_file(SAMPLE_PATH, database.sessions)
    assert foreign_key_names(database.engine) == expected
    with pytest.raises(IntegrityError), database.sessions() as session:
        session.add(PaperAuthor(arxiv_id="9999.99999", position=0, author_key="nobody", name="N"))
        session.flush()
