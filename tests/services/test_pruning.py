"""The nightly ``prune`` job, with the moment passed in: mails sent or given up longer ago than
their retention go and the rest stay; finished job runs past theirs go, but each job's newest
run and newest success stay, so ``/status`` reads the same before and after."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError
from sqlalchemy import select

from app.core.config import get_settings
from app.core.db import session_scope
from app.core.models import JobRun, MailKind, OutboxMail, RunStatus, Trigger
from app.services.jobs.runs import run_job
from app.services.jobs.table import JOBS_BY_NAME, SCHEDULES
from app.services.pruning import prune_old_rows
from app.services.status import job_status
from tests.conftest import Database

NOW = datetime(2026, 12, 5, 4, 45, tzinfo=UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def mail(ticket: str, created: datetime, **ended: datetime) -> OutboxMail:
    """A mail queued at ``created``; ``ended``: its ``sent_at`` or ``given_up_at``."""
    return OutboxMail(
        kind=MailKind.ALERT if not ended else MailKind.SIGN_IN,
        sender="paperboy@paperboy.test",
        recipient="ada@example.org",
        message=b"Subject: x\r\n\r\nx",
        ticket=ticket,
        created_at=created,
        attempts=1,
        next_attempt_at=None if ended else NOW,
        last_error=None if "sent_at" in ended else "451 try later",
        **ended,
    )


def run(job: str, started: datetime, status: RunStatus = RunStatus.OK) -> JobRun:
    finished = None if status is RunStatus.RUNNING else started + timedelta(minutes=1)
    return JobRun(
        job=job, trigger=Trigger.SCHEDULE, started_at=started, finished_at=finished, status=status
    )


def tickets(database: Database) -> set[str]:
    with database.sessions() as session:
        return set(session.scalars(select(OutboxMail.ticket)))


def runs_kept(database: Database) -> set[tuple[str, datetime, RunStatus]]:
    with database.sessions() as session:
        return {(r.job, r.started_at, r.status) for r in session.scalars(select(JobRun))}


def statuses(database: Database) -> list[tuple[object, ...]]:
    """What ``/status`` says of each job's runs."""
    with database.sessions() as session:
        found = [job_status(session, s, database.settings, NOW) for s in SCHEDULES]
    return [(job.name, job.last_run, job.last_result, job.last_success) for job in found]


def test_old_sent_and_given_up_mails_go_and_recent_or_waiting_ones_stay(
    database: Database,
) -> None:
    with session_scope(database.sessions) as session:
        session.add_all(
            [
                mail("sent-old", days_ago(31), sent_at=days_ago(31)),
                mail("sent-recent", days_ago(29), sent_at=days_ago(29)),
                mail("given-up-old", days_ago(32), given_up_at=days_ago(31)),
                mail("given-up-recent", days_ago(60), given_up_at=days_ago(10)),
                mail("waiting-for-months", days_ago(90)),
            ]
        )
    report = prune_old_rows(database.settings, database.sessions, NOW)
    assert tickets(database) == {"sent-recent", "given-up-recent", "waiting-for-months"}
    assert report.mails == 2


def test_old_runs_go_but_each_jobs_newest_run_and_newest_success_stay(
    database: Database,
) -> None:
    kept = {
        ("mail", days_ago(1), RunStatus.OK),
        ("daily", days_ago(50), RunStatus.OK),  # its newest success, however old
        ("daily", days_ago(45), RunStatus.FAILED),  # its newest run
        ("signals", days_ago(90), RunStatus.OK),  # its only run
        ("digests", days_ago(40), RunStatus.RUNNING),  # not finished
        ("digests", days_ago(2), RunStatus.OK),
    }
    old = {
        ("mail", days_ago(40), RunStatus.OK),
        ("mail", days_ago(35), RunStatus.FAILED),
        ("daily", days_ago(60), RunStatus.OK),
    }
    with session_scope(database.sessions) as session:
        session.add_all([run(*row) for row in sorted(kept | old, key=lambda row: row[1])])
    before = statuses(database)
    report = prune_old_rows(database.settings, database.sessions, NOW)
    assert runs_kept(database) == kept
    assert report.runs == len(old)
    assert statuses(database) == before


def test_the_prune_job_follows_its_retention_settings_and_keeps_its_own_run(
    database: Database,
) -> None:
    settings = database.settings.model_copy(
        update={"outbox_retention_days": 7, "job_run_retention_days": 3}
    )
    with session_scope(database.sessions) as session:
        session.add_all([mail("sent-8-days-ago", days_ago(8), sent_at=days_ago(8))])
        session.add_all([run("mail", days_ago(4)), run("mail", days_ago(2))])
    outcome = run_job(JOBS_BY_NAME["prune"], settings, database.sessions, clock=lambda: NOW)
    assert outcome.summary == "prune: 1 old mails and 1 old job runs deleted"
    assert tickets(database) == set()
    assert {(job, at) for job, at, _ in runs_kept(database)} == {
        ("mail", days_ago(2)),
        ("prune", NOW),
    }
    again = run_job(JOBS_BY_NAME["prune"], settings, database.sessions, clock=lambda: NOW)
    assert again.summary == "prune: 0 old mails and 0 old job runs deleted"


@pytest.mark.parametrize("field", ["outbox_retention_days", "job_run_retention_days"])
def test_a_retention_under_a_day_is_refused_by_name(field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        get_settings(**{field: 0})
