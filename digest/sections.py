"""A reader's digest in sections, chosen from the whole day (pure), and the reader's picks.

1. **Followed**: every paper of the day by an author the reader follows or in a topic they
   follow, whatever its trending rank and their categories (a follow is asked for by name),
   best ranked first, up to :data:`FOLLOWED_SHOWN`; how many of them no section holds is said.
2. **Organizations**: every paper of the day submitted to Hugging Face's daily page under an
   organization the reader follows that the first section does not hold, best ranked first,
   up to :data:`ORGANIZATIONS_SHOWN`; how many more there were is said.
3. **Lists**: for each published list the reader follows, the papers it gained since their
   last digest (a day, or a week: :mod:`digest.tastes`), whatever day they were announced,
   newest first, up to :data:`LIST_SHOWN` each and :data:`LISTS_SHOWN` in all; one section
   per list, "New on the list …"; then, for a reader who asked, the papers most commented on
   in that day or week that no section above holds, up to :data:`DISCUSSED_SHOWN` ("Discussed
   today").
4. **Searches**: for each search the reader saved (:mod:`accounts.saved_searches`),
   oldest first, what it finds among the edition's papers
   (:class:`digest.run_inputs.SearchMatches`), best match first, up to :data:`SEARCH_SHOWN`
   each and :data:`SEARCHES_SHOWN` in all, with its ``-word`` exclusions; one section per
   search, "New for …".
5. **For you**: :func:`digest.selection.select` over the rest of the day (the edition's papers
   first, then every other paper announced that day), up to the reader's number of items.
6. **Trending**: the edition's best papers the sections above left out, a few, so that a
   reader also sees what the crowd reads.

So a digest holds at most ``FOLLOWED_SHOWN + ORGANIZATIONS_SHOWN + LISTS_SHOWN +
SEARCHES_SHOWN + max_items + TRENDING_SHOWN`` papers, and says how many followed,
organizations' or searched papers it left out. No paper is in two sections; mutes and excluded
phrases hold in every section, categories in the last two (a follow or a saved search is asked
for by name).

One reader's picks of a day are the one selection the digest and the site's "For you" share:
the digest run and the web page both call :func:`reader_picks` with the edition as the
selection sees it (for a day edition, every paper announced that day) and the run's (or the
request's) tastes, so a reader sees on the site what their digest of that edition holds, in
the same sections and order and with the same reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy.orm import Session

from app.core.config import Settings
from digest.ledger import Reader
from digest.pick_reasons import follow_reason, organization_reason, trending_reason
from digest.selection import (
    Discussed,
    EditionPaper,
    EditionView,
    Pick,
    Section,
    Taste,
    eligible,
    follows,
    select,
)
from digest.tastes import Tastes
from search.excluded_words import mentions, split_query

# Enough for a prolific group's day; past it the mail says how many more there were.
FOLLOWED_SHOWN = 20
# An organization's day is a few papers; a reader following many big ones gets the best.
ORGANIZATIONS_SHOWN = 10
# Per saved search, and for all of a reader's searches together.
SEARCH_SHOWN = 5
SEARCHES_SHOWN = 15
TRENDING_SHOWN = 3
# Per followed list, and for all of them together.
LIST_SHOWN = 5
LISTS_SHOWN = 15
# The papers most talked about, for a reader who asked for them.
DISCUSSED_SHOWN = 5


@dataclass(frozen=True, slots=True)
class Sectioned:
    """The picks in section order (followed, organizations, searches, for you, trending) and
    how many followed papers past :data:`FOLLOWED_SHOWN` (or the organizations' past
    :data:`ORGANIZATIONS_SHOWN`) no section holds."""

    picks: list[Pick]
    followed_left_out: int = 0
    searched_left_out: int = 0
    organizations_left_out: int = 0

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
    organized = _organizations(view, taste, exclusion_cosine, frozenset(followed))
    shown += organized[:ORGANIZATIONS_SHOWN]
    followed_picks += [
        Pick(view.papers[i], organization_reason(view.papers[i]), Section.ORGANIZATIONS)
        for i in organized[:ORGANIZATIONS_SHOWN]
    ]
    listed = _listed(taste, {view.papers[i].arxiv_id for i in shown})
    on_lists = {pick.paper.arxiv_id for pick in listed}
    in_view = frozenset(i for i, paper in enumerate(view.papers) if paper.arxiv_id in on_lists)
    searched = _searched(view, taste, exclusion_cosine, frozenset(shown) | in_view)
    personal = select(
        view,
        taste,
        max_per_topic=max_per_topic,
        exclusion_cosine=exclusion_cosine,
        skip=frozenset(shown) | searched.shown | in_view,
    )
    taken = {view.papers[i].arxiv_id for i in [*shown, *searched.shown]} | on_lists
    taken |= {pick.paper.arxiv_id for pick in personal}
    trending = [
        Pick(view.papers[i], trending_reason(view.papers[i], i), Section.TRENDING)
        for i in _trending(view, taste, exclusion_cosine, taken)
    ]
    chosen = [replace(pick, section=Section.FOR_YOU) for pick in personal]
    return Sectioned(
        followed_picks + listed + searched.picks + chosen + trending,
        followed_left_out=sum(view.papers[i].arxiv_id not in taken for i in followed),
        searched_left_out=len(searched.found - {view.papers[i].arxiv_id for i in searched.shown}),
        organizations_left_out=sum(view.papers[i].arxiv_id not in taken for i in organized),
    )


def _listed(taste: Taste, taken: set[str]) -> list[Pick]:
    """Each followed list's new papers, one section a list, then the papers discussed; none
    twice."""
    picks: list[Pick] = []
    seen = set(taken) | taste.hidden
    for section in taste.listed:
        room = min(LIST_SHOWN, LISTS_SHOWN - len(picks))
        fresh = [paper for paper in section.papers if paper.arxiv_id not in seen][: max(room, 0)]
        seen.update(paper.arxiv_id for paper in fresh)
        reason = f"added to the list “{section.title}” that you follow"
        picks += [Pick(paper, reason, Section.LISTED, group=section.title) for paper in fresh]
    return picks + _discussed(taste.discussed, seen)


def _discussed(discussed: tuple[Discussed, ...], seen: set[str]) -> list[Pick]:
    fresh = [one for one in discussed if one.paper.arxiv_id not in seen][:DISCUSSED_SHOWN]
    said = "{} new comment{} in its discussion"
    return [
        Pick(one.paper, said.format(one.comments, "s" * (one.comments != 1)), Section.DISCUSSED)
        for one in fresh
    ]


@dataclass(frozen=True, slots=True)
class _Searched:
    picks: list[Pick]
    shown: frozenset[int]  # the view's indices of the picks
    found: frozenset[str]  # every paper the searches found and the reader may get


def _searched(
    view: EditionView, taste: Taste, exclusion_cosine: float, taken: frozenset[int]
) -> _Searched:
    """Each saved search's section, in the order the reader saved them."""
    if not taste.searches or view.matcher is None:
        return _Searched([], frozenset(), frozenset())
    allowed = eligible(view, taste, exclusion_cosine, by_category=False)
    position = {paper.arxiv_id: index for index, paper in enumerate(view.papers)}
    picks: list[Pick] = []
    shown, found = set(taken), set[str]()
    for saved in taste.searches:
        without = split_query(saved.query).without
        matched = [
            position[arxiv_id]
            for arxiv_id in view.matcher(saved)
            if arxiv_id in position and allowed[position[arxiv_id]]
        ]
        matched = [i for i in matched if not mentions(_text(view.papers[i]), without)]
        found.update(view.papers[i].arxiv_id for i in matched)
        room = min(SEARCH_SHOWN, SEARCHES_SHOWN - len(picks))
        fresh = [i for i in matched if i not in shown][: max(room, 0)]
        shown.update(fresh)
        reason = f"matches your search “{saved.label}”"
        picks += [
            Pick(view.papers[i], reason, section=Section.SEARCH, group=saved.label) for i in fresh
        ]
    return _Searched(picks, frozenset(shown - taken), frozenset(found))


