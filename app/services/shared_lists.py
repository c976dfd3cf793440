"""Lists a group shares: sharing and publishing a reader's list, editing it together, the
mailed invitations of co-editors, following and copying a published list, and the reads its
pages and feeds make (:mod:`accounts.shared_lists`, :mod:`accounts.list_readers`).

Every action runs as the signed-in reader in its own unit of work
(:func:`app.services.readers.as_reader`); a list the reader may not see or change is
:class:`NotFound`, a value that cannot be kept a :class:`BadInput` saying why. An invitation
is queued in the mail outbox in the unit of work that stores it, and its ticket returned for
the web's try at once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from accounts import links, list_readers, reader, shared_lists
from accounts.addresses import parse_address
from accounts.list_readers import AN_EDITOR, ListedPaper, ListView, ShownChange
from app.core import tokens
from app.core.models import MailKind, SharedList, Subscriber
from app.core.refusals import BadInput
from app.services.readers import as_reader
from app.services.reports import Deployment
from digest.mail import outbox
from digest.mail.confirmation import list_invitation_message

__all__ = ["AN_EDITOR", "ListView", "ListedPaper", "ShownChange"]


class InvitationRefusedError(BadInput, ValueError):
    """An invitation link that cannot be taken by this reader, said in words."""


def share(
    site: Deployment, email_key: str, list_id: int, wording: tuple[str, str, str], publish: bool
) -> str:
    """Share one of the reader's lists (title, description, shown name), published or kept
    among its editors; its slug."""

    def step(session: Session, found: Subscriber, now: datetime) -> str:
        shared = shared_lists.share(session, found, list_id, wording, now)
        shared_lists.publish(session, found, shared.slug, publish, now)
        return shared.slug

    return as_reader(site, email_key, step)


def publish(site: Deployment, email_key: str, slug: str, *, shown: bool) -> None:
    as_reader(
        site, email_key, lambda s, found, now: shared_lists.publish(s, found, slug, shown, now)
    )


def show_notes(site: Deployment, email_key: str, slug: str, *, shown: bool) -> None:
    as_reader(site, email_key, lambda s, found, _: shared_lists.show_notes(s, found, slug, shown))


def add_paper(site: Deployment, email_key: str, slug: str, arxiv_id: str) -> bool:
    return as_reader(
        site, email_key, lambda s, found, now: shared_lists.add_paper(s, found, slug, arxiv_id, now)
    )


def remove_paper(site: Deployment, email_key: str, slug: str, arxiv_id: str) -> None:
    as_reader(
        site,
        email_key,
        lambda s, found, now: shared_lists.remove_paper(s, found, slug, arxiv_id, now),
    )


def set_note(site: Deployment, email_key: str, slug: str, arxiv_id: str, text: str) -> None:
    as_reader(
        site,
        email_key,
        lambda s, found, now: shared_lists.set_note(s, found, slug, arxiv_id, text, now),
    )


def rename(site: Deployment, email_key: str, slug: str, title: str) -> None:
    as_reader(
        site, email_key, lambda s, found, now: shared_lists.rename(s, found, slug, title, now)
    )


def follow(site: Deployment, email_key: str, slug: str, *, follows: bool) -> None:
    as_reader(
        site, email_key, lambda s, found, now: list_readers.follow(s, found, slug, follows, now)
    )


def copy(site: Deployment, email_key: str, slug: str) -> int:
    """Copy the list into a new list of the reader's own; its id."""
    return as_reader(site, email_key, lambda s, found, now: list_readers.copy(s, found, slug, now))


def invite(site: Deployment, email_key: str, slug: str, address: str) -> str:
    """Invite an address to co-edit the reader's list; the ticket of the queued mail."""
    invited = parse_address(address)

    def step(session: Session, found: Subscriber, now: datetime) -> str:
        key = shared_lists.invite(session, found, slug, invited.key, now)
        shared = shared_lists.by_slug(session, slug)
        mail = list_invitation_message(
            site.settings, invited.delivery, (shared.list_id, key), shared.title, now
        )
        return outbox.queue(session, MailKind.LIST_INVITATION, mail, now).ticket

    return as_reader(site, email_key, step)


def remove_editor(site: Deployment, email_key: str, slug: str, editor: str) -> None:
    as_reader(
        site, email_key, lambda s, found, _: shared_lists.remove_editor(s, found, slug, editor)
    )


def invitation(site: Deployment, token: str) -> tuple[str, int, str]:
    """The address, list id and invite key a link carries, or :class:`TokenError`."""
    now = site.clock()
    age = links.max_age(site.settings, links.LIST_INVITE)
    claims = tokens.verify(site.settings.secret_key, token, links.LIST_INVITE, now, age)
    list_id = claims.extra.get("list", "")
    if not list_id.isdigit():
        raise tokens.TokenError("malformed")
    return claims.subject, int(list_id), claims.extra.get("key", "")


def accept(site: Deployment, email_key: str, token: str, name: str) -> str:
    """Take the invitation the link carries, as the signed-in reader; the list's slug."""
    invited, list_id, key = invitation(site, token)
    if invited != email_key:
        raise InvitationRefusedError(
            "this invitation is for another address: sign in as the address it was sent to"
        )

    def step(session: Session, found: Subscriber, now: datetime) -> str:
        return shared_lists.accept(session, found, (list_id, key), name, now).slug

    return as_reader(site, email_key, step)


def _reader_id(session: Session, email_key: str | None) -> int | None:
    found = None if email_key is None else reader.find(session, email_key)
    return None if found is None else found.id


def list_view(session: Session, slug: str, email_key: str | None) -> ListView:
    """The list as the reader (None: anyone) may see it, or :class:`NotFound`."""
    return list_readers.list_view(session, slug, _reader_id(session, email_key))


def invited_list(session: Session, list_id: int) -> SharedList | None:
    """The list an invitation names, for its page (None: deleted since)."""
    return session.get(SharedList, list_id)


def shared_of(session: Session, email_key: str) -> dict[int, str]:
    """The reader's shared lists' slugs, by list id (for the reading list's page)."""
    found = reader.find(session, email_key)
    if found is None:
        return {}
    shared = list_readers.export_of(session, found)["shared_lists"]
    assert isinstance(shared, list)
    return {row["list_id"]: row["slug"] for row in shared}
