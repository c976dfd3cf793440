"""Phrases a subject's recent papers name that no earlier paper of the window used (pure).

Candidates are the recent papers' own key phrases (``ranking.keyphrases``) of two words or
more: one word alone is rarely new to a field, and one never seen before is mostly a name. A
candidate held as whole words by at least ``min_papers`` of the recent papers is new when none
of the earlier texts holds it. Texts are indexed by word once, so a phrase is only looked for
in the texts that hold all its words.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from ranking.keyphrases import key_phrases

_WORD = re.compile(r"[a-z0-9][a-z0-9-]*")


def words_of(text: str) -> str:
    """The text's words, lowercased, one space apart."""
    return " ".join(_WORD.findall(text.lower()))


class IndexedTexts:
    """Texts, lowercased and indexed by word, that can say which of them hold a phrase."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = [f" {words_of(text)} " for text in texts]
        self._holding: dict[str, set[int]] = defaultdict(set)
        for index, text in enumerate(self._texts):
            for word in set(text.split()):
                self._holding[word].add(index)

    def holding(self, phrase: str) -> set[int]:
        """The texts that hold ``phrase`` (already in :func:`words_of` form) as whole words."""
        words = phrase.split()
        if not words:
            return set()
        common = set.intersection(*(self._holding.get(word, set()) for word in words))
        if len(words) == 1:
            return common
        padded = f" {phrase} "
        return {index for index in common if padded in self._texts[index]}


def new_phrases(
    recent: Sequence[tuple[str, str]],
    earlier: IndexedTexts,
    *,
    min_papers: int = 2,
    limit: int = 5,
) -> list[str]:
    """Up to ``limit`` new phrases of the ``(title, abstract)`` pairs, held by most first."""
    candidates = {words_of(p) for title, abstract in recent for p in key_phrases(title, abstract)}
    texts = IndexedTexts([f"{title}. {abstract}" for title, abstract in recent])
    held = {phrase: len(texts.holding(phrase)) for phrase in candidates if " " in phrase}
    ordered = sorted(
        (phrase for phrase, papers in held.items() if papers >= min_papers),
        key=lambda phrase: (-held[phrase], -len(phrase.split()), phrase),
    )
    found: list[str] = []
    for phrase in ordered:
        if len(found) == limit:
            break
        if not earlier.holding(phrase):
            found.append(phrase)
    return found
