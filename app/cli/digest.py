"""``paperboy send-digests | preview-digest | subscribers``: the email digest by hand.

``send-digests`` runs the digests use case (``app.services.digests``: purge week-old
unconfirmed sign-ups, then mail edition D's digest to everyone due who has not had it) and
prints its report; the others are operator tools on one subscriber.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.cli.common import command_sessions, job_session, parse_day, print_report
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.db import session_scope
from app.core.editions import latest_edition
from app.core.models import Delivery, DeliveryStatus, Subscriber
from app.core.models.subscriptions import mailbox_key
from app.core.tokens import TokenError
from app.services.digests import (
    delivery_failure,
    latest_day_edition,
    lazy_encoder,
    run_searcher,
    send_due_digests,
)
from digest.accounts.inbound import MAX_MESSAGE_BYTES, InboundMailError, unsubscribe_token
from digest.accounts.links import UNSUBSCRIBE
from digest.accounts.subscriptions import (
    delete_everything,
    find_subscriber,
    subscriber_for,
    unsubscribe,
)
from digest.compose import build_digest
from digest.due_rows import edition_for
from digest.ledger import Reader
from digest.mail.messages import OutgoingMail
from digest.run_inputs import edition_view
from digest.sending import resend
from digest.tastes import Tastes
from search.searcher import Searcher


def add_send_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--date", type=parse_day, help="edition date (default: the latest day)")


def run_send_digests(args: argparse.Namespace, settings: Settings) -> int:
    with command_sessions(settings, "worker") as sessions:
        report = send_due_digests(settings, sessions, utc_now(), args.date)
    return print_report(report)


def add_preview_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("email", help="a subscriber's address")
    add_send_arguments(parser)
    parser.add_argument("--out", type=Path, help="file to write (default DATA_DIR/previews/)")


def run_preview_digest(args: argparse.Namespace, settings: Settings) -> int:
    now = utc_now()
    with command_sessions(settings) as sessions, session_scope(sessions) as session:
        subscriber = _subscriber(session, args.email)
        day = args.date or latest_day_edition(session)
        if subscriber is None or day is None:
            what = "no such subscriber" if subscriber is None else "no edition published yet"
            print(f"preview-digest: {what}", file=sys.stderr)
            return 1
        search = run_searcher(settings, sessions)
        message = _preview(settings, session, subscriber, day, now, search)
    if message is None:
        print(f"preview-digest: nothing for {args.email} in the {day} edition", file=sys.stderr)
        return 1
    out = args.out or settings.data_dir / "previews" / f"{args.email}-{day}.eml"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(message.raw)
    print(f"wrote {out}")
    return 0


def _preview(
    settings: Settings,
    session: Session,
    subscriber: Subscriber,
    day: date,
    now: datetime,
    search: Searcher,
) -> OutgoingMail | None:
    target = edition_for(subscriber.frequency, day)
    edition = latest_edition(session, target.period, target.edition_date, with_items=True)
    if edition is None:
        return None
    view = edition_view(session, edition, settings.embedding_model, search)
    # Previewing claims no ledger row: it sends nothing and records nothing.
    tastes = Tastes(session, settings.embedding_model, lazy_encoder(settings))
    reader = Reader.of(subscriber)
    built = build_digest(settings, session, reader, view, target, now, tastes)
    return built[0] if built else None


def _subscriber(session: Session, email: str) -> Subscriber | None:
    return find_subscriber(session, mailbox_key(email.strip()))


# sysexits.h: a pipe alias's exit status tells the mail server to bounce the mail (with what
# was printed) rather than retry it.
EX_DATAERR = 65


def add_unsubscribe_mail_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--file", type=Path, help="read the mail from this file instead of standard input"
    )


def run_unsubscribe_mail(args: argparse.Namespace, settings: Settings) -> int:
    raw = args.file.read_bytes() if args.file else sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
    now = utc_now()
    try:
        token = unsubscribe_token(raw)
        with job_session(settings) as session:
            unsubscribe(subscriber_for(session, settings, token, UNSUBSCRIBE, now), now)
    except (InboundMailError, TokenError) as error:
        print(f"unsubscribe-mail: refused: {error}", file=sys.stderr)
        return EX_DATAERR
    print("unsubscribed")
    return 0


def add_subscribers_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "show", "remove", "resend"))
    parser.add_argument("email", nargs="?", help="the subscriber (show, remove, resend)")
    add_send_arguments(parser)


def run_subscribers(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "list":
        with job_session(settings) as session:
            for line in _list_lines(session):
                print(line)
        return 0
    if not args.email:
        print(f"subscribers {args.action}: give the subscriber's EMAIL", file=sys.stderr)
        return 2
    if args.action == "resend":
        return _resend(args, settings)
    with job_session(settings) as session:
        subscriber = _subscriber(session, args.email)
        if subscriber is None:
            print(f"subscribers {args.action}: no such subscriber", file=sys.stderr)
            return 1
        if args.action == "remove":
            delete_everything(session, subscriber)
            print(f"removed {args.email} and everything stored about them")
        else:
            print("\n".join(_show_lines(session, subscriber)))
    return 0


def _list_lines(session: Session) -> list[str]:
    sent = dict(
        session.execute(
            select(Delivery.subscriber_id, func.count())
            .where(Delivery.status == DeliveryStatus.SENT)
            .group_by(Delivery.subscriber_id)
        ).all()
    )
    return [
        f"{s.email}\t{s.status}\t{s.frequency}\t{sent.get(s.id, 0)} sent\t"
        f"{s.failure_count} failures"
        for s in session.scalars(select(Subscriber).order_by(Subscriber.email))
    ]


def _show_lines(session: Session, subscriber: Subscriber) -> list[str]:
    lines = [
        f"{subscriber.email}: {subscriber.status}, {subscriber.frequency} at "
        f"{subscriber.delivery_hour}:00 {subscriber.time_zone}, up to {subscriber.max_items}",
        f"categories: {', '.join(subscriber.categories) or 'all'}",
        f"failures in a row: {subscriber.failure_count}; last: {subscriber.last_failure or '-'}",
        "deliveries:",
    ]
    deliveries = session.scalars(
        select(Delivery)
        .where(Delivery.subscriber_id == subscriber.id)
        .order_by(Delivery.edition_date.desc())
    )
    lines += [
        f"  {d.period} {d.edition_date}: {d.status}, {d.attempts} attempts"
        f"{', ' + d.error if d.error else ''}"
        for d in deliveries
    ]
    return lines


def _resend(args: argparse.Namespace, settings: Settings) -> int:
    now = utc_now()
    with command_sessions(settings, "worker") as sessions:
        with session_scope(sessions) as session:
            subscriber = _subscriber(session, args.email)
            day = args.date or latest_day_edition(session)
            subscriber_id = subscriber.id if subscriber else None
        if subscriber_id is None or day is None:
            print("subscribers resend: no such subscriber or no edition", file=sys.stderr)
            return 1
        search = run_searcher(settings, sessions)
        summary = resend(
            settings, sessions, subscriber_id, day, now, lazy_encoder(settings), search=search
        )
    print(summary.line())
    return 1 if delivery_failure(summary) else 0
