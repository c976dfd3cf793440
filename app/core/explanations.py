"""An edition item's chance and reasons: how they are stored, and the words a reader reads.

A calibrated scorer (``ranking.scoring.Score``) gives each paper a ``chance``, the probability,
estimated at announcement before any community signal, that Hugging Face features it, and
``reasons``: the factors that moved it away from the day's typical paper, each signed and in
words. Editions store the reasons in ``edition_items.reasons`` as a JSON list of
``{"factor", "text", "value"}``, biggest first. The pages, the API and the digest all read them
back and word the chance here, so the three say the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class Explains(Protocol):
    """Anything shaped like a reason (``ranking.scoring.Reason``, :class:`Explanation`)."""

    @property
    def factor(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def value(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Explanation:
    """A stored reason, read back: where it comes from, its words, its signed contribution."""

    factor: str
    text: str
    value: float


def dump_reasons(reasons: Sequence[Explains]) -> str | None:
    """The reasons as stored, in their order; None when the scorer gave none."""
    if not reasons:
        return None
    rows = [{"factor": r.factor, "text": r.text, "value": r.value} for r in reasons]
    return json.dumps(rows, ensure_ascii=False)


def load_reasons(raw: str | None) -> list[Explanation]:
    """The stored reasons, in their stored order (none for items stored without them)."""
    if not raw:
        return []
    return [
        Explanation(str(row["factor"]), str(row["text"]), float(row["value"]))
        for row in json.loads(raw)
    ]


def helped(reasons: Sequence[Explanation], limit: int | None = None) -> list[Explanation]:
    """What a reader is told: only the factors that raised the paper, biggest first.

    A factor that held the paper back is not a reason it is there; the API keeps it, signed.
    """
    raised = sorted((r for r in reasons if r.value > 0), key=lambda r: -r.value)
    return raised if limit is None else raised[:limit]


def percent_words(chance: float) -> str:
    """A chance as a whole percent, and never a false 0% or 100% ("under 1%", "over 99%"):
    every page words a chance here, so a paper reads the same number wherever it appears."""
    percent = int(chance * 100 + 0.5)
    if percent < 1:
        return "under 1%"
    if percent > 99:
        return "over 99%"
    return f"{percent}%"


def chance_words(chance: float) -> str:
    """The model's chance as a reader reads it, "12% chance to be featured on Hugging Face"."""
    return f"{percent_words(chance)} chance to be featured on Hugging Face"


def given_words(chance: float) -> str:
    """The model's chance once the outcome is known: what Paperboy said, not an open bet."""
    return f"Paperboy gave it {percent_words(chance)} at announcement"


def content_chance_words(chance: float) -> str:
    """The content-only chance (text and topic, no authors' record, no votes) that the radar
    ranks by: named, as it differs from the model's chance a card shows."""
    return f"{percent_words(chance)} chance from its text and topic alone"


# The score's parts as a reader knows them; a part without words here keeps its own name.
PART_WORDS = {
    "prior": "The paper itself: its subject, code, project page, venue",
    "author_history": "Its authors' record on Hugging Face",
    "topic_momentum": "Its topic's momentum",
    "community": "Upvotes and votes since announcement",
    "team": "The size of its team",
    "code": "Public code",
    "momentum": "Its topic's momentum",
    "venue": "Accepted at a venue",
}
# The part that arrives after announcement: the chance is read without it.
AFTER_ANNOUNCEMENT = "community"


def part_words(name: str) -> str:
    """A score part's name in words ("author_history": "Its authors' record …")."""
    return PART_WORDS.get(name, name.replace("_", " ").capitalize())
