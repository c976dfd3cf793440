"""``paperboy moderators add | remove | list``: the readers the operator names moderators.

A moderator, signed in with that address, sees the moderation queue (``/moderation``) and
approves or refuses pending claims and corrections (``app.services.moderation``).
"""

from __future__ import annotations

import argparse
import sys

from app.cli.common import command_sessions
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.refusals import BadInput
from app.services.moderation import add_moderator, list_moderators, remove_moderator


def add_moderators_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("add", "remove", "list"))
    parser.add_argument("email", nargs="?", help="the moderator's address (add, remove)")


def run_moderators(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "list":
        with command_sessions(settings) as sessions:
            rows = list_moderators(sessions)
        for row in rows:
            print(f"{row.email}  named {row.added_at:%Y-%m-%d %H:%M} UTC")
        return 0
    if not args.email:
        print(f"moderators {args.action}: give the moderator's EMAIL", file=sys.stderr)
        return 2
    if args.action == "remove":
        return _remove(args.email, settings)
    try:
        with command_sessions(settings) as sessions:
            added = add_moderator(sessions, args.email, utc_now())
    except BadInput as error:
        print(f"moderators add: {error}", file=sys.stderr)
        return 2
    print(f"{args.email} is {'now' if added else 'already'} a moderator")
    return 0


def _remove(email: str, settings: Settings) -> int:
    with command_sessions(settings) as sessions:
        removed = remove_moderator(sessions, email)
    if not removed:
        print(f"moderators remove: {email} is not a moderator", file=sys.stderr)
        return 1
    print(f"{email} is no longer a moderator")
    return 0
