import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.config import Settings
from app.core.models import Delivery, Subscriber
from tests.conftest import PROJECT_ROOT, Database
from tests.digest.conftest import Smtp, cli_environment
from tests.digest.editions import DAY, add_subscriber, store_edition

EMAILS = [f"reader{n}@example.org" for n in range(6)]


def test_a_sender_killed_mid_run_then_run_again_sends_everyone_exactly_one_digest(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    for email in EMAILS:
        add_subscriber(database.sessions, email, delivery_hour=0)
    stopped, release = threading.Event(), threading.Event()

    def stop_at_the_third_recipient(_address: str) -> None:
        if len(smtp.handler.messages) == 2:
            stopped.set()
            release.wait(30)

    smtp.handler.on_rcpt = stop_at_the_third_recipient
    sender = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "send-digests", "--date", DAY.isoformat()],
        cwd=PROJECT_ROOT,
        env=cli_environment(mail_settings),
    )
    try:
        assert stopped.wait(60), "the sender never reached the third recipient"
        sender.send_signal(signal.SIGKILL)
        sender.wait(30)
    finally:
        smtp.handler.on_rcpt = None
        release.set()
    assert len(smtp.handler.messages) == 2
    assert main(["send-digests", "--date", DAY.isoformat()], mail_settings) == 0
    assert sorted(m["To"] for m in smtp.handler.messages) == EMAILS


def test_preview_digest_writes_the_mail_and_sends_nothing(
    database: Database, mail_settings: Settings, smtp: Smtp, tmp_path: Path
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    out = tmp_path / "preview.eml"
    argv = ["preview-digest", "ada@example.org", "--date", DAY.isoformat(), "--out", str(out)]
    assert main(argv, mail_settings) == 0
    assert b"List-Unsubscribe-Post: List-Unsubscribe=One-Click" in out.read_bytes()
    assert smtp.handler.messages == []
    with database.sessions() as session:
        assert session.scalars(select(Delivery)).all() == []


def test_subscribers_show_lists_bounces_and_history_and_resend_sends_again(
    database: Database, mail_settings: Settings, smtp: Smtp, capsys: pytest.CaptureFixture[str]
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org", delivery_hour=0)
    smtp.handler.refuse["ada@example.org"] = "550 5.1.1 No such user"
    assert main(["send-digests", "--date", DAY.isoformat()], mail_settings) == 0
    assert main(["subscribers", "show", "ada@example.org"], mail_settings) == 0
    shown = capsys.readouterr().out
    assert "day 2026-03-02: failed, 1 attempts, recipient refused" in shown
    assert "failures in a row: 1" in shown
    del smtp.handler.refuse["ada@example.org"]
    assert (
        main(["subscribers", "resend", "ada@example.org", "--date", "2026-03-02"], mail_settings)
        == 0
    )
    assert len(smtp.handler.to("ada@example.org")) == 1
    assert main(["subscribers", "list"], mail_settings) == 0
    assert "ada@example.org\tactive\tdaily\t1 sent\t0 failures" in capsys.readouterr().out


def test_subscribers_remove_deletes_the_subscriber_and_their_history(
    database: Database, mail_settings: Settings
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    assert main(["subscribers", "remove", "ada@example.org"], mail_settings) == 0
    assert main(["subscribers", "remove", "ada@example.org"], mail_settings) == 1
    with database.sessions() as session:
        assert session.scalars(select(Subscriber)).all() == []
