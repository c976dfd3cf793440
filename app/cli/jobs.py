"""``paperboy scheduler``, ``paperboy jobs list | run NAME [--date D]`` and
``paperboy incidents list | ack JOB``.

``jobs run`` runs a job now, exactly as the scheduler would (a job-run row, the summary log
line, the alert on a new incident), and exits with the job's status: 0 ok, 2 partial or
stale, 1 failed. A job offline mode turns off is refused (exit 1, nothing recorded).
``incidents ack JOB`` acknowledges that job's open incident (exit 1 if it has none).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.cli.common import command_sessions, parse_day
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.logs import configure_logging, print_or_log_report
from app.core.models import Incident, JobRun
from app.services.jobs.runs import acknowledge, open_incidents, run_job
from app.services.jobs.table import JOBS, JOBS_BY_NAME, next_run


def add_jobs_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="name, schedule, last run, result, next run")
    run = actions.add_parser("run", help="run one job now")
    run.add_argument("name", choices=sorted(JOBS_BY_NAME), help="the job")
    run.add_argument("--date", type=parse_day, help="announcement day (default: the latest)")


def run_jobs(args: argparse.Namespace, settings: Settings) -> int:
    configure_logging(settings)
    if args.action == "run" and JOBS_BY_NAME[args.name].schedule.off(settings):
        print(f"paperboy jobs: {args.name} reads arXiv and is off in offline mode", file=sys.stderr)
        return 1
    with command_sessions(settings, "worker") as sessions:
        if args.action == "list":
            with session_scope(sessions) as session:
                print("\n".join(job_lines(session, settings, utc_now())))
            return 0
        outcome = run_job(JOBS_BY_NAME[args.name], settings, sessions, args.date)
    if outcome.summary:
        print_or_log_report(outcome.summary.splitlines(), job=args.name)
    return outcome.exit_code


def job_lines(session: Session, settings: Settings, now: datetime) -> list[str]:
    lines = [f"{'job':<8} {'last run':<17} {'result':<8} {'next run':<17} schedule"]
    for job in JOBS:
        last = last_run(session, job.name)
        when = f"{last.started_at:%Y-%m-%d %H:%M}" if last else "never"
        result = last.status if last else "-"
        upcoming = next_run(job.schedule, settings, now)
        following = f"{upcoming.astimezone(UTC):%Y-%m-%d %H:%M}" if upcoming else "-"
        if job.schedule.off(settings):
            following = "off (offline)"
        schedule = str(job.schedule.trigger(settings))
        lines.append(f"{job.name:<8} {when:<17} {result:<8} {following:<17} {schedule}")
    lines.append("(times in UTC)")
    return lines


def last_run(session: Session, name: str) -> JobRun | None:
    query = select(JobRun).where(JobRun.job == name).order_by(JobRun.id.desc()).limit(1)
    return session.scalars(query).first()


def add_scheduler_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--owner", help="this scheduler's name in the lease (default: host:pid)")


def run_scheduler(args: argparse.Namespace, settings: Settings) -> int:
    """Become the scheduler process (``app.worker``): the one place the command line starts
    another process role, so its module is imported here, when the command runs."""
    from app.worker.scheduler import serve

    return serve(settings, args.owner)


def add_incidents_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="the open incidents: job, since, failures, acknowledged")
    ack = actions.add_parser("ack", help="acknowledge the open incident of JOB")
    ack.add_argument("job", help="the job whose incident you take on")


def run_incidents(args: argparse.Namespace, settings: Settings) -> int:
    with command_sessions(settings, "worker") as sessions, session_scope(sessions) as session:
        if args.action == "list":
            print("\n".join(incident_lines(open_incidents(session))))
            return 0
        incident = acknowledge(session, args.job, utc_now())
    if incident is None:
        print(f"paperboy incidents: no open incident for {args.job!r}", file=sys.stderr)
        return 1
    print(f"incident of {args.job} acknowledged; it closes when the job next succeeds")
    return 0


def incident_lines(incidents: Sequence[Incident]) -> list[str]:
    if not incidents:
        return ["no open incident"]
    return [
        f"{i.key:<8} since {i.opened_at:%Y-%m-%d %H:%M} UTC, {i.failures} failed run(s), "
        + (f"acknowledged {i.acknowledged_at:%Y-%m-%d %H:%M}" if i.acknowledged_at else "open")
        + f": {i.last_error or 'no error text'}"
        for i in incidents
    ]
