"""A pick's reason in words: the followed author or topic, or the trending place and what put
the paper there. The interest and liked-paper reasons need the selection's measures and stay
with it (``digest.selection``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from digest.selection import EditionPaper, Taste

# A liked paper's title is quoted up to this many characters.
TITLE_QUOTED = 90
# A trending pick's line quotes at most this many of the scorer's reasons.
REASONS_QUOTED = 2


def follow_reason(paper: EditionPaper, taste: Taste) -> str | None:
    """ "by Jane Doe, whom you follow" or the followed topic; None if the reader follows
    neither."""
    people = paper.author_people or (None,) * len(paper.authors)
    followed = [
        name
        for name, key, person in zip(paper.authors, paper.author_keys, people, strict=False)
        if key in taste.followed_authors or person in taste.followed_people
    ]
    if followed:
        return f"by {followed[0]}, whom you follow"
    if paper.topic_id is not None and paper.topic_id in taste.followed_topics:
        return f"in the topic you follow: {paper.topic_label or paper.topic_id}"
    return None


def organization_reason(paper: EditionPaper) -> str:
    """ "from ByteDance Seed, which you follow": the organization it was submitted under."""
    return f"from {paper.organization_name or paper.organization}, which you follow"


def trending_reason(paper: EditionPaper, index: int) -> str:
    return f"#{index + 1} trending{_trending_why(paper)}"


def quoted(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= TITLE_QUOTED else title[: TITLE_QUOTED - 1].rstrip() + "…"


def _trending_why(paper: EditionPaper) -> str:
    """The scorer's first reasons in words; a scorer that gives none names its top component."""
    if paper.reasons:
        return ": " + "; ".join(paper.reasons[:REASONS_QUOTED])
    return _strongest(paper.components)


def _strongest(components: dict[str, float]) -> str:
    """The component that added most, when one added anything: a signal that is zero (no
    upvote yet) or held the paper back is not what put it there."""
    if not components:
        return ""
    name = max(sorted(components), key=lambda key: components[key])
    if components[name] <= 0:
        return ""
    return f" (strongest signal: {name.replace('_', ' ')})"
