"""A paper's own key phrases from its title and abstract (pure; RAKE, Rose et al. 2010), and
the new ones among a subject's recent papers.

The API's ``ai_keywords`` carries Hugging Face's keywords when HF had the paper; for every
other paper Paperboy names its own. RAKE needs no corpus: the text is cut at stop words and
punctuation into candidate phrases, each word scores its degree (how many words it shares
phrases with) over its frequency, and a phrase scores the sum of its words. Phrases of the
title count double, because the title says what the paper is about, and a phrase said again
counts once more each time. The stop list is the topic labeller's (``ranking.labels``):
English stop words and the boilerplate of abstracts. Abstracts open phrases with verbs
("producing", "refined"): a leading word ending in -ing or -ed is cut, as a verb that starts
a run is a verb and not a name.

New phrases (:func:`new_phrases`) are those a subject's recent papers name that no earlier
paper of the window used. Candidates are the recent papers' own key phrases of two words or
more: one word alone is rarely new to a field, and one never seen before is mostly a name. A
candidate held as whole words by at least ``min_papers`` of the recent papers is new when none
of the earlier texts holds it. Texts are indexed by word once, so a phrase is only looked for
in the texts that hold all its words.
"""

from __future__ import annotations

import re
import string
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import cache, lru_cache

MAX_PHRASES = 6
MAX_WORDS = 3
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]|[A-Za-z]|[^\sA-Za-z]")
_LETTERS = frozenset(string.ascii_letters)
_VERB_ENDINGS = ("ing", "ed")
_LATEX = re.compile(r"\$[^$]*\$")


def key_phrases(title: str, abstract: str, limit: int = MAX_PHRASES) -> list[str]:
    """Up to ``limit`` phrases of one to three words, most telling first, each said once."""
    return list(_key_phrases(title, abstract, limit))


# The API names the same papers again and again (a day's edition, popular search results).
@lru_cache(maxsize=4096)
def _key_phrases(title: str, abstract: str, limit: int) -> tuple[str, ...]:
    title_phrases = _candidates(title)
    phrases = title_phrases + _candidates(abstract)
    scores = _word_scores(phrases)
    in_title, said = set(title_phrases), Counter(phrases)
    ranked: dict[str, float] = {}
    for phrase, times in said.items():
        weight = sum(scores[word] for word in phrase) * (2.0 if phrase in in_title else 1.0)
        ranked[" ".join(phrase)] = weight * times
    ordered = sorted(ranked, key=lambda text: (-ranked[text], text))
    return tuple(_distinct(ordered, limit))


def _candidates(text: str) -> list[tuple[str, ...]]:
    """Runs of content words between stop words and punctuation, at most ``MAX_WORDS`` long."""
    runs: list[tuple[str, ...]] = []
    current: list[str] = []
    stop_words = _stop_words()
    for token in _TOKEN.findall(_LATEX.sub(" . ", text)):
        # A token that starts with a letter is a word (_TOKEN's first two forms), all ASCII.
        if token[0] in _LETTERS and len(token) > 2:
            word = token.lower()
            if word not in stop_words:
                current.append(word)
                continue
        if current:
            _close(current, runs)
            current = []
    _close(current, runs)
    return runs


def load_stop_words() -> None:
    """Read the stop list now (a web process before it says ready), not on the first use."""
    _stop_words()


@cache
def _stop_words() -> frozenset[str]:
    # Read on first use: ranking.labels imports scikit-learn, which would add about a second
    # to the web app's start-up (the API is this module's caller).
    from ranking.labels import STOP_WORDS

    return frozenset(STOP_WORDS)


def _close(current: list[str], runs: list[tuple[str, ...]]) -> None:
    words = current[1:] if len(current) > 1 and current[0].endswith(_VERB_ENDINGS) else current
    if 0 < len(words) <= MAX_WORDS:
        runs.append(tuple(words))


def _word_scores(phrases: list[tuple[str, ...]]) -> dict[str, float]:
    frequency: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for phrase in phrases:
        for word in phrase:
            frequency[word] += 1
            degree[word] += len(phrase)
    return {word: degree[word] / frequency[word] for word in frequency}


def _distinct(phrases: list[str], limit: int) -> list[str]:
    """The first ``limit`` phrases, dropping one whose words all appear in one kept before."""
    kept: list[str] = []
    kept_words: list[set[str]] = []
    for phrase in phrases:
        if len(kept) == limit:
            break
        words = set(phrase.split())
        if not any(words <= other for other in kept_words):
            kept.append(phrase)
            kept_words.append(words)
    return kept


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
