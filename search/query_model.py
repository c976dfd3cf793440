"""A query's meaning while the query model may be missing: a web process never builds the
int8 model (that would load torch into it for good), so until ``paperboy migrate`` or the
daily job's embed step has built it, searches go by words alone, and say so once."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from app.core.vectors import Matrix
from search.query import QueryModelMissingError

logger = logging.getLogger(__name__)


class WordsOnly:
    """Says once that searches go by words alone for want of the query model (each search
    looks for the model again, so meaning comes back as soon as it is built)."""

    def __init__(self) -> None:
        self.said = False

    def say(self, missing: QueryModelMissingError) -> None:
        if not self.said:
            logger.warning("%s", missing)
            self.said = True


def embedded_or_none(
    embed: Callable[[Sequence[str]], Matrix], query: str, words_only: WordsOnly
) -> Matrix | None:
    """The query's vector, or None (words alone) while the query model is missing."""
    try:
        vector: Matrix = embed([query])[0]
    except QueryModelMissingError as missing:
        words_only.say(missing)
        return None
    words_only.said = False
    return vector
