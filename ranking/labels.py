"""Topic labels that read as names: a short distinctive phrase first, then a few more (pure).

Each cluster is represented by its papers closest to its centroid (at most
``REPRESENTATIVES``: the core of a cluster names it best). A candidate phrase is a run of one
to three words between stop words, punctuation and *generic words*: the corpus's 300 most
document-frequent words (``generic_words.txt``, written by ``benchmarks/generic_words.py``),
which appear in so many abstracts ("model", "diffusion", "reasoning") that they name no topic.
A phrase scores by the share of the cluster's papers that use it times
log(1 + average papers per cluster / the papers using it across all clusters), so a phrase
common everywhere loses to one particular to a cluster.

A label is ``PHRASES_PER_LABEL`` phrases joined by commas. The first is the cluster's name:
the best phrase of two or three words when it scores at least ``NAME_SHARE`` of the best
single word, as "protein folding" says more than "protein". Names are handed out across the
clusters best score first, so no two topics of a day open with the same phrase. A phrase that
shares a word (singular or plural) with one already in the label is a near-duplicate and is
left out. Each phrase is written as the abstracts most often write it ("RAG", "Gaussian").

Given the embedding model (``meaning``), each cluster's best ``MEANING_CANDIDATES`` phrases are
ordered again by what the model reads in them: closeness to the cluster's centre plus its
margin over the closest other centre. Counts alone pick filler ("correctness depends") as
readily as subjects; the model knows "channel estimation" is about the wireless papers. The
figures, counts alone against by meaning, are in docs/benchmarks.md ("Topic labels").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from app.core.vectors import Matrix
from ranking.topics import Labels

PHRASES_PER_LABEL = 4
# A phrase's share of the cluster's papers counts more than its rarity elsewhere: a word two
# papers happen to use ("expanding") would otherwise beat the cluster's common subject.
SHARE_POWER = 1.5
# A phrase of two or three words names a subject better than one of its words alone.
LONG_PHRASE_WEIGHT = 2.0
# A spelling used at least this share as often as the commonest one may be chosen instead.
SPELLING_SHARE = 0.25
MAX_WORDS = 3
# How many of a cluster's counted phrases the model orders again (each is embedded once).
MEANING_CANDIDATES = 12
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
_LATEX = re.compile(r"\$[^$]*\$")
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


@cache
def generic_words() -> frozenset[str]:
    """The corpus's most document-frequent words (the first column of the data file)."""
    lines = GENERIC_WORDS_FILE.read_text().splitlines()
    return frozenset(line.split("\t")[0] for line in lines if line and not line.startswith("#"))


@cache
def _excluded() -> frozenset[str]:
    return generic_words() | frozenset(STOP_WORDS)


def _is_excluded(word: str) -> bool:
    # "videos" is as generic as "video": a plural of an excluded word is excluded too.
    return word in _excluded() or (word.endswith("s") and word[:-1] in _excluded())


def representatives(vectors: Matrix, labels: Labels, centres: Matrix) -> Labels:
    """Labels kept only for each cluster's ``REPRESENTATIVES`` papers closest to its centre."""
    result = np.full(len(labels), -1, dtype=np.intp)
    for number, centre in enumerate(centres):
        members = np.flatnonzero(labels == number)
        closest = members[np.argsort(-(vectors[members] @ centre), kind="stable")]
        result[closest[:REPRESENTATIVES]] = number
    return result


@dataclass(frozen=True, slots=True)
class _Counts:
    """How many papers of each cluster use each phrase, and how the abstracts write it."""

    papers: dict[str, Counter[int]]
    sizes: Counter[int]
    spellings: dict[str, Counter[str]]


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
    return [
        _label(name, phrases, counts.spellings) for name, phrases in zip(names, ranked, strict=True)
    ]


def _count(texts: Sequence[str], labels: Labels) -> _Counts:
    papers: dict[str, Counter[int]] = defaultdict(Counter)
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for index in np.flatnonzero(labels >= 0):
        number = int(labels[index])
        found = _phrases(texts[int(index)][:LABEL_TEXT_CHARACTERS])
        for phrase in {written.lower() for written in found}:
            papers[phrase][number] += 1
        for written in found:
            spellings[written.lower()][written] += 1
    sizes = Counter(int(n) for n in labels if n >= 0)
    return _Counts(papers, sizes, spellings)


