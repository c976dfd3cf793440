"""The baseline scorer: a few plain signs of attention, each a named component (pure).

Until the trending model is trained, editions are ordered by this. Components, each already
weighted, so that they add up to the total (which lies in 0..1):

- ``team`` (weight 0.4): log(1 + authors) / log(1 + 16), capped at 1: larger teams get read.
- ``code`` (0.3): 1 when the comment or abstract links code or a project page.
- ``momentum`` (0.2): the paper's topic momentum against its own recent baseline, 0..2 scaled
  to 0..1 (a topic three times its usual size counts fully).
- ``venue`` (0.1): 1 when the comment says the paper was accepted at a venue.

Ties are broken by the edition builder (by arXiv id), so the order is reproducible.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ranking.scoring import Candidate, Score, ScoringContext

WEIGHTS = {"team": 0.4, "code": 0.3, "momentum": 0.2, "venue": 0.1}
TEAM_SATURATION = 16
MOMENTUM_CAP = 2.0
_CODE = re.compile(
    r"github\.com|gitlab\.com|huggingface\.co|code (is|are|will be) (publicly )?available|"
    r"project page",
    re.IGNORECASE,
)
_VENUE = re.compile(r"\baccepted\b|\bto appear\b|\bpublished (in|at)\b", re.IGNORECASE)


class BaselineScorer:
    """Team size, code, topic momentum and venue, weighted and summed."""

    @property
    def name(self) -> str:
        return "baseline"

    @property
    def version(self) -> str:
        return "1"

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        return [_score(candidate) for candidate in candidates]


def _score(candidate: Candidate) -> Score:
    text = f"{candidate.comment or ''} {candidate.abstract}"
    raw = {
        "team": min(1.0, math.log1p(len(candidate.authors)) / math.log1p(TEAM_SATURATION)),
        "code": 1.0 if _CODE.search(text) else 0.0,
        "momentum": min(max(candidate.topic_momentum, 0.0), MOMENTUM_CAP) / MOMENTUM_CAP,
        "venue": 1.0 if _VENUE.search(candidate.comment or "") else 0.0,
    }
    components = {name: WEIGHTS[name] * value for name, value in raw.items()}
    return Score(total=sum(components.values()), components=components)
