"""Settings are checked in words: in production what would harm others refuses to start, the
rest warns; in any environment what cannot work (SMTP settings that contradict each other, a
data directory this user cannot write) is refused; one line each, from every entry point (run
here as real processes)."""

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.config import Settings, get_settings
from app.core.settings_check import Severity, production_problems, setup_problems
from tests.cli.storage_faults import hand_over, open_folder, runner_without_root
from tests.conftest import PROJECT_ROOT

GOOD_SECRET = "kq3Vx9-ZpL2mN8rT4wYb7cHdJ6fGs1aE0uIoPxQzR5v"


def good_production(**overrides: object) -> Settings:
    values: dict[str, object] = {
        "env": "production",
        "secret_key": GOOD_SECRET,
        "contact_email": "ops@papers.example.org",
        "public_base_url": "https://papers.example.org",
        "smtp_host": "smtp.example.org",
        "smtp_port": 587,
        "admin_email": "ops@papers.example.org",
        "mail_from": "Paperboy <digest@papers.example.org>",
        "digest_list_id": "Paperboy digest <digest.papers.example.org>",
    }
    return get_settings(**(values | overrides))


def settings_named(settings: Settings, severity: Severity) -> set[str]:
    return {p.setting for p in production_problems(settings) if p.severity is severity}


def test_development_settings_are_never_refused() -> None:
    assert production_problems(get_settings()) == []


def test_a_complete_production_configuration_has_no_problem() -> None:
    assert production_problems(good_production()) == []


def test_production_defaults_refuse_what_would_harm_others_and_warn_about_the_rest() -> None:
    settings = get_settings(env="production")
    refused = {"PAPERBOY_SECRET_KEY", "PAPERBOY_CONTACT_EMAIL", "PAPERBOY_PUBLIC_BASE_URL"}
    assert settings_named(settings, Severity.REFUSE) == refused
    warned = {
        "PAPERBOY_SMTP_HOST",
        "PAPERBOY_ADMIN_EMAIL",
        "PAPERBOY_DIGEST_LIST_ID",
        "PAPERBOY_MAIL_FROM",
    }
    assert settings_named(settings, Severity.WARN) == warned


@pytest.mark.parametrize(
    "secret",
    [
        "secret",
        "changeme",
        "password",
        "paperboy",
        "development",
        "dev",
        "test",
        "insecure",
        "default",
        "your-secret-key",
        " Changethis ",
        "paperboy-dev-secret",
    ],
)
def test_production_refuses_a_placeholder_secret_and_says_how_to_make_one(secret: str) -> None:
    [problem] = production_problems(good_production(secret_key=secret))
    assert problem.setting == "PAPERBOY_SECRET_KEY"
    assert problem.severity is Severity.REFUSE
    assert "secrets.token_urlsafe(48)" in problem.message


def test_production_refuses_a_secret_shorter_than_32_bytes() -> None:
    [problem] = production_problems(good_production(secret_key=GOOD_SECRET[:31]))
    assert "31 bytes" in problem.message
    assert production_problems(good_production(secret_key=GOOD_SECRET[:32])) == []


def test_production_refuses_a_long_secret_of_few_distinct_characters() -> None:
    [problem] = production_problems(good_production(secret_key="ab" * 30))
    assert problem.setting == "PAPERBOY_SECRET_KEY"


@pytest.mark.parametrize(
    "url", ["http://localhost:8000", "https://127.0.0.1", "papers.example.org", "https://"]
)
def test_production_refuses_a_public_url_readers_cannot_reach(url: str) -> None:
    [problem] = production_problems(good_production(public_base_url=url))
    assert (problem.setting, problem.severity) == ("PAPERBOY_PUBLIC_BASE_URL", Severity.REFUSE)


def test_production_warns_about_a_public_url_without_https() -> None:
    [problem] = production_problems(good_production(public_base_url="http://papers.example.org"))
    assert (problem.setting, problem.severity) == ("PAPERBOY_PUBLIC_BASE_URL", Severity.WARN)