def _phrases(text: str) -> list[str]:
    """Every run of one to ``MAX_WORDS`` words inside the runs of non-excluded words."""
    found: list[str] = []
    run: list[str] = []
    for token in [*_TOKEN.findall(_LATEX.sub(" . ", text)), "."]:
        if re.fullmatch(WORD, token) and not _is_excluded(token.lower()):
            run.append(token)
            continue
        for start in range(len(run)):
            for end in range(start + 1, min(start + MAX_WORDS, len(run)) + 1):
                found.append(" ".join(run[start:end]))
        run = []
    return found


def _ranked(counts: _Counts, number: int) -> list[tuple[str, float]]:
    """The cluster's phrases used by at least two of its papers, best first, with scores."""
    average = sum(counts.sizes.values()) / max(len(counts.sizes), 1)
    size = counts.sizes[number]
    scored = [
        (phrase, _score(phrase, by_cluster[number] / size, average / sum(by_cluster.values())))
        for phrase, by_cluster in counts.papers.items()
        if by_cluster[number] >= 2
    ]
    return sorted(scored, key=lambda item: (-item[1], item[0]))


def _by_meaning(
    ranked: list[list[tuple[str, float]]], meaning: Meaning
) -> list[list[tuple[str, float]]]:
    """Each cluster's best phrases, ordered by closeness to its centre plus the margin over the
    closest other centre (the counted score breaks ties)."""
    best = [phrases[:MEANING_CANDIDATES] for phrases in ranked]
    candidates = sorted({phrase for phrases in best for phrase, _ in phrases})
    if not candidates:
        return ranked
    row = {phrase: index for index, phrase in enumerate(candidates)}
    similarity = meaning.encode(candidates) @ meaning.centres.T
    result = []
    for number, phrases in enumerate(best):
        scored = []
        for phrase, counted in phrases:
            own = similarity[row[phrase]]
            rival = float(np.delete(own, number).max()) if len(own) > 1 else 0.0
            scored.append((phrase, 2 * float(own[number]) - rival + COUNT_TIE_BREAK * counted))
        result.append(sorted(scored, key=lambda item: (-item[1], item[0])))
    return result


def _score(phrase: str, share: float, rarity: float) -> float:
    weight = LONG_PHRASE_WEIGHT if " " in phrase else 1.0
    return float(weight * share**SHARE_POWER * np.log1p(rarity))


def _names(ranked: list[list[tuple[str, float]]]) -> list[str | None]:
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


def _name_offers(phrases: list[tuple[str, float]]) -> list[tuple[str, tuple[float, float]]]:
    """What a cluster may open with: a long enough phrase offers the best word's score first."""
    if not phrases:
        return []
    best = phrases[0][1]
    return [
        (phrase, (best, score) if " " in phrase and score >= NAME_SHARE * best else (score, 0.0))
        for phrase, score in phrases[: PHRASES_PER_LABEL * 4]
    ]


def _label(
    name: str | None, phrases: list[tuple[str, float]], spellings: dict[str, Counter[str]]
) -> str:
    chosen = [name] if name else []
    for phrase, _ in phrases:
        if len(chosen) == PHRASES_PER_LABEL:
            break
        if not any(_stems(phrase) & _stems(other) for other in chosen):
            chosen.append(phrase)
    return ", ".join(_spelling(spellings[phrase]) for phrase in chosen)


def _spelling(spellings: Counter[str]) -> str:
    """The plainest common spelling: "referring" over a title's "Referring", but "RAG" kept."""
    most = spellings.most_common(1)[0][1]
    common = [written for written, times in spellings.items() if times >= SPELLING_SHARE * most]
    return min(common, key=lambda written: (sum(c.isupper() for c in written), -spellings[written]))


def _stems(phrase: str) -> set[str]:
    return {word[:-1] if word.endswith("s") and len(word) > 3 else word for word in phrase.split()}
