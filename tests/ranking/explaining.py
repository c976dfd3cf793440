"""A scorer that gives a chance and worded reasons with every score, as a calibrated one does.

A test double of the ``Scorer`` interface (``ranking.scoring``): editions, pages, the API and
the digest are tested with it, whatever the shipped trending scorer fills.
"""

from __future__ import annotations

from collections.abc import Sequence

from ranking.scoring import Candidate, Reason, Score, ScoringContext

AUTHORS = "3 of its authors had papers featured before"
UPVOTES = "42 upvotes on Hugging Face so far"
QUIET = "its topic is quieter than usual this week"


class ExplainingScorer:
    """Scores and chances from tables; every paper gets the same three signed reasons.

    The reasons come out of order and unrounded, as nothing says a scorer sorts or rounds.
    A paper missing from ``chances`` gets neither a chance nor reasons.
    """

    def __init__(
        self,
        totals: dict[str, float],
        chances: dict[str, float],
        version: str = "1",
        authors: str = AUTHORS,
    ) -> None:
        self.totals, self.chances, self._version, self.authors = totals, chances, version, authors

    @property
    def name(self) -> str:
        return "explaining"

    @property
    def version(self) -> str:
        return self._version

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        return [self._score(c.arxiv_id) for c in candidates]

    def _score(self, arxiv_id: str) -> Score:
        total = self.totals.get(arxiv_id, 0.0)
        if arxiv_id not in self.chances:
            return Score(total, {"prior": total})
        reasons = (
            Reason("topic_momentum", QUIET, -0.4),
            Reason("community", UPVOTES, 0.25),
            Reason("author_history", self.authors, 1 / 3),
        )
        return Score(
            total=total, components={"prior": total}, chance=self.chances[arxiv_id], reasons=reasons
        )
