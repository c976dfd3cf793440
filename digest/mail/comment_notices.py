"""The mail about new comments: a reader's replies, or comments on their papers (pure).

One kind a mail (:class:`accounts.comment_mail.Batch`): its ``List-Unsubscribe`` link, and
the link at its foot, turn off that kind only. Each comment is listed with its paper's
title, its commenter's shown name (never an address), the opening of its text as plain text
and the link to its place in the thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from accounts import links
from accounts.comment_mail import Batch
from app.core.config import Settings
from app.core.models import CommentMail
from digest.mail.messages import Envelope, OutgoingMail, build_message, render_email


@dataclass(frozen=True, slots=True)
class ListedComment:
    title: str
    commenter: str
    excerpt: str
    url: str


def comment_url(settings: Settings, arxiv_id: str, comment_id: int) -> str:
    return f"{settings.public_base_url.rstrip('/')}/papers/{arxiv_id}#comment-{comment_id}"


def comments_message(
    settings: Settings, reader: links.LinkHolder, address: str, batch: Batch, now: datetime
) -> OutgoingMail:
    """The mail telling ``address`` (the reader's) of the batch's comments."""
    off = links.comment_mail_off_urls(settings, reader, batch.kind.value, now)
    listed = [
        ListedComment(
            title=notice.title,
            commenter=notice.commenter,
            excerpt=notice.excerpt,
            url=comment_url(settings, notice.arxiv_id, notice.comment_id),
        )
        for notice in batch.notices
    ]
    context = {
        "replies": batch.kind is CommentMail.REPLIES,
        "comments": listed,
        "off_url": off.https,
        "for_you_url": f"{settings.public_base_url.rstrip('/')}/for-you#comment-mail",
    }
    envelope = Envelope(settings.mail_from, address, now, unsubscribe=off)
    return build_message(envelope, render_email("comment_notices", context))
