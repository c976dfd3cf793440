"""Topic labels that read as names: a short distinctive phrase first, then a few more (pure).

Each cluster is represented by its papers closest to its centroid (at most
``REPRESENTATIVES``: the core of a cluster names it best). A candidate phrase is a run of one
to three words between stop words, boilerplate, adverbs, TeX commands and punctuation. It is
a candidate only when it usually ends a noun phrase: a word that mostly describes the next
("unsafe content", "retrieval-augmented generation") names nothing alone. *Generic words*,
the corpus's 300 most document-frequent (``generic_words.txt``, written by
``benchmarks/generic_words.py``: "video", "diffusion", "reasoning"), may be part of a longer
phrase ("video generation") or follow a label's name, but never name a topic alone. A phrase
scores by the share of the cluster's papers that use it, to the power ``SHARE_POWER`` (the
phrases a topic's papers share are the ones readers and Hugging Face's keywords use), times
log(1 + average papers per cluster / the papers using it across all clusters), so a phrase
common everywhere loses to one particular to a cluster, times the share of papers that put it in
their title (:mod:`ranking.title_phrases`): a title names a subject, so "anomaly detection"
outscores "promising direction" even where as many papers use both.

A label is ``PHRASES_PER_LABEL`` phrases joined by commas. The first is the cluster's name:
the best phrase of two or three words when it scores at least ``NAME_SHARE`` of the best
single word, as "protein folding" says more than "protein". Names are handed out across the
clusters best score first, so no two topics of a day open with the same phrase. A phrase that
shares a word (singular or plural) with one already in the label is a near-duplicate and is
left out. Each phrase is written as the abstracts most often write it ("RAG", "Gaussian").

Given the embedding model (``meaning``), each cluster's best ``MEANING_CANDIDATES`` phrases are
ordered again by what the model reads in them: closeness to the cluster's centre plus its
margin over the closest other centre, plus the log of the phrase's share of the cluster's
papers (weighed by ``SHARE_WEIGHT``), less a penalty for a phrase authors seldom put in a
title (``TITLE_WEIGHT``). Counts alone pick filler ("correctness depends") as
readily as subjects; the model knows "channel estimation" is about the wireless papers, but
alone it also prefers a precise phrase two papers use to the subject most of them share. The
figures (against Hugging Face's keywords, KeyBERT and the old labels) are in
docs/benchmarks.md ("Topic labels").
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from app.core.vectors import Matrix
from ranking.phrase_counts import IN_PHRASE, MAX_WORDS, NOUN, STOP, PhraseCounts, count_phrases
from ranking.title_phrases import TYPICAL_TITLE_SHARE, title_share
from ranking.topics import Labels

PHRASES_PER_LABEL = 4
# A phrase's share of the cluster's papers counts more than its rarity elsewhere: a word two
# papers happen to use ("expanding") would otherwise beat the cluster's common subject.
SHARE_POWER = 5.0
# A phrase of two or three words names a subject better than one of its words alone.
LONG_PHRASE_WEIGHT = 2.0
# A spelling used at least this share as often as the commonest one may be chosen instead.
SPELLING_SHARE = 0.25
# How many of a cluster's counted phrases the model orders again (each is embedded once).
MEANING_CANDIDATES = 12
# By meaning, a phrase few of the cluster's papers use still loses to one most of them use: the
# log of its share counts this much beside the model's closeness and margin.
SHARE_WEIGHT = 0.2
# By meaning, a phrase authors seldom put in their titles (below ``FEW_IN_TITLES`` of the
# typical share) loses this much per unit of log share: titles name subjects, not filler.
TITLE_WEIGHT = 0.3
FEW_IN_TITLES = float(np.exp(-0.5))
# The counted score only breaks near-ties of meaning.
COUNT_TIE_BREAK = 1e-3
REPRESENTATIVES = 30
# A two- or three-word name is kept first if it scores at least this share of the best word.
NAME_SHARE = 0.5
# The opening of an abstract says what it is about; counting the rest costs more than it adds.
LABEL_TEXT_CHARACTERS = 600
# A word starts with a letter: numbers and "x2" make poor labels.
WORD = r"(?u)\b[a-zA-Z][a-zA-Z0-9-]+\b"
GENERIC_WORDS_FILE = Path(__file__).with_name("generic_words.txt")
_TOKEN = re.compile(WORD + r"|[^\sA-Za-z]")
# Math between dollars, and TeX commands ("\\textit{...}"): never part of a phrase.
_TEX = re.compile(r"\$[^$]*\$|\\[A-Za-z]+")
_BOILERPLATE_WORDS = """
paper propose proposed proposes method methods approach approaches result results
show shows demonstrate demonstrates based performance state art existing novel work
works using use used new framework experiments experimental extensive achieve
achieves significant significantly outperforms code available github com https http
www introduce introduces present presents study task tasks problem problems benchmark
benchmarks effective effectively improve improves improved improving recent recently
various different including leverage leverages leveraging enable enables key
challenge challenges address furthermore moreover remains critical crucial model
models
"""
# Words every abstract uses: they name no topic.
BOILERPLATE = frozenset(_BOILERPLATE_WORDS.split())
STOP_WORDS = sorted(ENGLISH_STOP_WORDS | BOILERPLATE)
_STOPS = frozenset(STOP_WORDS)
_BOILERPLATE_NOUNS = frozenset(["model", "framework", "method", "approach", "benchmark", "task"])
# Words ending in "ly" are adverbs ("increasingly", "poorly") but for these nouns.
_LY_NOUNS = frozenset(
    ["anomaly", "family", "assembly", "supply", "reply", "poly", "monopoly", "butterfly", "italy"]
)
# A phrase names something when it ends a noun phrase: at least this share of its uses end
# where the run of words does, not before another word it describes ("unsafe content").
HEAD_SHARE = 1 / 3


@cache
def generic_words() -> frozenset[str]:
    """The corpus's most document-frequent words (the first column of the data file)."""
    lines = GENERIC_WORDS_FILE.read_text().splitlines()
    return frozenset(line.split("\t")[0] for line in lines if line and not line.startswith("#"))


