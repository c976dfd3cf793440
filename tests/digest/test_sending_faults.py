"""A mail server's refusals and hang-ups, one recipient at a time, against a real SMTP server."""

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

import pytest
from sqlalchemy import select, update

from app.core.config import Settings
from app.core.models import Delivery, DeliveryStatus, Subscriber
from digest.ledger import IN_FLIGHT_LEASE
from digest.sending import FOUND_IN_FLIGHT, send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, RecordingHandler, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition

VICTIM = "victim@example.org"
OTHERS = ["ada@example.org", "bob@example.org"]


class Step(StrEnum):
    RCPT = "RCPT"
    DATA = "DATA"
    # The server hangs up in DATA, with no answer.
    HANG_UP = "hang-up"


@dataclass(frozen=True)
class Fault:
    """What the server does to the victim's mail, and what its ledger row then says."""

    step: Step
    answer: str
    status: DeliveryStatus
    error: str

    @property
    def name(self) -> str:
        return f"{self.answer[:3]} to {self.step}" if self.answer else str(self.step)

    def apply(self, handler: RecordingHandler) -> None:
        if self.step is Step.RCPT:
            handler.refuse[VICTIM] = self.answer
        elif self.step is Step.DATA:
            handler.refuse_data[VICTIM] = self.answer
        else:
            handler.drop_in_data.add(VICTIM)

    def clear(self, handler: RecordingHandler) -> None:
        handler.refuse.pop(VICTIM, None)
        handler.refuse_data.pop(VICTIM, None)
        handler.drop_in_data.discard(VICTIM)


def _refusal(step: Step, answer: str, status: DeliveryStatus) -> Fault:
    words = "recipient refused" if step is Step.RCPT else "message refused"
    return Fault(step=step, answer=answer, status=status, error=f"{words}: {answer}")


PENDING, FAILED = DeliveryStatus.PENDING, DeliveryStatus.FAILED
CLOSING = "421 4.3.2 Service shutting down, closing channel"
FAULTS = [
    _refusal(Step.RCPT, CLOSING, PENDING),
    _refusal(Step.RCPT, "451 4.7.1 Greylisted, try again later", PENDING),
    _refusal(Step.RCPT, "452 4.2.2 Mailbox full, try later", PENDING),
    _refusal(Step.RCPT, "550 5.1.1 No such user", FAILED),
    _refusal(Step.DATA, CLOSING, PENDING),
    _refusal(Step.DATA, "451 4.3.0 Local error in processing", PENDING),
    _refusal(Step.DATA, "452 4.3.1 Insufficient system storage", PENDING),
    _refusal(Step.DATA, "550 5.7.1 Message refused as spam", FAILED),
    Fault(
        step=Step.HANG_UP,
        answer="",
        status=PENDING,
        error="connection lost in DATA: Unexpected EOF received",
    ),
]


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.name for fault in FAULTS])
def test_each_smtp_fault_is_recorded_on_its_row_and_the_others_still_get_their_digest(
    database: Database, mail_settings: Settings, smtp: Smtp, fault: Fault
) -> None:
    store_edition(database.sessions)
    for email in [OTHERS[0], VICTIM, OTHERS[1]]:
        add_subscriber(database.sessions, email)
    fault.apply(smtp.handler)
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.error is None
    outcome = "deferred" if fault.status is PENDING else "failed"
    assert summary.counts == {"sent": 2, outcome: 1, "pending": int(fault.status is PENDING)}
    assert sorted(m["To"] for m in smtp.handler.messages) == OTHERS
    with database.sessions() as session:
        row = session.scalars(
            select(Delivery).join(Subscriber).where(Subscriber.email == VICTIM)
        ).one()
    assert (row.status, row.error) == (fault.status, fault.error)
    fault.clear(smtp.handler)
    send_digests(mail_settings, database.sessions, DAY, NOW)
    expected = 1 if fault.status is PENDING else 0
    assert len(smtp.handler.to(VICTIM)) == expected
    assert sorted(m["To"] for m in smtp.handler.messages if m["To"] != VICTIM) == OTHERS


def test_a_message_the_server_hung_up_on_goes_again_with_its_message_id(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, VICTIM)
    smtp.handler.drop_in_data.add(VICTIM)
    send_digests(mail_settings, database.sessions, DAY, NOW)
    with database.sessions() as session:
        first_id = session.scalars(select(Delivery.message_id)).one()
    smtp.handler.drop_in_data.clear()
    send_digests(mail_settings, database.sessions, DAY, NOW)
    [mail] = smtp.handler.to(VICTIM)
    assert first_id is not None and mail["Message-ID"] == first_id


def test_a_refused_sender_stops_the_run_and_counts_against_no_subscriber(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    for email in OTHERS:
        add_subscriber(database.sessions, email)
    smtp.handler.refuse_sender = "550 5.7.1 Sender address rejected: not owned by user"
    summary = send_digests(mail_settings, database.sessions, DAY, NOW)
    assert summary.error == "SMTP 550: 5.7.1 Sender address rejected: not owned by user"
    assert summary.counts == {"pending": 2}
    with database.sessions() as session:
        assert session.scalars(select(Subscriber.failure_count)).all() == [0, 0]
        assert set(session.scalars(select(Delivery.status))) == {PENDING}
    smtp.handler.refuse_sender = None
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts == {
        "sent": 2,
        "pending": 0,
    }


def test_a_delivery_left_in_flight_and_deferred_again_is_tried_once_in_the_run(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    add_subscriber(database.sessions, VICTIM)
    smtp.handler.refuse[VICTIM] = "451 4.7.1 Greylisted, try again later"
    send_digests(mail_settings, database.sessions, DAY, NOW)
    with database.engine.begin() as connection:  # as a sender killed in DATA leaves it
        connection.execute(
            update(Delivery).values(status=DeliveryStatus.SENDING, sending_since=NOW)
        )
    tried: list[str] = []
    smtp.handler.on_rcpt = tried.append

    summary = send_digests(
        mail_settings,
        database.sessions,
        DAY,
        NOW,
        clock=lambda: NOW + IN_FLIGHT_LEASE + timedelta(seconds=1),
    )

    assert tried == [VICTIM]
    assert summary.counts == {"deferred": 1, FOUND_IN_FLIGHT: 1, "pending": 1}
