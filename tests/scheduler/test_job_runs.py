"""``paperboy jobs run|list``: job-run rows, exit status, and the alert once per incident."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.config import Settings
from app.core.logs import JsonFormatter
from app.core.models import Incident, JobRun
from app.worker.runs import execute, run_job
from app.worker.schedules import SCHEDULES
from app.worker.table import Job
from tests.conftest import FIXTURES, Database
from tests.digest.conftest import Smtp
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.scheduler.conftest import ADMIN

HF_DAY = "2025-11-03"
EMPTY_API = (FIXTURES / "arxiv_api" / "id_0000.0000_s0_m100_8b51d9633a68.xml").read_bytes()
HF_PAGE = (FIXTURES / "hf_daily" / f"daily_papers_{HF_DAY}.json").read_bytes()


def runs(database: Database) -> list[JobRun]:
    with database.sessions() as session:
        return list(session.scalars(select(JobRun).order_by(JobRun.id)))


def incidents(database: Database) -> list[Incident]:
    with database.sessions() as session:
        return list(session.scalars(select(Incident).order_by(Incident.id)))


def serve_hf(server: RecordedServer) -> None:
    """HF's page of the day; the arXiv API knows none of its papers (a real empty answer)."""
    reply = Reply(200, HF_PAGE, {"Content-Type": "application/json"})
    server.add("/api/daily_papers", {"date": HF_DAY}, reply)
    ids = [paper["paper"]["id"] for paper in json.loads(HF_PAGE)]
    query = {
        "search_query": "", "id_list": ",".join(sorted(ids)), "sortBy": "relevance",
        "sortOrder": "descending", "start": "0", "max_results": "100",
    }  # fmt: skip
    server.add("/api/query", query, Reply(200, EMPTY_API, {"Content-Type": "application/atom+xml"}))


def test_a_failing_job_writes_a_failed_run_exits_1_and_mails_the_admin_once(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    argv = ["jobs", "run", "signals", "--date", HF_DAY]
    assert main(argv, ops_settings) == 1
    assert main(argv, ops_settings) == 1
    failed = runs(database)
    assert [(r.job, r.status, r.exit_code, r.run_for) for r in failed] == [
        ("signals", "failed", 1, date(2025, 11, 3)),
    ] * 2
    assert all(r.finished_at is not None and r.finished_at >= r.started_at for r in failed)
    assert "hf" in str(failed[0].error)
    (alert,) = smtp.handler.to(ADMIN)
    assert alert["Subject"] == "[Paperboy] job signals is failing"
    assert "paperboy jobs run signals" in alert.get_content()
    (incident,) = incidents(database)
    assert (incident.failures, incident.closed_at) == (2, None)
    assert incident.alerted_at is not None


def test_a_partial_run_keeps_the_incident_open_without_a_second_mail(
    ops_settings: Settings, database: Database, smtp: Smtp, server: RecordedServer
) -> None:
    argv = ["jobs", "run", "signals", "--date", HF_DAY]
    assert main(argv, ops_settings) == 1
    serve_hf(server)
    assert main(argv, ops_settings) == 2
    last = runs(database)[-1]
    assert (last.status, last.exit_code) == ("warning", 2)
    assert "the API did not return 2510.23095" in str(last.summary)
    (incident,) = incidents(database)
    assert (incident.failures, incident.closed_at) == (2, None)
    assert len(smtp.handler.to(ADMIN)) == 1


def test_a_successful_run_closes_the_incident_and_a_new_failure_is_a_new_incident(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    results = iter([1, 0, 1])

    def flaky(_settings: Settings, _day: date | None) -> int:
        return next(results)

    job = Job(SCHEDULES[0], flaky)
    statuses = [
        run_job(job, ops_settings, database.sessions, clock=clock).status
        for clock in (at(9), at(10), at(11))
    ]
    assert statuses == ["failed", "ok", "failed"]
    first, second = incidents(database)
    assert (first.opened_at, first.closed_at, second.opened_at) == (at(9)(), at(10)(), at(11)())
    assert second.closed_at is None
    assert len(smtp.handler.to(ADMIN)) == 2


def at(hour: int) -> Callable[[], datetime]:
    return lambda: datetime(2026, 11, 2, hour, tzinfo=UTC)


def test_without_an_admin_address_a_failure_is_recorded_and_no_mail_goes_out(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    settings = ops_settings.model_copy(update={"admin_email": ""})
    assert main(["jobs", "run", "signals", "--date", HF_DAY], settings) == 1
    (incident,) = incidents(database)
    assert incident.alerted_at is None
    assert smtp.handler.messages == []


def test_an_alert_the_mail_server_refuses_is_tried_again_on_the_next_failure(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    argv = ["jobs", "run", "signals", "--date", HF_DAY]
    smtp.handler.refuse[ADMIN] = "450 mailbox busy"
    assert main(argv, ops_settings) == 1
    assert incidents(database)[0].alerted_at is None
    del smtp.handler.refuse[ADMIN]
    assert main(argv, ops_settings) == 1
    assert len(smtp.handler.to(ADMIN)) == 1
    assert incidents(database)[0].alerted_at is not None


def test_jobs_list_shows_each_job_with_its_last_result_and_next_run(
    ops_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["jobs", "run", "signals", "--date", HF_DAY], ops_settings)
    capsys.readouterr()
    assert main(["jobs", "list"], ops_settings) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:-1]] == [s.name for s in SCHEDULES]
    signals = next(line for line in lines if line.startswith("signals"))
    assert " failed " in signals
    assert "cron[hour='3,9,15,21', minute='15']" in signals
    daily = next(line for line in lines if line.startswith("daily"))
    assert " never " in daily and "Sun-Thu 20:00 US/Eastern" in daily


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["jobs", "run", "nightly"], "invalid choice: 'nightly'"),
        (["jobs", "run", "daily", "--date", "yesterday"], "not a YYYY-MM-DD date"),
        (["jobs"], "required: ACTION"),
    ],
)
def test_bad_job_commands_are_refused_and_record_nothing(
    ops_settings: Settings,
    database: Database,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv, ops_settings)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert runs(database) == []


def test_a_job_that_raises_is_a_failed_run_with_its_error() -> None:
    def broken(_settings: Settings, _day: date | None) -> int:
        raise RuntimeError("disk full")

    outcome = execute(Job(SCHEDULES[0], broken), Settings(), None)
    assert (outcome.status, outcome.exit_code) == ("failed", 1)
    assert outcome.error == "RuntimeError: disk full"


def test_a_job_run_log_line_can_be_json_with_its_fields() -> None:
    record = logging.LogRecord("paperboy.jobs", logging.WARNING, __file__, 1, "job run", (), None)
    record.fields = {"job": "daily", "status": "failed", "exit_code": 1}
    line = json.loads(JsonFormatter().format(record))
    assert (line["level"], line["message"], line["job"], line["exit_code"]) == (
        "warning", "job run", "daily", 1,
    )  # fmt: skip