class _Word(enum.Enum):
    """What a word of a text is to a phrase."""

    KEPT = enum.auto()
    # Generic: part of a longer phrase ("video generation"), never a name alone.
    GENERIC = enum.auto()
    # A stop word, boilerplate or an adverb: the phrase before it is whole.
    STOP = enum.auto()
    # A boilerplate noun: never in a phrase, but the phrase before it describes it ("large
    # language" in "large language models").
    NOUN = enum.auto()


def _kind(word: str) -> _Word:
    # "videos" is as generic as "video": a plural of an excluded word is excluded too.
    singular = word[:-1] if word.endswith("s") else word
    if singular in _BOILERPLATE_NOUNS:
        return _Word.NOUN
    if word in _STOPS or singular in _STOPS or _is_adverb(word):
        return _Word.STOP
    if word in generic_words() or singular in generic_words():
        return _Word.GENERIC
    return _Word.KEPT


def _is_adverb(word: str) -> bool:
    return word.endswith("ly") and word not in _LY_NOUNS


def representatives(vectors: Matrix, labels: Labels, centres: Matrix) -> Labels:
    """Labels kept only for each cluster's ``REPRESENTATIVES`` papers closest to its centre."""
    result = np.full(len(labels), -1, dtype=np.intp)
    for number, centre in enumerate(centres):
        members = np.flatnonzero(labels == number)
        closest = members[np.argsort(-(vectors[members] @ centre), kind="stable")]
        result[closest[:REPRESENTATIVES]] = number
    return result


Encode = Callable[[Sequence[str]], Matrix]


@dataclass(frozen=True, slots=True)
class Meaning:
    """The embedding model and the clusters' unit centres (row n: cluster n)."""

    encode: Encode
    centres: Matrix


