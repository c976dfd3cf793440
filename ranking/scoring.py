"""The scorer interface (what any ranking model sees of a day's pool and what it must return),
and the baseline scorer.

Editions (``ranking/editions``) are built from whatever :class:`Scorer` is configured: the
baseline until the trending model is trained, the trending model after. Every score carries
its named components so that each item of an edition can say why it is there. Pure data:
nothing here touches the database or loads a model.

The baseline scorer (:class:`BaselineScorer`) is a few plain signs of attention, each a named
component. Until the trending model is trained, editions are ordered by it. Components, each
already weighted, so that they add up to the total (which lies in 0..1):

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # the trending model's inputs; those modules read Candidate from here
    from ranking.trending.features import TopicMemory
    from ranking.trending.history import AuthorHistory


@dataclass(frozen=True, slots=True)
class Candidate:
    """One paper of the pool being ranked, as known at ranking time."""

    arxiv_id: str
    title: str
    abstract: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    primary_category: str | None
    comment: str | None
    announced_on: date
    topic_id: int | None = None
    # How fast the paper's topic grows against its own recent baseline (0 = steady).
    topic_momentum: float = 0.0


@dataclass(frozen=True, slots=True)
class Signal:
    """A community signal observed about a paper: votes on Paperboy, upvotes on Hugging Face."""

    arxiv_id: str
    source: str
    value: float
    observed_on: date


@dataclass(frozen=True, slots=True)
class ScoringContext:
    """What is known at the moment of ranking, besides the candidates themselves.

    ``embeddings`` row *i* belongs to candidate *i* (L2-normalised, float32). ``signals`` holds
    only what was observed up to the moment of ranking, so a re-run reproduces the edition.
    Scorers that need more take it here as an added field with a default, never by reaching
    into the database: the trending model reads ``author_history`` (without it every author is
    a newcomer) and ``topic_memory``, earlier papers' embeddings (without it a topic's momentum
    is ``Candidate.topic_momentum`` and the community-interest features are zero).
    """

    day: date
    embeddings: NDArray[np.float32]
    signals: Sequence[Signal] = ()
    author_history: AuthorHistory | None = None
    topic_memory: TopicMemory | None = None


@dataclass(frozen=True, slots=True)
class Reason:
    """One factor that moved a paper away from the day's typical paper, in a reader's words.

    ``factor`` names the component or feature it comes from ("author_history", "community");
    ``text`` says it as a reader would ("3 of its authors had papers featured before");
    ``value`` is its signed contribution on the logit scale (negative: it held the paper back).
    """

    factor: str
    text: str
    value: float


@dataclass(frozen=True, slots=True)
class Score:
    """A paper's score and its named parts; ``total`` orders the edition.

    A calibrated scorer also gives ``chance``, the probability, estimated at announcement
    before any community signal, that Hugging Face features the paper, and ``reasons``, the
    factors behind the score in words. A scorer without calibration (the baseline) leaves
    both empty.
    """

    total: float
    components: Mapping[str, float]
    chance: float | None = None
    reasons: tuple[Reason, ...] = ()


class Scorer(Protocol):
    """A ranking model. ``name`` and ``version`` are recorded with every edition it builds."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        """One score per candidate, in the candidates' order."""
        ...


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
