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


def chance_words(chance: float) -> str:
    """The chance as a reader reads it, "12% chance to be featured on Hugging Face": a whole
    percent, and never a false 0% or 100% ("under 1%", "over 99%")."""
    percent = int(chance * 100 + 0.5)
    if percent < 1:
        amount = "under 1%"
    elif percent > 99:
        amount = "over 99%"
    else:
        amount = f"{percent}%"
    return f"{amount} chance to be featured on Hugging Face"