def label_clusters(
    texts: Sequence[str], labels: Labels, meaning: Meaning | None = None
) -> list[str]:
    """One label per cluster number 0..k-1, from the texts labelled with it (-1: ignored)."""
    count = int(labels.max()) + 1 if len(labels) else 0
    if count <= 0:
        return []
    counts = _count(texts, labels)
    ranked = [_ranked(counts, number) for number in range(count)]
    if meaning is not None and count == len(meaning.centres):
        ranked = _by_meaning(ranked, meaning)
    names = _names(ranked)
    labels_chosen = [_chosen(name, phrases) for name, phrases in zip(names, ranked, strict=True)]
    spellings = counts.spellings({p for chosen in labels_chosen for p in chosen})
    return [", ".join(_spelling(spellings[p]) for p in chosen) for chosen in labels_chosen]


def _count(texts: Sequence[str], labels: Labels) -> PhraseCounts:
    """The phrases of the texts labelled with a cluster (the others are not read)."""
    chosen = np.flatnonzero(labels >= 0)
    tokens = [
        _TOKEN.findall(_TEX.sub(" . ", texts[int(i)][:LABEL_TEXT_CHARACTERS])) for i in chosen
    ]
    return count_phrases(tokens, [int(labels[i]) for i in chosen], _role, HEAD_SHARE)


def phrases_of(text: str) -> set[str]:
    """Every phrase of one to three words the labeller may count in ``text``, lowercase."""
    found: set[str] = set()
    run: list[str] = []
    for token in [*_TOKEN.findall(_TEX.sub(" . ", text.lower())), "."]:
        if len(token) > 1 and _role(token) == IN_PHRASE:
            run.append(token)
            continue
        for start in range(len(run)):
            for size in range(1, MAX_WORDS + 1):
                if start + size <= len(run):
                    found.add(" ".join(run[start : start + size]))
        run = []
    return found


def _role(word: str) -> int:
    kind = _kind(word)
    if kind is _Word.KEPT or kind is _Word.GENERIC:
        return IN_PHRASE
    return NOUN if kind is _Word.NOUN else STOP


class _Phrase(NamedTuple):
    """A cluster's phrase, its score and the share of the cluster's papers that use it."""

    text: str
    score: float
    share: float


def _ranked(counts: PhraseCounts, number: int) -> list[_Phrase]:
    """The cluster's phrases used by at least two of its papers, best first."""
    size, average = counts.sizes[number], counts.average
    scored = [
        _Phrase(phrase, _score(phrase, used / size, average / papers), used / size)
        for phrase, used, papers in counts.shared(number, 2)
    ]
    return _best_first(scored)


def _best_first(phrases: list[_Phrase]) -> list[_Phrase]:
    return sorted(phrases, key=lambda phrase: (-phrase.score, phrase.text))


def _by_meaning(ranked: list[list[_Phrase]], meaning: Meaning) -> list[list[_Phrase]]:
    """Each cluster's best phrases, ordered by closeness to its centre plus the margin over the
    closest other centre, with the log of their share (the counted score breaks ties)."""
    best = [_candidates(phrases) for phrases in ranked]
    candidates = sorted({phrase.text for phrases in best for phrase in phrases})
    if not candidates:
        return ranked
    row = {phrase: index for index, phrase in enumerate(candidates)}
    similarity = meaning.encode(candidates) @ meaning.centres.T
    rivals = _Rivals(similarity)
    result = []
    for number, phrases in enumerate(best):
        scored = []
        for phrase in phrases:
            index = row[phrase.text]
            own = float(similarity[index, number])
            closeness = 2 * own - rivals.of(index, number) + SHARE_WEIGHT * np.log(phrase.share)
            closeness += TITLE_WEIGHT * _seldom_in_titles(phrase.text)
            scored.append(phrase._replace(score=closeness + COUNT_TIE_BREAK * phrase.score))
        result.append(_best_first(scored))
    return result


