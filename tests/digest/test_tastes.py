"""What a reader's taste is read from: their thumbs and their reading list."""

import numpy as np

from accounts import reader
from app.core.db import session_scope
from app.core.models import PaperEmbedding
from app.core.vectors import pack
from digest.ledger import Reader
from digest.tastes import Tastes
from tests.conftest import Database
from tests.digest.conftest import NOW
from tests.digest.editions import TITLES, store_edition

MODEL = "test-model"


def test_liked_papers_are_the_thumbs_up_and_the_saved_papers_given_no_thumbs(
    database: Database,
) -> None:
    store_edition(database.sessions)
    saved, saved_but_disliked, liked = (arxiv_id for arxiv_id, _, _ in TITLES)
    with session_scope(database.sessions) as session:
        for row, (arxiv_id, _, _) in enumerate(TITLES):
            vector = pack(np.eye(4, dtype=np.float32)[row])
            session.add(
                PaperEmbedding(
                    arxiv_id=arxiv_id,
                    model=MODEL,
                    text_hash="x",
                    dimensions=4,
                    vector=vector,
                    computed_at=NOW,
                )
            )
        ada = reader.reader_row(session, "ada@example.org", NOW)
        for arxiv_id in (saved, saved_but_disliked):
            reader.save(session, ada, arxiv_id, NOW)
        reader.give_feedback(session, ada, saved_but_disliked, -1, NOW)
        reader.give_feedback(session, ada, liked, 1, NOW)
        found = Reader.of(ada)
    with database.sessions() as session:
        taste = Tastes(session, MODEL, None, only=found.id).of(session, found)
    assert [(one.arxiv_id, one.how) for one in taste.liked_papers] == [
        (liked, "liked"),
        (saved, "saved"),
    ]
    assert taste.liked is not None and taste.liked.shape == (2, 4)
    assert taste.liked_texts[1].startswith(TITLES[0][1])
    assert taste.disliked is not None and taste.disliked.shape == (1, 4)
