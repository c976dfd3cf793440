import dkim

from app.core.config import Settings
from digest.sending import send_digests
from tests.conftest import FIXTURES, Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition

KEY = FIXTURES / "digest" / "dkim_test_key.pem"
PUBLIC = (FIXTURES / "digest" / "dkim_test_key.pub.b64").read_text().strip()


def dns(name: bytes, timeout: int = 5) -> bytes:
    assert name == b"pb1._domainkey.paperboy.test."
    return f"v=DKIM1; k=rsa; p={PUBLIC}".encode()


def test_with_a_key_configured_the_digest_arrives_dkim_signed_and_verifies(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    signing = mail_settings.model_copy(
        update={"dkim_selector": "pb1", "dkim_private_key_path": KEY}
    )
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(signing, database.sessions, DAY, NOW)
    [raw] = smtp.handler.raw
    [mail] = smtp.handler.messages
    assert "d=paperboy.test" in mail["DKIM-Signature"] and "s=pb1" in mail["DKIM-Signature"]
    assert dkim.verify(raw, dnsfunc=dns)


def test_without_a_key_mail_is_sent_unsigned(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, "ada@example.org")
    send_digests(mail_settings, database.sessions, DAY, NOW)
    assert smtp.handler.messages[0]["DKIM-Signature"] is None
