"""How many papers of each cluster use each phrase, counted on integer codes (pure).

The topic labeller (:mod:`ranking.labels`) reads each representative paper's opening as tokens
and gives each word a role: inside a phrase, a stop that ends the phrase before it, or a noun
the phrase before it describes. A *run* is a stretch of words inside phrases; its phrases are
its runs of one to three words, and those that reach the run's end *end a noun phrase* when a
stop or a mark comes next. The labeller needs, for every phrase (lowercase): how many papers
of each cluster use it, how many papers in all, how often it is used and how often it ends a
noun phrase; and how each is written where it has a capital.

A day's window yields a great many phrase uses. Each word is numbered once and each
phrase is a number made of its words' numbers, so the counting is array sorting; only the
phrases a label may use are ever spelled out as strings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

# A word's role in a phrase (single characters and a text's end are stops).
IN_PHRASE, STOP, NOUN = 0, 1, 2
MAX_WORDS = 3
_END = "."  # what follows each text: a mark, so no phrase runs from one text into the next
# A phrase's code is its words' numbers in base (words + 1): three of them must fit 64 bits.
_MOST_WORDS = round(np.iinfo(np.int64).max ** (1 / MAX_WORDS)) - 2

Codes = NDArray[np.int64]


class _Numbered(dict[str, int]):
    """Words numbered in order of first use."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


@dataclass(frozen=True, slots=True)
class _Uses:
    """Every phrase use, in reading order: its lowercase and written codes, the text it is in,
    whether it ends a noun phrase and whether it is written with a capital."""

    lowered: Codes
    written: Codes
    text: NDArray[np.intp]
    ends: NDArray[np.bool_]
    capital: NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """The words, as written and in lowercase, and the base each phrase code counts in."""

    written: list[str]
    lowered: list[str]
    lowered_number: dict[str, int]

    def base(self, written: bool) -> int:
        return len(self.written if written else self.lowered) + 1

    def spelled(self, code: int, written: bool = False) -> str:
        words, base, parts = self.written if written else self.lowered, self.base(written), []
        while code:
            code, digit = divmod(code, base)
            parts.append(words[digit - 1])
        return " ".join(reversed(parts))

    def code(self, phrase: str) -> int | None:
        code, base = 0, self.base(False)
        for word in phrase.split(" "):
            number = self.lowered_number.get(word)
            if number is None:
                return None
            code = code * base + number + 1
        return code


@dataclass(frozen=True, slots=True)
class _Words:
    """Every word of the texts in reading order: its number as written and in lowercase, its
    role, whether it has a capital, and the text it is in."""

    written: Codes
    lowered: Codes
    role: NDArray[np.int8]
    upper: NDArray[np.bool_]
    text: NDArray[np.intp]


def phrase_uses(
    texts: Sequence[list[str]], role: Callable[[str], int]
) -> tuple[_Vocabulary, _Uses]:
    """Every phrase use of the tokenised ``texts``; ``role`` of a word in lowercase."""
    numbered = _Numbered()
    ids: list[int] = []
    lengths: list[int] = []
    for tokens in texts:
        ids.extend(map(numbered.__getitem__, tokens))
        ids.append(numbered[_END])
        lengths.append(len(tokens) + 1)
    words = list(numbered)
    if len(words) >= _MOST_WORDS:
        raise ValueError(f"{len(words)} distinct words: too many to number their phrases")
    lowered = _Numbered()
    lower_of = np.array([lowered[word.lower()] for word in words], dtype=np.int64)
    roles = np.array([role(w.lower()) if len(w) > 1 else STOP for w in words], dtype=np.int8)
    upper = np.array([word != word.lower() for word in words], dtype=np.bool_)
    written = np.array(ids, dtype=np.int64)
    read = _Words(
        written=written,
        lowered=lower_of[written],
        role=roles[written],
        upper=upper[written],
        text=np.repeat(np.arange(len(lengths)), lengths),
    )
    vocabulary = _Vocabulary(words, list(lowered), dict(lowered))
    return vocabulary, _gathered(vocabulary, read, _phrase_starts(read.role == IN_PHRASE))


def _phrase_starts(inside: NDArray[np.bool_]) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """Per phrase size (one word, two, three): where each phrase starts, and its run's number."""
    run = _run_of(inside)
    starts = []
    for size in range(1, MAX_WORDS + 1):
        # The word after a phrase always exists: every text ends in a mark.
        last = max(len(inside) - size, 0)
        whole = np.ones(last, dtype=np.bool_)
        for offset in range(size):
            whole &= inside[offset : offset + last]
        found = np.flatnonzero(whole)
        starts.append((found, run[found]))
    return starts


def _run_of(inside: NDArray[np.bool_]) -> NDArray[np.intp]:
    """The number of the run each word belongs to (words outside runs: the run before)."""
    began = inside & ~np.concatenate(([False], inside[:-1]))
    return np.cumsum(began)


def _gathered(
    vocabulary: _Vocabulary,
    words: _Words,
    starts_by_size: list[tuple[NDArray[np.intp], NDArray[np.intp]]],
) -> _Uses:
    """Phrase uses by size then position inside each run, as the labeller read them."""
    codes_lowered, codes_written, texts, ends, capitals, keys = [], [], [], [], [], []
    for size, (starts, runs) in enumerate(starts_by_size, start=1):
        codes_lowered.append(_codes(words.lowered, starts, size, vocabulary.base(False)))
        codes_written.append(_codes(words.written, starts, size, vocabulary.base(True)))
        texts.append(words.text[starts])
        ends.append(words.role[starts + size] == STOP)
        capitals.append(np.logical_or.reduce([words.upper[starts + i] for i in range(size)]))
        keys.append(np.column_stack((runs, np.full(len(starts), size), starts)))
    order = np.lexsort(np.concatenate(keys).T[::-1])
    return _Uses(
        lowered=np.concatenate(codes_lowered)[order],
        written=np.concatenate(codes_written)[order],
        text=np.concatenate(texts)[order],
        ends=np.concatenate(ends)[order],
        capital=np.concatenate(capitals)[order],
    )


