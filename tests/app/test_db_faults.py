"""Which database errors are storage faults. The faults themselves, made for real, are in
tests/cli/test_storage_faults.py; here, what must stay apart from them."""

import logging
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import DBAPIError, OperationalError

from app.core.db_faults import (
    StorageFault,
    connection_lost,
    describe_database_error,
    quiet_secondary_driver_errors,
    storage_fault,
    storage_problem,
)

POSTGRES_URL = "postgresql+psycopg://paperboy@db.example.org/paperboy"


def test_a_broken_constraint_is_no_storage_fault_and_is_told_in_the_driver_s_words(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'faults.sqlite3'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    with pytest.raises(DBAPIError) as raised, engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    engine.dispose()
    assert storage_fault(raised.value, url) is None
    assert storage_problem(raised.value, url) is None  # the command shows its traceback
    assert describe_database_error(raised.value, url) == "UNIQUE constraint failed: t.x"


@pytest.mark.parametrize(
    "server_said",
    [
        "FATAL:  could not write init file: No space left on device",
        # PostgreSQL 15 writing its relation cache's init file: no operating-system words.
        "FATAL:  could not write init file",
    ],
)
def test_a_connection_the_server_refused_for_want_of_space_is_a_full_disk(
    server_said: str,
) -> None:
    # As PostgreSQL refuses a connection when it cannot write its cache file: no SQLSTATE.
    refused = psycopg.OperationalError(
        f'connection failed: connection to server at "10.0.0.5", port 5432 failed: {server_said}'
    )
    error = OperationalError("", None, refused)
    assert not connection_lost(error)  # the server is up: waiting would not help
    assert storage_fault(error, POSTGRES_URL) is StorageFault.FULL
    problem = storage_problem(error, POSTGRES_URL)
    assert problem is not None
    assert problem.startswith("the database's disk is full (connection failed: ")
    assert "free space on the disk that holds the server's data" in problem


def test_a_refused_connection_for_another_reason_is_no_storage_fault() -> None:
    refused = psycopg.OperationalError("connection failed: Connection refused")
    error = OperationalError("", None, refused)
    assert storage_fault(error, POSTGRES_URL) is None


def test_psycopg_s_warning_of_a_second_error_is_dropped_and_its_other_warnings_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The warning psycopg logs closing a failed pipeline: a second line after the command's.
    quiet_secondary_driver_errors()
    driver_logger = logging.getLogger("psycopg")
    with caplog.at_level(logging.WARNING, logger="psycopg"):
        driver_logger.warning("error ignored terminating %r: %s", "<Pipeline>", "aborted")
        driver_logger.warning("connection lost")
    assert [record.getMessage() for record in caplog.records] == ["connection lost"]
