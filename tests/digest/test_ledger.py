"""The ledger claims the deliveries of a run's editions only, and expires those a newer
edition replaced (with a real SMTP server, as the digest job runs)."""

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select, update

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import Delivery, DeliveryStatus, Edition, EditionItem, EditionKey
from app.core.periods import Period
from digest import ledger
from digest.ledger import IN_FLIGHT_LEASE
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, TITLES, add_subscriber, store_edition

MONDAY = DAY
TUESDAY = DAY + timedelta(days=1)
NEXT_MONDAY = DAY + timedelta(days=7)


def add_edition(database: Database, period: Period, key: date, version: int = 1) -> None:
    """An edition of the stored papers, as `paperboy rank` or `publish` would leave it."""
    with session_scope(database.sessions) as session:
        edition = Edition(
            period=period,
            edition_date=key,
            version=version,
            scorer="test",
            scorer_version="1",
            algorithm_version="1",
            diversity_rule="none",
            pool_size=len(TITLES),
            published_at=datetime(2026, 3, 1, tzinfo=UTC),
        )
        edition.items = [
            EditionItem(position=i, arxiv_id=arxiv_id, score=1.0 - i / 10, components="{}")
            for i, (arxiv_id, _, _) in enumerate(TITLES)
        ]
        session.add(edition)


def deliveries(database: Database) -> dict[tuple[str, date], tuple[str, str | None]]:
    with database.sessions() as session:
        rows = session.execute(
            select(Delivery.period, Delivery.edition_date, Delivery.status, Delivery.error)
        )
        return {(period, key): (status, error) for period, key, status, error in rows}


def monday_published_and_left_pending_by_an_outage(
    database: Database, mail_settings: Settings, readers: int = 1
) -> None:
    store_edition(database.sessions)  # Monday's day edition
    add_edition(database, "week", MONDAY)
    down = mail_settings.model_copy(update={"smtp_port": 1})
    assert send_digests(down, database.sessions, MONDAY, NOW).counts == {"pending": readers}


def test_a_monday_digest_left_pending_by_an_outage_does_not_stop_tuesdays(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    monday_published_and_left_pending_by_an_outage(database, mail_settings)
    add_edition(database, "day", TUESDAY)
    add_edition(database, "week", MONDAY, version=2)  # the week, rebuilt with Tuesday
    summary = send_digests(mail_settings, database.sessions, TUESDAY, NOW + timedelta(days=1))
    assert summary.error is None
    assert summary.counts == {"sent": 1, "expired": 1, "pending": 0}
    [mail] = smtp.handler.to("ada@example.org")
    assert mail["Subject"].startswith("Paperboy day 2026-03-03:")
    assert deliveries(database) == {
        ("day", MONDAY): ("expired", "a newer day edition replaced it"),
        ("day", TUESDAY): ("sent", None),
    }


def test_a_late_daily_digest_is_never_sent_once_a_newer_day_is_published(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    monday_published_and_left_pending_by_an_outage(database, mail_settings)
    add_edition(database, "day", TUESDAY)
    # Monday's run again (an operator, or a job that was late): yesterday's digest stays unsent.
    summary = send_digests(mail_settings, database.sessions, MONDAY, NOW + timedelta(hours=20))
    assert summary.counts == {"expired": 1, "pending": 0}
    assert smtp.handler.messages == []
    assert deliveries(database)[("day", MONDAY)][0] == "expired"


def test_a_late_daily_digest_is_sent_while_its_edition_is_still_the_newest(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    monday_published_and_left_pending_by_an_outage(database, mail_settings)
    later = send_digests(mail_settings, database.sessions, MONDAY, NOW + timedelta(hours=14))
    assert later.counts == {"sent": 1, "pending": 0}
    assert len(smtp.handler.to("ada@example.org")) == 1


def test_a_weekly_digest_left_pending_expires_when_the_next_week_is_published(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "weekly@example.org", frequency="weekly", weekday=0)
    add_subscriber(database.sessions, "ada@example.org")
    monday_published_and_left_pending_by_an_outage(database, mail_settings, readers=2)
    add_edition(database, "day", NEXT_MONDAY)
    add_edition(database, "week", NEXT_MONDAY)
    summary = send_digests(mail_settings, database.sessions, NEXT_MONDAY, NOW + timedelta(days=7))
    assert summary.counts == {"sent": 2, "expired": 2, "pending": 0}
    assert sorted(m["Subject"][:24] for m in smtp.handler.messages) == [
        "Paperboy day 2026-03-09:",
        "Paperboy week 2026-03-09",
    ]
    assert deliveries(database)[("week", MONDAY)] == (
        "expired",
        "a newer week edition replaced it",
    )


def test_a_digest_left_in_flight_expires_once_a_newer_day_is_out_and_so_is_its_lease(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    add_subscriber(database.sessions, "ada@example.org")
    monday_published_and_left_pending_by_an_outage(database, mail_settings)
    with database.engine.begin() as connection:  # as a sender killed in DATA leaves it
        connection.execute(
            update(Delivery).values(status=DeliveryStatus.SENDING, sending_since=NOW)
        )
    add_edition(database, "day", TUESDAY)
    tuesday = NOW + timedelta(days=1)
    held = send_digests(
        mail_settings, database.sessions, TUESDAY, tuesday, clock=lambda: NOW + timedelta(minutes=9)
    )
    assert held.counts == {"sent": 1, "pending": 0, "still in flight": 1}
    assert deliveries(database)[("day", MONDAY)] == ("sending", None)
    out = send_digests(
        mail_settings,
        database.sessions,
        TUESDAY,
        tuesday,
        clock=lambda: NOW + IN_FLIGHT_LEASE + timedelta(seconds=1),
    )
    assert out.counts == {"expired": 1, "pending": 0}
    assert deliveries(database)[("day", MONDAY)] == ("expired", "a newer day edition replaced it")
    assert [m["Subject"][:24] for m in smtp.handler.messages] == ["Paperboy day 2026-03-03:"]


def claimed_editions(database: Database, keys: list[EditionKey]) -> list[EditionKey]:
    """What a run of these editions claims, in order."""
    claimers, after = ledger.claimers(keys, None), 0
    assert claimers is not None
    editions: list[EditionKey] = []
    with session_scope(database.sessions) as session:
        while claim := ledger.claim(session, claimers.pending, after, now=NOW, message_id="<m>"):
            editions.append(claim.edition)
            after = claim.delivery_id
    return editions


def test_a_run_claims_the_deliveries_of_its_own_editions_only(database: Database) -> None:
    reader = add_subscriber(database.sessions, "ada@example.org")
    with session_scope(database.sessions) as session:
        for edition in (
            EditionKey("day", MONDAY),
            EditionKey("week", MONDAY),
            EditionKey("day", TUESDAY),
        ):
            session.add(
                Delivery(
                    subscriber_id=reader,
                    period=edition.period,
                    edition_date=edition.edition_date,
                    status=DeliveryStatus.PENDING,
                    created_at=NOW,
                )
            )
    # Tuesday's run: Tuesday's day and the week keyed Monday, never Monday's day.
    tuesday = claimed_editions(database, [EditionKey("day", TUESDAY), EditionKey("week", MONDAY)])
    assert tuesday == [EditionKey("week", MONDAY), EditionKey("day", TUESDAY)]