def _codes(words: Codes, starts: NDArray[np.intp], size: int, base: int) -> Codes:
    code = np.zeros(len(starts), dtype=np.int64)
    for offset in range(size):
        code = code * base + words[starts + offset] + 1
    return code


@dataclass(frozen=True, slots=True)
class _Table:
    """Phrase codes in ascending order, each with a count."""

    codes: Codes
    counts: NDArray[np.int64]

    def of(self, codes: Codes) -> NDArray[np.int64]:
        """The counts of ``codes``, each of them in the table."""
        return self.counts[np.searchsorted(self.codes, codes)]

    def holds(self, code: int) -> bool:
        at = int(np.searchsorted(self.codes, code))
        return at < len(self.codes) and int(self.codes[at]) == code


@dataclass(frozen=True, slots=True)
class PhraseCounts:
    """What the labeller counts of a window's representative papers (see the module's words)."""

    vocabulary: _Vocabulary
    uses: _Uses
    by_cluster: dict[int, _Table]  # how many of the cluster's papers use each phrase
    papers: _Table  # how many papers use each phrase
    times: _Table  # how often each phrase is used
    # Per phrase of ``times``: whether it ends a noun phrase in at least ``head_share`` of
    # its uses.
    named: NDArray[np.bool_]
    sizes: Counter[int]

    @property
    def average(self) -> float:
        """Papers per cluster."""
        return sum(self.sizes.values()) / max(len(self.sizes), 1)

    def shared(self, number: int, least: int) -> list[tuple[str, int, int]]:
        """The cluster's noun phrases used by at least ``least`` of its papers: each with the
        papers of the cluster and of all clusters that use it."""
        own = self.by_cluster.get(number)
        if own is None:
            return []
        named = self.named[np.searchsorted(self.times.codes, own.codes)]
        kept = (own.counts >= least) & named
        codes, counts = own.codes[kept], own.counts[kept]
        everywhere = self.papers.of(codes)
        return [
            (self.vocabulary.spelled(int(code)), int(count), int(total))
            for code, count, total in zip(codes, counts, everywhere, strict=True)
        ]

    def spellings(self, wanted: set[str]) -> dict[str, Counter[str]]:
        """How each wanted phrase (lowercase) is written, and how often each way: capitalised
        spellings in order of first use, then the plain lowercase."""
        codes = {
            code: phrase
            for phrase in wanted
            if (code := self.vocabulary.code(phrase)) is not None and self.times.holds(code)
        }
        result: dict[str, Counter[str]] = {phrase: Counter() for phrase in wanted}
        capital = self.uses.capital & np.isin(self.uses.lowered, list(codes))
        written, first, times = np.unique(
            self.uses.written[capital], return_index=True, return_counts=True
        )
        lowered = self.uses.lowered[capital][first]
        for index in np.argsort(first, kind="stable"):
            spelling = self.vocabulary.spelled(int(written[index]), written=True)
            result[codes[int(lowered[index])]][spelling] = int(times[index])
        for code, phrase in codes.items():
            plain = int(self.times.of(np.array([code]))[0]) - sum(result[phrase].values())
            if plain > 0:
                result[phrase][phrase] = plain
        return result


def count_phrases(
    texts: Sequence[list[str]],
    clusters: Sequence[int],
    role: Callable[[str], int],
    head_share: float,
) -> PhraseCounts:
    """The phrase counts of tokenised ``texts``, each of cluster ``clusters[i]``."""
    vocabulary, uses = phrase_uses(texts, role)
    # Each phrase once per paper that uses it, in order of cluster then phrase.
    of_cluster = np.asarray(clusters, dtype=np.int64)[uses.text]
    order = np.lexsort((uses.text, uses.lowered, of_cluster))
    cluster, code, text = of_cluster[order], uses.lowered[order], uses.text[order]
    first = np.ones(len(order), dtype=np.bool_)
    first[1:] = (code[1:] != code[:-1]) | (text[1:] != text[:-1])
    cluster, code = cluster[first], code[first]
    times = _table(uses.lowered)
    heads = np.zeros(len(times.codes), dtype=np.int64)
    ended = _table(uses.lowered[uses.ends])
    heads[np.searchsorted(times.codes, ended.codes)] = ended.counts
    return PhraseCounts(
        vocabulary=vocabulary,
        uses=uses,
        by_cluster=_by_cluster(cluster, code),
        papers=_table(code),
        times=times,
        named=heads >= head_share * times.counts,
        sizes=Counter(int(c) for c in clusters),
    )


def _table(codes: Codes) -> _Table:
    unique, counts = np.unique(codes, return_counts=True)
    return _Table(unique, counts)


def _by_cluster(cluster: NDArray[np.int64], code: Codes) -> dict[int, _Table]:
    """Per cluster, how many of its papers use each phrase (rows sorted by cluster, phrase)."""
    bounds = np.flatnonzero(np.diff(cluster)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(cluster)]))
    return {
        int(cluster[start]): _table(code[start:end])
        for start, end in zip(starts, ends, strict=True)
        if end > start
    }