def _text(paper: EditionPaper) -> str:
    return f"{paper.title}\n{paper.abstract}"


def _followed(view: EditionView, taste: Taste, exclusion_cosine: float) -> list[int]:
    if not (taste.followed_authors or taste.followed_topics or taste.followed_people):
        return []
    allowed = eligible(view, taste, exclusion_cosine, by_category=False)
    return [i for i in np.flatnonzero(allowed).tolist() if follows(view.papers[i], taste)]


def _organizations(
    view: EditionView, taste: Taste, exclusion_cosine: float, followed: frozenset[int]
) -> list[int]:
    """The papers of followed organizations the followed section does not hold, best first."""
    if not taste.followed_organizations:
        return []
    allowed = eligible(view, taste, exclusion_cosine, by_category=False)
    return [
        i
        for i in np.flatnonzero(allowed).tolist()
        if i not in followed and view.papers[i].organization in taste.followed_organizations
    ]


def _trending(
    view: EditionView, taste: Taste, exclusion_cosine: float, taken: set[str]
) -> list[int]:
    allowed = eligible(view, taste, exclusion_cosine)[: view.shown_size]
    free = [i for i in np.flatnonzero(allowed).tolist() if view.papers[i].arxiv_id not in taken]
    return free[:TRENDING_SHOWN]


def reader_picks(
    settings: Settings, session: Session, reader: Reader, view: EditionView, tastes: Tastes
) -> Sectioned:
    """The reader's picks of ``view`` in sections, each with why."""
    return sectioned_picks(
        view,
        tastes.of(session, reader),
        max_per_topic=settings.diversity_max_per_topic,
        exclusion_cosine=settings.digest_exclusion_cosine,
    )
