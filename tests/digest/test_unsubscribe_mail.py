"""The mailto: alternative of List-Unsubscribe, end to end: a digest goes out through a real
SMTP server, the reply a mail client would send to its mailto: link is piped into
`paperboy unsubscribe-mail` as a mail server's pipe alias would, and the subscriber is gone."""

import subprocess
import sys
from email.message import EmailMessage
from urllib.parse import parse_qs, urlsplit

from app.cli.main import main
from app.core.config import Settings
from app.core.models import Subscriber
from tests.conftest import PROJECT_ROOT, Database
from tests.digest.conftest import Smtp, cli_environment
from tests.digest.editions import DAY, add_subscriber, store_edition

READER = "reader@example.org"


def reply_to_mailto(digest: EmailMessage, subject_prefix: str = "") -> bytes:
    header = str(digest["List-Unsubscribe"])
    mailto = next(part.strip("<> ") for part in header.split(",") if "mailto:" in part)
    address = urlsplit(mailto)
    reply = EmailMessage()
    reply["From"], reply["To"] = READER, address.path
    reply["Subject"] = subject_prefix + parse_qs(address.query)["subject"][0]
    return reply.as_bytes()


def status(database: Database, subscriber_id: int) -> str:
    with database.sessions() as session:
        return session.get_one(Subscriber, subscriber_id).status


def pipe_in(settings: Settings, mail: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "unsubscribe-mail"],
        input=mail,
        cwd=PROJECT_ROOT,
        env=cli_environment(settings),
        capture_output=True,
        timeout=60,
    )


def sent_digest(database: Database, settings: Settings, smtp: Smtp) -> tuple[int, EmailMessage]:
    store_edition(database.sessions)
    subscriber_id = add_subscriber(database.sessions, READER, delivery_hour=0)
    assert main(["send-digests", "--date", DAY.isoformat()], settings) == 0
    return subscriber_id, smtp.handler.to(READER)[0]


def test_a_reply_to_the_mailto_link_unsubscribes(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    subscriber_id, digest = sent_digest(database, mail_settings, smtp)
    done = pipe_in(mail_settings, reply_to_mailto(digest, subject_prefix="Re: "))
    assert (done.returncode, done.stdout.strip()) == (0, b"unsubscribed"), done.stderr
    assert status(database, subscriber_id) == "unsubscribed"


def test_a_tampered_or_missing_token_is_refused_and_changes_nothing(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    subscriber_id, digest = sent_digest(database, mail_settings, smtp)
    tampered = reply_to_mailto(digest).replace(b"unsubscribe-", b"unsubscribe-x", 1)
    refused = pipe_in(mail_settings, tampered)
    assert refused.returncode == 65
    assert b"refused" in refused.stderr
    no_token = pipe_in(mail_settings, b"From: someone@example.org\r\nSubject: hello\r\n\r\nhi\r\n")
    assert (no_token.returncode, b"no unsubscribe-TOKEN" in no_token.stderr) == (65, True)
    assert status(database, subscriber_id) == "active"
