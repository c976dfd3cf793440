"""``paperboy send-digests | preview-digest | subscribers``: the email digest by hand.

``send-digests`` runs the digests use case (``app.services.digests``: purge week-old
unconfirmed sign-ups, then mail edition D's digest to everyone due who has not had it) and
prints its report; the others are operator tools on one subscriber.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.common import command_sessions, parse_day, print_report
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.tokens import TokenError
from app.services.digests import (
    NothingToPreviewError,
    delivery_failure,
    preview,
    resend_digest,
    send_due_digests,
)
from app.services.subscribers import (
    MAX_MESSAGE_BYTES,
    InboundMailError,
    SubscriberDetails,
    SubscriberRow,
    list_subscribers,
    remove_subscriber,
    show_subscriber,
    unsubscribe_by_token,
    unsubscribe_token,
)


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
    try:
        with command_sessions(settings) as sessions:
            rendered = preview(settings, sessions, args.email, args.date, utc_now())
    except NothingToPreviewError as error:
        print(f"preview-digest: {error}", file=sys.stderr)
        return 1
    day = rendered.day
    if rendered.message is None:
        print(f"preview-digest: nothing for {args.email} in the {day} edition", file=sys.stderr)
        return 1
    out = args.out or settings.data_dir / "previews" / f"{args.email}-{day}.eml"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(rendered.message.raw)
    print(f"wrote {out}")
    return 0


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
        with command_sessions(settings) as sessions:
            unsubscribe_by_token(settings, sessions, token, now)
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
        with command_sessions(settings) as sessions:
            rows = list_subscribers(sessions)
        for row in rows:
            print(_list_line(row))
        return 0
    if not args.email:
        print(f"subscribers {args.action}: give the subscriber's EMAIL", file=sys.stderr)
        return 2
    if args.action == "resend":
        return _resend(args, settings)
    found = _remove(args.email, settings) if args.action == "remove" else _show(args, settings)
    if not found:
        print(f"subscribers {args.action}: no such subscriber", file=sys.stderr)
        return 1
    return 0


def _remove(email: str, settings: Settings) -> bool:
    with command_sessions(settings) as sessions:
        removed = remove_subscriber(sessions, email)
    if removed:
        print(f"removed {email} and everything stored about them")
    return removed


def _show(args: argparse.Namespace, settings: Settings) -> bool:
    with command_sessions(settings) as sessions:
        details = show_subscriber(sessions, args.email)
    if details is not None:
        print("\n".join(_show_lines(details)))
    return details is not None


def _list_line(row: SubscriberRow) -> str:
    return f"{row.email}\t{row.status}\t{row.frequency}\t{row.sent} sent\t{row.failures} failures"


def _show_lines(subscriber: SubscriberDetails) -> list[str]:
    lines = [
        f"{subscriber.email}: {subscriber.status}, {subscriber.frequency} at "
        f"{subscriber.delivery_hour}:00 {subscriber.time_zone}, up to {subscriber.max_items}",
        f"categories: {', '.join(subscriber.categories) or 'all'}",
        f"failures in a row: {subscriber.failure_count}; last: {subscriber.last_failure or '-'}",
        "deliveries:",
    ]
    lines += [
        f"  {d.period} {d.edition_date}: {d.status}, {d.attempts} attempts"
        f"{', ' + d.error if d.error else ''}"
        for d in subscriber.deliveries
    ]
    return lines


def _resend(args: argparse.Namespace, settings: Settings) -> int:
    with command_sessions(settings, "worker") as sessions:
        summary = resend_digest(settings, sessions, args.email, args.date, utc_now())
    if summary is None:
        print("subscribers resend: no such subscriber or no edition", file=sys.stderr)
        return 1
    print(summary.line())
    return 1 if delivery_failure(summary) else 0