def test_production_refuses_a_contact_address_that_is_no_address() -> None:
    [problem] = production_problems(good_production(contact_email="ops"))
    assert problem.setting == "PAPERBOY_CONTACT_EMAIL"
    assert "arXiv" in problem.message


def test_offline_production_needs_no_contact_address_for_arxiv() -> None:
    assert production_problems(good_production(contact_email="", offline=True)) == []


def clean_environment(tmp_path: Path, **settings: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOY_")}
    # Two defaults a process test would otherwise wait on: `migrate` building the int8 query
    # model in its data folder, and the scheduler waiting for a server that never comes.
    quick = {"PAPERBOY_SEARCH_QUERY_BACKEND": "torch", "PAPERBOY_SCHEDULER_START_WAIT_SECONDS": "0"}
    return kept | {"PAPERBOY_DATA_DIR": str(tmp_path)} | quick | settings


def run_process(args: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_cli_in_production_with_default_settings_prints_one_line_per_problem(
    tmp_path: Path,
) -> None:
    environment = clean_environment(tmp_path, PAPERBOY_ENV="production")
    done = run_process(["-m", "app.cli.main", "stats"], environment)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    refusals = [line for line in lines if line.startswith("paperboy stats: refused: ")]
    warnings = [line for line in lines if line.startswith("paperboy stats: warning: ")]
    assert len(refusals) == 3
    assert len(warnings) == 4
    assert any("PAPERBOY_SECRET_KEY" in line and "token_urlsafe" in line for line in refusals)


def test_the_cli_names_a_setting_of_the_wrong_kind_in_one_line(tmp_path: Path) -> None:
    environment = clean_environment(tmp_path, PAPERBOY_SMTP_SECURITY="ssl3")
    done = run_process(["-m", "app.cli.main", "stats"], environment)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("paperboy stats: refused: PAPERBOY_SMTP_SECURITY: ")


def test_the_scheduler_refuses_bad_production_settings_in_words(tmp_path: Path) -> None:
    environment = clean_environment(tmp_path, PAPERBOY_ENV="production")
    done = run_process(["-m", "app.worker.scheduler"], environment)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "paperboy scheduler: refused: PAPERBOY_CONTACT_EMAIL" in done.stderr


def test_warnings_alone_let_the_cli_run(tmp_path: Path) -> None:
    good = {
        "PAPERBOY_ENV": "production",
        "PAPERBOY_SECRET_KEY": GOOD_SECRET,
        "PAPERBOY_CONTACT_EMAIL": "ops@papers.example.org",
        "PAPERBOY_PUBLIC_BASE_URL": "https://papers.example.org",
    }
    done = run_process(["-m", "app.cli.main", "migrate"], clean_environment(tmp_path, **good))
    assert done.returncode == 0, done.stderr
    assert "paperboy migrate: warning: PAPERBOY_ADMIN_EMAIL" in done.stderr
    assert "created the schema at revision" in done.stdout


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (
            {"PAPERBOY_SMTP_HOST": "smtp://relay.example.org:587"},
            "PAPERBOY_SMTP_HOST: 'smtp://relay.example.org:587' is not a host name: write the "
            "relay's name alone (smtp.example.org), its port in PAPERBOY_SMTP_PORT and its login "
            "in PAPERBOY_SMTP_USERNAME",
        ),
        (
            {"PAPERBOY_SMTP_PORT": "70000"},
            "PAPERBOY_SMTP_PORT: 70000 is no TCP port: set the relay's (587, 465 or 25)",
        ),
        (
            {"PAPERBOY_SMTP_SECURITY": "tls", "PAPERBOY_SMTP_PORT": "587"},
            "PAPERBOY_SMTP_SECURITY: tls on port 587, which speaks the other way: every send would "
            "hang; set PAPERBOY_SMTP_SECURITY=starttls, or PAPERBOY_SMTP_PORT=465",
        ),
        (
            {"PAPERBOY_SMTP_SECURITY": "starttls", "PAPERBOY_SMTP_PORT": "465"},
            "PAPERBOY_SMTP_SECURITY: starttls on port 465, which speaks the other way: every send "
            "would hang; set PAPERBOY_SMTP_SECURITY=tls, or PAPERBOY_SMTP_PORT=587",
        ),
        (
            {"PAPERBOY_SMTP_USERNAME": "digest"},
            "PAPERBOY_SMTP_USERNAME: is set without PAPERBOY_SMTP_PASSWORD: set both for a relay "
            "that asks for a login, or neither",
        ),
    ],
    ids=["url-as-host", "port", "tls-on-587", "starttls-on-465", "login-without-password"],
)
def test_smtp_settings_that_cannot_work_are_refused_in_one_line_without_sending(
    tmp_path: Path, settings: dict[str, str], said: str
) -> None:
    done = run_process(
        ["-m", "app.cli.main", "send-digests"], clean_environment(tmp_path, **settings)
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [f"paperboy send-digests: refused: {said}"]


def test_smtp_settings_that_fit_together_are_not_refused() -> None:
    for values in (
        {"smtp_security": "starttls", "smtp_port": 587, "smtp_host": "smtp.example.org"},
        {"smtp_security": "tls", "smtp_port": 465, "smtp_username": "u", "smtp_password": "p"},
        {"smtp_host": "::1"},
        {"smtp_host": "192.0.2.7", "smtp_port": 2525, "smtp_security": "tls"},
    ):
        assert setup_problems(get_settings(**values)) == []


def test_a_data_directory_the_user_cannot_write_is_refused_in_one_line() -> None:
    user, as_user = runner_without_root()
    with open_folder() as folder:
        data_dir, database = folder / "data", folder / "database"
        data_dir.mkdir()
        data_dir.chmod(0o555)
        database.mkdir()
        hand_over(database, user)
        environment = clean_environment(
            data_dir, PAPERBOY_DATABASE_URL=f"sqlite:///{database / 'paperboy.sqlite3'}"
        )
        done = subprocess.run(
            [*as_user, sys.executable, "-m", "app.cli.main", "stats"],
            cwd=PROJECT_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    runner = user or pwd.getpwuid(os.geteuid()).pw_name
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"paperboy stats: refused: PAPERBOY_DATA_DIR: {data_dir} is not writable by the user "
        f"{runner!r}: give it that user (chown -R {runner} {data_dir}) or set "
        "PAPERBOY_DATA_DIR to a folder it may write"
    ]


PRIMARY = "postgresql+psycopg://paperboy@db/paperboy"


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (
            {"database_replica_urls": "postgresql+psycopg://paperboy@standby/paperboy"},
            "read replicas need a PostgreSQL primary in PAPERBOY_DATABASE_URL",
        ),
        (
            {"database_url": PRIMARY, "database_replica_urls": "sqlite:////tmp/copy.sqlite3"},
            "a read replica is a PostgreSQL streaming standby",
        ),
        (
            {"database_url": PRIMARY, "database_replica_urls": "postgres://standby/paperboy"},
            "postgres:// names no driver Paperboy has",
        ),
    ],
)
def test_read_replicas_that_cannot_work_are_refused(values: dict[str, str], said: str) -> None:
    [problem] = setup_problems(get_settings(**values))
    assert problem.severity is Severity.REFUSE
    assert problem.setting == "PAPERBOY_DATABASE_REPLICA_URLS" and said in problem.message


def test_standbys_of_a_postgresql_primary_are_taken_from_a_comma_separated_list() -> None:
    urls = "postgresql+psycopg://paperboy@a/paperboy, postgresql+psycopg://paperboy@b/paperboy"
    settings = get_settings(database_url=PRIMARY, database_replica_urls=urls)
    assert setup_problems(settings) == []
    assert [url.split("@")[1] for url in settings.database_replica_urls] == [
        "a/paperboy",
        "b/paperboy",
    ]
