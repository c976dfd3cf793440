"""Papers stored for the people tests: a name in two fields, each with its own co-authors."""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np

from app.core.db import session_scope
from app.core.models import Author, Paper, PaperAuthor, PaperCategory, PaperEmbedding
from app.core.vectors import pack
from tests.conftest import Database


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


STORED_AT = datetime(2025, 1, 31, tzinfo=UTC)
LEARNING, MAGNETS = unit(1.0, 0.1), unit(0.0, 0.0, 1.0, 0.1)
NAMES = {"zhe-qu": "Zhe Qu", "ana-lima": "Ana Lima", "bo-chen": "Bo Chen", "cy-ito": "Cy Ito"}
NAMES |= {"dan-ruiz": "Dan Ruiz", "eve-park": "Eve Park", "kling-team": "Kling Team"}
# Zhe Qu's federated-learning papers with Ana and Bo, the namesake's magnets with Cy and Dan.
ZHE_QU = {
    "2501.00001": ("zhe-qu ana-lima bo-chen", "cs.LG", LEARNING),
    "2501.00002": ("zhe-qu ana-lima", "cs.LG", LEARNING),
    "2501.00003": ("bo-chen zhe-qu", "cs.LG cs.DC", LEARNING),
    "2501.00004": ("cy-ito dan-ruiz zhe-qu", "cond-mat.str-el", MAGNETS),
    "2501.00005": ("zhe-qu dan-ruiz", "cond-mat.str-el", MAGNETS),
}


def store(
    database: Database,
    arxiv_id: str,
    authors: str,
    categories: str,
    vector: np.ndarray,
    day: int | None = None,
) -> None:
    """One paper with its authors (keys of ``NAMES``), categories and vector, announced on
    ``day`` of January 2025 (else the day its id ends in)."""
    model = database.settings.embedding_model
    with session_scope(database.sessions) as session:
        for key in authors.split():
            if session.get(Author, key) is None:
                session.add(Author(key=key, name=NAMES[key]))
        session.add(
            Paper(
                arxiv_id=arxiv_id,
                title=f"Paper {arxiv_id}",
                abstract="An abstract.",
                content_hash="x",
                announced_on=date(2025, 1, day or int(arxiv_id[-2:])),
            )
        )
        session.flush()
        session.add_all(
            PaperAuthor(arxiv_id=arxiv_id, position=n, author_key=key, name=NAMES[key])
            for n, key in enumerate(authors.split())
        )
        session.add_all(
            PaperCategory(arxiv_id=arxiv_id, category=category, position=n)
            for n, category in enumerate(categories.split())
        )
        session.add(
            PaperEmbedding(
                arxiv_id=arxiv_id,
                model=model,
                text_hash="x",
                dimensions=8,
                vector=pack(vector),
                computed_at=STORED_AT,
            )
        )


def store_zhe_qu(database: Database) -> None:
    for arxiv_id, (authors, categories, vector) in ZHE_QU.items():
        store(database, arxiv_id, authors, categories, vector)
