"""What the site's readers do reaching a digest, through a whole run to a real SMTP server:
"Discussed today" for a reader who asks for it, and the new papers of a list they follow."""

from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import (
    Comment,
    CommentState,
    ListFollow,
    ReadingList,
    SharedList,
    SharedListPaper,
)
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition
from tests.digest.test_sending import body

BOLD, FOLDING, SCALING = "2603.00002", "2603.00003", "2603.00001"


def _said(
    sessions: sessionmaker[Session],
    arxiv_id: str,
    hours_ago: float,
    state: CommentState = CommentState.SHOWN,
) -> None:
    """A comment on the paper, by a reader since gone, ``hours_ago`` before the digest."""
    at = NOW - timedelta(hours=hours_ago)
    with session_scope(sessions) as session:
        session.add(
            Comment(
                arxiv_id=arxiv_id,
                body="b",
                html="<p>b</p>",
                state=state,
                once=f"{arxiv_id}-{hours_ago}",
                created_at=at,
            )
        )


def test_a_reader_who_asks_gets_the_papers_discussed_since_their_last_digest(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    for hours_ago, arxiv_id in ((1, FOLDING), (2, FOLDING), (3, BOLD)):
        _said(database.sessions, arxiv_id, hours_ago)
    _said(database.sessions, BOLD, 4, CommentState.HIDDEN)
    _said(database.sessions, SCALING, 30)  # before the day: not today's talk
    add_subscriber(database.sessions, "ada@example.org", max_items=1, discussed_in_digest=True)
    add_subscriber(database.sessions, "bob@example.org", max_items=1)
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts["sent"] == 2
    text = body(smtp.handler.to("ada@example.org")[0], "plain")
    section = text.split("== Discussed today ==\n\n", 1)[1].split("==", 1)[0]
    assert section.index("Protein folding with diffusion") < section.index("bold")
    assert "Why: 2 new comments in its discussion" in section
    assert "Why: 1 new comment in its discussion" in section
    assert "Scaling" not in section
    assert "Discussed" not in body(smtp.handler.to("bob@example.org")[0], "plain")


def test_a_followed_lists_new_paper_reaches_its_follower(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    owner = add_subscriber(database.sessions, "owner@example.org")
    ada = add_subscriber(database.sessions, "ada@example.org", max_items=1)
    add_subscriber(database.sessions, "bob@example.org", max_items=1)
    with session_scope(database.sessions) as session:
        kept = ReadingList(subscriber_id=owner, name="Journal club", created_at=NOW)
        session.add(kept)
        session.flush()
        session.add(
            SharedList(
                list_id=kept.id,
                slug="journal-club",
                title="Journal club",
                published_at=NOW - timedelta(days=3),
                created_at=NOW - timedelta(days=3),
            )
        )
        session.flush()
        for arxiv_id, hours_ago in ((FOLDING, 2), (BOLD, 50)):  # the second came days ago
            added = NOW - timedelta(hours=hours_ago)
            session.add(SharedListPaper(list_id=kept.id, arxiv_id=arxiv_id, added_at=added))
        session.add(ListFollow(list_id=kept.id, subscriber_id=ada, followed_at=NOW))
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts["sent"] == 3
    text = body(smtp.handler.to("ada@example.org")[0], "plain")
    section = text.split("== New on the list “Journal club” ==\n\n", 1)[1].split("==", 1)[0]
    assert "Protein folding with diffusion" in section and "bold" not in section
    assert "Journal club" not in body(smtp.handler.to("bob@example.org")[0], "plain")
