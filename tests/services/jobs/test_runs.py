"""``paperboy jobs run|list`` and the job runner: job-run rows hold the use case's report
(its lines as the summary, its failure with its type as the error), the exit status, and the
alert once per incident, built from its template and received by a real SMTP server."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.cli.main import main
from app.core.config import Settings
from app.core.logs import JsonFormatter
from app.core.models import Incident, JobRun, RunStatus, Trigger
from app.services.digests import DigestsReport
from app.services.editions import SignalsReport
from app.services.jobs.runs import run_job
from app.services.jobs.table import JOBS_BY_NAME, SCHEDULES, Job
from app.services.mail_outbox import send_due
from app.services.reports import Outcome, Report
from app.web.app import create_app
from digest.sending import RunSummary
from tests.conftest import FIXTURES, Database
from tests.digest.conftest import Smtp
from tests.ingest.hf_pages import without_thumbnails
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.servers import free_port
from tests.services.conftest import ADMIN

HF_DAY = "2025-11-03"
EMPTY_API = (FIXTURES / "arxiv_api" / "id_0000.0000_s0_m100_8b51d9633a68.xml").read_bytes()
HF_PAGE = without_thumbnails((FIXTURES / "hf_daily" / f"daily_papers_{HF_DAY}.json").read_bytes())


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
        "search_query": "",
        "id_list": ",".join(sorted(ids)),
        "sortBy": "relevance",
        "sortOrder": "descending",
        "start": "0",
        "max_results": "100",
    }
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
    assert "paperboy jobs run signals" in text_body(alert)
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
    refusals = iter(["450 mailbox busy", None, "450 mailbox busy"])

    def flaky(
        _settings: Settings, _sessions: sessionmaker[Session], now: datetime, _day: date | None
    ) -> Report:
        return DigestsReport(0, RunSummary(now.date(), error=next(refusals)))

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


def test_an_alert_the_mail_server_puts_off_is_kept_shown_and_mailed_once_it_is_back(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    argv = ["jobs", "run", "signals", "--date", HF_DAY]
    smtp.handler.refuse[ADMIN] = "450 mailbox busy"
    assert main(argv, ops_settings) == 1
    assert main(argv, ops_settings) == 1  # the same incident: its alert is queued once
    with TestClient(create_app(ops_settings.model_copy(update={"search_semantic": False}))) as web:
        status, metrics = web.get("/status").text, web.get("/metrics").text
        assert re.search(r"1 alert mail not sent since \d{4}-\d\d-\d\d \d\d:\d\d UTC", status)
        assert "# TYPE paperboy_unsent_mail gauge" in metrics
        assert 'paperboy_unsent_mail{kind="alert"} 1\n' in metrics
        del smtp.handler.refuse[ADMIN]
        later = datetime.now(UTC) + timedelta(minutes=2)
        assert send_due(ops_settings, database.sessions, later).sent == 1
        [alert] = smtp.handler.to(ADMIN)
        assert "signals" in str(alert["Subject"])
        assert "alert mail not sent" not in web.get("/status").text
        assert 'paperboy_unsent_mail{kind="alert"} 0\n' in web.get("/metrics").text


def test_the_mail_job_runs_from_the_command_line_and_reports_what_it_sent(
    ops_settings: Settings, database: Database, smtp: Smtp, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = ops_settings.model_copy(update={"smtp_port": free_port()})
    assert main(["jobs", "run", "signals", "--date", HF_DAY], dead) == 1
    capsys.readouterr()
    # The first retry is due a minute after the try at once: run the job past it.
    later = datetime.now(UTC) + timedelta(minutes=2)
    outcome = run_job(JOBS_BY_NAME["mail"], ops_settings, database.sessions, clock=lambda: later)
    assert (outcome.status, outcome.summary) == ("ok", "mail: 1 sent, 0 to try again, 0 given up")
    assert len(smtp.handler.to(ADMIN)) == 1


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


def broken(
    _settings: Settings, _sessions: sessionmaker[Session], _now: datetime, _day: date | None
) -> Report:
    raise RuntimeError("disk full")


def test_a_job_that_raises_is_a_failed_run_with_the_exceptions_type_and_prints_nothing(
    ops_settings: Settings, database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run_job(Job(SCHEDULES[0], broken), ops_settings, database.sessions, clock=at(9))
    assert (outcome.status, outcome.exit_code) == (RunStatus.FAILED, 1)
    (run,) = runs(database)
    assert (run.status, run.exit_code, run.summary) == ("failed", 1, None)
    assert run.error == "RuntimeError: disk full"
    assert capsys.readouterr().out == ""


def reads_an_unreachable_database(
    _settings: Settings, _sessions: sessionmaker[Session], _now: datetime, _day: date | None
) -> Report:
    # A server that is away: nothing listens on the port, so the connection is refused.
    engine = create_engine(f"postgresql+psycopg://paperboy@127.0.0.1:{free_port()}/paperboy")
    try:
        with engine.connect():
            pass
    finally:
        engine.dispose()
    raise AssertionError("connected to a port where nothing listens")


def test_a_job_that_loses_the_database_is_left_to_the_scheduler_not_recorded_as_a_crash(
    ops_settings: Settings, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    job = Job(SCHEDULES[0], reads_an_unreachable_database)
    with pytest.raises(OperationalError), caplog.at_level(logging.ERROR):
        run_job(job, ops_settings, database.sessions, clock=at(9))
    assert [run.status for run in runs(database)] == [RunStatus.RUNNING]  # caught up later
    assert incidents(database) == []
    assert not [record for record in caplog.records if record.exc_info]  # no traceback


def test_every_outcome_of_a_use_case_is_a_run_status() -> None:
    assert {str(outcome) for outcome in Outcome} <= {str(status) for status in RunStatus}


def test_a_recorded_run_holds_the_use_cases_report_and_nothing_is_read_from_stdout(
    ops_settings: Settings,
    database: Database,
    server: RecordedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    serve_hf(server)
    signals = JOBS_BY_NAME["signals"]
    outcome = run_job(signals, ops_settings, database.sessions, date(2025, 11, 3), clock=at(9))
    report = outcome.report
    assert isinstance(report, SignalsReport) and report.hf is not None
    (hf,) = report.hf.sources
    assert hf.counts["read"] == len(json.loads(HF_PAGE))
    (run,) = runs(database)
    assert (run.status, run.exit_code, run.trigger) == ("warning", 2, Trigger.MANUAL)
    assert run.summary == hf.line()
    assert f"read {hf.counts['read']}" in str(run.summary)
    assert capsys.readouterr().out == ""


def test_the_alert_is_the_job_alert_template_with_the_exact_text_body(
    ops_settings: Settings, database: Database, smtp: Smtp
) -> None:
    run_job(Job(SCHEDULES[0], broken), ops_settings, database.sessions, clock=at(9))
    (alert,) = smtp.handler.to(ADMIN)
    assert alert["Subject"] == "[Paperboy] job daily is failing"
    assert alert["From"] == ops_settings.mail_from
    assert text_body(alert) == (
        "The Paperboy job 'daily' failed at 2026-11-02 09:00 UTC.\n"
        "\n"
        "RuntimeError: disk full\n"
        "\n"
        "You get this once per incident; it closes when the job next succeeds.\n"
        "Status: https://paperboy.test/status\n"
        "Re-run by hand: paperboy jobs run daily\n"
    )
    html = alert.get_body(("html",))
    assert html is not None and "RuntimeError: disk full" in html.get_content()


def text_body(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def test_a_job_run_log_line_can_be_json_with_its_fields() -> None:
    record = logging.LogRecord(
        name="paperboy.jobs",
        level=logging.WARNING,
        pathname=__file__,
        lineno=1,
        msg="job run",
        args=(),
        exc_info=None,
    )
    record.fields = {"job": "daily", "status": "failed", "exit_code": 1}
    line = json.loads(JsonFormatter().format(record))
    assert (line["level"], line["message"], line["job"], line["exit_code"]) == (
        "warning",
        "job run",
        "daily",
        1,
    )
