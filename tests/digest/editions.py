"""A small fixed edition stored in the test database, and active subscribers."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.db import session_scope
from app.core.explanations import dump_reasons
from app.core.models import (
    Author,
    Edition,
    EditionItem,
    Frequency,
    Paper,
    PaperAuthor,
    PaperCategory,
    Subscriber,
    SubscriberStatus,
)
from ranking.scoring import Reason
from tests.ranking.explaining import AUTHORS, QUIET, UPVOTES

DAY = date(2026, 3, 2)
TITLES = [
    ("2603.00001", "Scaling $\\alpha$-entmax attention to long contexts", "cs.LG"),
    ("2603.00002", "A <b>bold</b> benchmark & friends", "cs.CL"),
    ("2603.00003", "Protein folding with diffusion", "q-bio.BM"),
]
# The first paper's abstract opens with TeX; the others keep a plain one.
ABSTRACTS = {
    "2603.00001": (
        "We scale $\\alpha$-entmax to $10^{6}$ tokens, e.g. books, in $\\mathcal{O}(n)$ memory. "
        "A second sentence stays on the paper's page."
    ),
}


# What a calibrated scorer stores with each item (``explained=True``), biggest first.
CHANCE = 0.1235
REASONS = (
    Reason("author_history", AUTHORS, 0.9),
    Reason("community", UPVOTES, 0.4),
    Reason("topic_momentum", "its topic grew 4 times this week", 0.1),
    Reason("prior", QUIET, -0.3),
)


def store_edition(
    sessions: sessionmaker[Session],
    titles: list[tuple[str, str, str]] = TITLES,
    *,
    explained: bool = False,
) -> None:
    with session_scope(sessions) as session:
        session.add(Author(key="ada-lovelace", name="Ada Lovelace"))
        for arxiv_id, title, category in titles:
            paper = Paper(
                arxiv_id=arxiv_id,
                title=title,
                abstract=ABSTRACTS.get(arxiv_id, "An abstract."),
                content_hash="x",
                announced_on=DAY,
            )
            paper.categories = [PaperCategory(category=category, position=0)]
            paper.authors = [
                PaperAuthor(position=0, author_key="ada-lovelace", name="Ada Lovelace")
            ]
            session.add(paper)
        session.flush()
        edition = Edition(
            period="day",
            edition_date=DAY,
            version=1,
            scorer="test",
            scorer_version="1",
            algorithm_version="1",
            diversity_rule="none",
            pool_size=len(titles),
            published_at=datetime(2026, 3, 2, 1, 0, tzinfo=UTC),
        )
        edition.items = [
            EditionItem(
                position=i,
                arxiv_id=arxiv_id,
                score=1.0 - i / 10,
                components=json.dumps({"momentum": 0.5}),
                chance=CHANCE if explained else None,
                reasons=dump_reasons(REASONS) if explained else None,
            )
            for i, (arxiv_id, _, _) in enumerate(titles)
        ]
        session.add(edition)


def add_subscriber(sessions: sessionmaker[Session], email: str, **changes: object) -> int:
    fields: dict[str, object] = {
        "email": email,
        "status": SubscriberStatus.ACTIVE,
        "categories": [],
        "interests": "",
        "exclusions": "",
        "followed_topics": [],
        "muted_topics": [],
        "followed_authors": [],
        "muted_authors": [],
        "frequency": Frequency.DAILY,
        "weekday": 0,
        "delivery_hour": 7,
        "time_zone": "UTC",
        "max_items": 10,
        "failure_count": 0,
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
    }
    fields.update(changes)
    with session_scope(sessions) as session:
        subscriber = Subscriber(**fields)
        session.add(subscriber)
        session.flush()
        return subscriber.id
