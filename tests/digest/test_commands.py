import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.models import Delivery, DeliveryStatus, Subscriber
from digest.ledger import IN_FLIGHT_LEASE
from digest.sending import send_digests
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
    sender = _send_digests_process(mail_settings)
    try:
        assert stopped.wait(60), "the sender never reached the third recipient"
        sender.send_signal(signal.SIGKILL)
        sender.wait(30)
    finally:
        smtp.handler.on_rcpt = None
        release.set()
        _never_left_running(sender)
    assert len(smtp.handler.messages) == 2
    assert main(["send-digests", "--date", DAY.isoformat()], mail_settings) == 0
    assert sorted(m["To"] for m in smtp.handler.messages) == EMAILS


def test_a_sender_killed_once_the_server_accepted_a_digest_sends_it_again_with_its_message_id(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    for email in EMAILS:
        add_subscriber(database.sessions, email, delivery_hour=0)
    victim = EMAILS[2]
    senders: list[subprocess.Popen[bytes]] = []

    def kill_the_sender_once_it_is_stored(recipients: list[str]) -> None:
        # Stored, not yet answered: the sender dies between the acceptance and its commit.
        if recipients == [victim]:
            senders[0].send_signal(signal.SIGKILL)
            senders[0].wait(30)

    smtp.handler.on_accepted = kill_the_sender_once_it_is_stored
    senders.append(_send_digests_process(mail_settings))
    try:
        assert senders[0].wait(60) == -signal.SIGKILL
    finally:
        smtp.handler.on_accepted = None
        _never_left_running(senders[0])
    assert [m["To"] for m in smtp.handler.messages] == EMAILS[:3]
    # Within the lease the delivery may be a live sender's: it is left alone.
    held = send_digests(mail_settings, database.sessions, DAY, utc_now())
    assert held.counts == {"sent": 3, "pending": 0, "still in flight": 1}
    after_the_lease = utc_now() + IN_FLIGHT_LEASE
    summary = send_digests(
        mail_settings, database.sessions, DAY, utc_now(), clock=lambda: after_the_lease
    )
    assert summary.counts == {"in flight from an earlier run": 1, "sent": 1, "pending": 0}
    assert "1 in flight from an earlier run" in summary.line()
    first, again = smtp.handler.to(victim)
    assert again["Message-ID"] == first["Message-ID"]
    assert sorted(m["To"] for m in smtp.handler.messages) == sorted([*EMAILS, victim])
    with database.sessions() as session:
        rows = session.execute(
            select(Subscriber.email, Delivery.status, Delivery.message_id).join(Subscriber)
        ).all()
    assert {status for _, status, _ in rows} == {DeliveryStatus.SENT} and len(rows) == 6
    assert {email: message_id for email, _, message_id in rows}[victim] == first["Message-ID"]


def _send_digests_process(settings: Settings) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "send-digests", "--date", DAY.isoformat()],
        cwd=PROJECT_ROOT,
        env=cli_environment(settings),
    )


def _never_left_running(sender: subprocess.Popen[bytes]) -> None:
    """Whatever failed, the test leaves no sender behind."""
    if sender.poll() is None:
        sender.kill()
        sender.wait(30)


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