class _Rivals:
    """Each phrase's closeness to the closest centre but one: its two closest, found once."""

    def __init__(self, similarity: Matrix) -> None:
        self._closest = similarity.argmax(axis=1)
        ordered = np.sort(similarity, axis=1)
        self._first = ordered[:, -1]
        self._second = ordered[:, -2] if similarity.shape[1] > 1 else np.zeros(len(similarity))

    def of(self, index: int, number: int) -> float:
        """The closeness of phrase ``index`` to the closest centre other than ``number``'s."""
        if self._closest[index] != number:
            return float(self._first[index])
        return float(self._second[index])


def _candidates(phrases: list[_Phrase]) -> list[_Phrase]:
    """The best ``MEANING_CANDIDATES`` phrases, and the best that may name the topic if none of
    them may."""
    best = phrases[:MEANING_CANDIDATES]
    if any(_may_name(phrase.text) for phrase in best):
        return best
    namer = next((p for p in phrases[MEANING_CANDIDATES:] if _may_name(p.text)), None)
    return best if namer is None else [*best, namer]


def _seldom_in_titles(phrase: str) -> float:
    """The log of how far a phrase's title share falls short of the share it should reach: a
    negative number, or 0 when it reaches it."""
    return min(float(np.log(title_share(phrase) / (FEW_IN_TITLES * TYPICAL_TITLE_SHARE))), 0.0)


def _score(phrase: str, share: float, rarity: float) -> float:
    """A counted score: the cluster's papers using the phrase, its rarity elsewhere, and the
    share of papers that put it in their title."""
    weight = LONG_PHRASE_WEIGHT if " " in phrase else 1.0
    return float(weight * title_share(phrase) * share**SHARE_POWER * np.log1p(rarity))


def _names(ranked: list[list[_Phrase]]) -> list[str | None]:
    """Each cluster's first phrase, handed out best offer first so that no two are the same."""
    offers = [
        (offer, number, phrase)
        for number, phrases in enumerate(ranked)
        for phrase, offer in _name_offers(phrases)
    ]
    names: list[str | None] = [None] * len(ranked)
    taken: set[str] = set()
    for _, number, phrase in sorted(offers, key=lambda one: (-one[0][0], -one[0][1], one[1:])):
        if names[number] is None and phrase not in taken:
            names[number] = phrase
            taken.add(phrase)
    return names


def _name_offers(phrases: list[_Phrase]) -> list[tuple[str, tuple[float, float]]]:
    """What a cluster may open with: a long enough phrase offers the best word's score first."""
    if not phrases:
        return []
    best = phrases[0].score
    return [
        (text, (best, score) if " " in text and score >= NAME_SHARE * best else (score, 0.0))
        for text, score, _ in phrases[: PHRASES_PER_LABEL * 4]
        if _may_name(text)
    ]


def _may_name(phrase: str) -> bool:
    """A generic word alone may follow a name, never be one."""
    return " " in phrase or _kind(phrase) is not _Word.GENERIC


def _chosen(name: str | None, phrases: list[_Phrase]) -> list[str]:
    """The label's phrases: its name, then the best that share no word with one chosen."""
    chosen = [name] if name else []
    for phrase in phrases:
        if len(chosen) == PHRASES_PER_LABEL:
            break
        if not chosen and not _may_name(phrase.text):
            continue
        if not any(_stems(phrase.text) & _stems(other) for other in chosen):
            chosen.append(phrase.text)
    return chosen


def _spelling(spellings: Counter[str]) -> str:
    """The plainest common spelling: "referring" over a title's "Referring", but "RAG" kept."""
    most = spellings.most_common(1)[0][1]
    common = [written for written, times in spellings.items() if times >= SPELLING_SHARE * most]
    return min(common, key=lambda written: (sum(c.isupper() for c in written), -spellings[written]))


def _stems(phrase: str) -> set[str]:
    return {word[:-1] if word.endswith("s") and len(word) > 3 else word for word in phrase.split()}
