"""A reader's digest in sections, chosen from the whole day (pure).

1. **Followed**: every paper of the day by an author the reader follows or in a topic they
   follow, whatever its trending rank and their categories (a follow is asked for by name),
   best ranked first, up to :data:`FOLLOWED_SHOWN`; how many of them no section holds is said.
2. **For you**: :func:`digest.selection.select` over the rest of the day (the edition's papers
   first, then every other paper announced that day), up to the reader's number of items.
3. **Trending**: the edition's best papers the two sections above left out, a few, so that a
   reader also sees what the crowd reads.

No paper is in two sections; mutes and excluded phrases hold in every section, categories in
the last two.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from digest.selection import (
    EditionView,
    Pick,
    Section,
    Taste,
    eligible,
    follow_reason,
    follows,
    select,
    trending_reason,
)

# Enough for a prolific group's day; past it the mail says how many more there were.
FOLLOWED_SHOWN = 20
TRENDING_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Sectioned:
    """The picks in section order (followed, for you, trending) and how many followed papers
    past :data:`FOLLOWED_SHOWN` no section holds."""

    picks: list[Pick]
    followed_left_out: int = 0

    def __len__(self) -> int:
        return len(self.picks)


def sectioned_picks(
    view: EditionView, taste: Taste, *, max_per_topic: int, exclusion_cosine: float
) -> Sectioned:
    """The reader's digest of ``view`` in sections (see the module's docstring)."""
    followed = _followed(view, taste, exclusion_cosine)
    shown = followed[:FOLLOWED_SHOWN]
    followed_picks = [
        Pick(view.papers[i], follow_reason(view.papers[i], taste) or "", Section.FOLLOWED)
        for i in shown
    ]
    personal = select(
        view,
        taste,
        max_per_topic=max_per_topic,
        exclusion_cosine=exclusion_cosine,
        skip=frozenset(shown),
    )
    taken = {view.papers[i].arxiv_id for i in shown} | {pick.paper.arxiv_id for pick in personal}
    trending = [
        Pick(view.papers[i], trending_reason(view.papers[i], i), Section.TRENDING)
        for i in _trending(view, taste, exclusion_cosine, taken)
    ]
    return Sectioned(
        followed_picks + [replace(pick, section=Section.FOR_YOU) for pick in personal] + trending,
        followed_left_out=sum(view.papers[i].arxiv_id not in taken for i in followed),
    )


def _followed(view: EditionView, taste: Taste, exclusion_cosine: float) -> list[int]:
    if not (taste.followed_authors or taste.followed_topics):
        return []
    allowed = eligible(view, taste, exclusion_cosine, by_category=False)
    return [i for i in np.flatnonzero(allowed).tolist() if follows(view.papers[i], taste)]


def _trending(
    view: EditionView, taste: Taste, exclusion_cosine: float, taken: set[str]
) -> list[int]:
    allowed = eligible(view, taste, exclusion_cosine)[: view.shown_size]
    free = [i for i in np.flatnonzero(allowed).tolist() if view.papers[i].arxiv_id not in taken]
    return free[:TRENDING_SHOWN]
