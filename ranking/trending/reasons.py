"""Why a paper ranks where it does, in a reader's words (pure).

Each component of the score is compared with the day's typical paper (the pool's median of
that component); a component that raises the paper above it by at least ``MIN_LIFT`` is a
reason, said with the facts behind it ("3 of its authors had papers featured before", "its
topic grew 2.4 times this week", "42 upvotes on Hugging Face so far"), the biggest lift first. A
component that did not help is never called a reason; the API keeps every signed component
as numbers beside the words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate, Reason
from ranking.trending.features import FEATURE_INDEX

MIN_LIFT = 0.05  # in score units: smaller lifts are noise, not reasons
GROWTH_WORTH_SAYING = 1.5


def reasons(
    candidates: Sequence[Candidate],
    features: NDArray[np.float64],
    components: Mapping[str, NDArray[np.float64]],
    community_counts: Mapping[str, Mapping[str, float]],
) -> list[tuple[Reason, ...]]:
    """For each candidate, the components that lift it above the day's median, in words."""
    typical = {name: float(np.median(values)) for name, values in components.items()}
    found: list[tuple[Reason, ...]] = []
    for row, paper in enumerate(candidates):
        lifts = {name: float(values[row]) - typical[name] for name, values in components.items()}
        said = [
            Reason(name, text, round(lift, 4))
            for name, lift in sorted(lifts.items(), key=lambda item: -item[1])
            if lift >= MIN_LIFT
            for text in [_words(name, paper, features[row], community_counts)]
            if text
        ]
        found.append(tuple(said))
    return found


def _words(
    component: str,
    paper: Candidate,
    row: NDArray[np.float64],
    community_counts: Mapping[str, Mapping[str, float]],
) -> str:
    if component == "author_history":
        return _history_words(paper, row)
    if component == "topic_momentum":
        return _topic_words(row)
    if component == "community":
        return community_words(community_counts.get(paper.arxiv_id, {}))
    if component == "prior":
        return _prior_words(paper, row)
    return ""


def _value(row: NDArray[np.float64], name: str) -> float:
    return float(row[FEATURE_INDEX[name]])


def _count(row: NDArray[np.float64], name: str) -> int:
    """A feature stored as log(1 + n), back to n."""
    return round(math.expm1(_value(row, name)))


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _history_words(paper: Candidate, row: NDArray[np.float64]) -> str:
    team = _count(row, "team_featured")
    if team:
        return f"its team had {_plural(team, 'paper', 'papers')} featured on Hugging Face before"
    authors = round(_value(row, "hist_featured_share") * len(paper.authors))
    if authors:
        return f"{authors} of its authors had papers featured before"
    return "its authors' earlier papers were well received"


def _topic_words(row: NDArray[np.float64]) -> str:
    growth = math.exp(_value(row, "topic_momentum"))
    if growth >= GROWTH_WORTH_SAYING:
        return f"its topic grew {growth:.1f}\N{MULTIPLICATION SIGN} this week"
    share = _value(row, "topic_featured_share")
    if share > 0:
        return f"{share:.0%} of the closest recent papers were featured"
    return "papers close to it were featured recently"


def community_words(counts: Mapping[str, float]) -> str:
    parts = []
    upvotes, votes = round(counts.get("hf_upvotes", 0)), round(counts.get("paperboy_votes", 0))
    if upvotes:
        parts.append(f"{_plural(upvotes, 'upvote', 'upvotes')} on Hugging Face so far")
    if votes:
        parts.append(f"{_plural(votes, 'vote', 'votes')} on Paperboy")
    return " and ".join(parts)


def _prior_words(paper: Candidate, row: NDArray[np.float64]) -> str:
    facts = []
    if _value(row, "has_code"):
        facts.append("its code is public")
    if _value(row, "has_project_page"):
        facts.append("it has a project page")
    if _value(row, "accepted"):
        facts.append("it was accepted at a venue")
    if _value(row, "tech_report"):
        facts.append("it is a technical report")
    if len(paper.authors) >= 10:
        facts.append(f"a team of {len(paper.authors)} authors wrote it")
    if not facts:
        return "its subject is one Hugging Face readers follow"
    # One reason, so one clause: "its code is public, it has a project page and …".
    return facts[0] if len(facts) == 1 else f"{', '.join(facts[:-1])} and {facts[-1]}"
