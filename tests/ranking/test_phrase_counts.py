"""Phrase counting on integer codes gives what reading the phrases as strings gives."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.phrase_counts import IN_PHRASE, MAX_WORDS, NOUN, STOP, count_phrases

ROLES = {"data": IN_PHRASE, "Data": IN_PHRASE, "graph": IN_PHRASE, "Graph": IN_PHRASE}
ROLES |= {"nets": IN_PHRASE, "NETS": IN_PHRASE, "of": STOP, "the": STOP, "model": NOUN}


def _role(word: str) -> int:
    return ROLES.get(word, ROLES.get(word.lower(), IN_PHRASE))


@dataclass
class _Reference:
    """The counts as the labeller read them before: phrase by phrase, as strings."""

    by_cluster: dict[int, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    papers: Counter[str] = field(default_factory=Counter)
    uses: Counter[str] = field(default_factory=Counter)
    heads: Counter[str] = field(default_factory=Counter)
    capitalised: Counter[str] = field(default_factory=Counter)

    def read(self, tokens: list[str], cluster: int) -> None:
        lowered, ends, written = _read(tokens)
        self.by_cluster[cluster].update(set(lowered))
        self.papers.update(set(lowered))
        self.uses.update(lowered)
        self.heads.update(ends)
        self.capitalised.update(written)

    def named(self, phrase: str) -> bool:
        return self.heads[phrase] >= self.uses[phrase] / 3


def _read(tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    lowered: list[str] = []
    ends: list[str] = []
    written: list[str] = []
    run: list[str] = []
    for token in [*tokens, "."]:
        role = _role(token.lower()) if len(token) > 1 else STOP
        if role == IN_PHRASE:
            run.append(token)
            continue
        for size in range(1, min(MAX_WORDS, len(run)) + 1):
            grams = [" ".join(run[i : i + size]) for i in range(len(run) - size + 1)]
            lowered.extend(gram.lower() for gram in grams)
            written.extend(gram for gram in grams if not gram.islower())
            if role == STOP:
                ends.append(grams[-1].lower())
        run = []
    return lowered, ends, written


WORDS = st.sampled_from(["data", "Data", "graph", "Graph", "nets", "NETS", "of", "the", "model"])
TOKENS = st.lists(st.one_of(WORDS, st.sampled_from([".", ",", "2"])), max_size=14)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TOKENS, st.integers(0, 2)), min_size=1, max_size=6))
def test_counts_on_codes_are_the_counts_of_the_phrases_as_strings(
    papers: list[tuple[list[str], int]],
) -> None:
    texts, clusters = [p[0] for p in papers], [p[1] for p in papers]
    reference = _Reference()
    for tokens, cluster in papers:
        reference.read(tokens, cluster)
    counts = count_phrases(texts, clusters, _role, 1 / 3)
    for cluster in set(clusters):
        expected = {
            (phrase, times, reference.papers[phrase])
            for phrase, times in reference.by_cluster[cluster].items()
            if reference.named(phrase)
        }
        assert set(counts.shared(cluster, 1)) == expected
    spellings = counts.spellings(set(reference.uses))
    for phrase, uses in reference.uses.items():
        written = {w: n for w, n in reference.capitalised.items() if w.lower() == phrase}
        plain = Counter({phrase: uses - sum(written.values())})
        assert spellings[phrase] == Counter(written) + plain


def test_a_cluster_counts_each_paper_once_and_a_phrase_names_where_it_ends() -> None:
    texts = [
        ["graph", "nets", "of", "the", "data"],
        ["Graph", "nets", "model", "graph", "nets", "."],
        ["data", "graph", "model"],
    ]
    counts = count_phrases(texts, [0, 0, 1], _role, 1 / 3)
    shared = {phrase: (mine, everywhere) for phrase, mine, everywhere in counts.shared(0, 2)}
    # "graph nets" is in both papers of cluster 0 (twice in the second: one paper).
    assert shared["graph nets"] == (2, 2)
    # "graph" ends no noun phrase: it always describes the word after it.
    assert "graph" not in shared
    assert counts.sizes == Counter({0: 2, 1: 1})
    assert counts.spellings({"graph nets"}) == {
        "graph nets": Counter({"Graph nets": 1, "graph nets": 2})
    }


def test_capitalised_spellings_come_in_order_of_first_use_then_the_plain_one() -> None:
    texts = [["NETS", "."], ["Nets", "nets", "NETS"]]
    spellings = count_phrases(texts, [0, 0], _role, 1 / 3).spellings({"nets"})
    assert list(spellings["nets"].items()) == [("NETS", 2), ("Nets", 1), ("nets", 1)]


def test_no_texts_count_nothing() -> None:
    counts = count_phrases([[]], [0], _role, 1 / 3)
    assert counts.shared(0, 1) == []
    assert counts.shared(5, 1) == []


def test_a_phrase_never_used_has_no_spelling_even_when_its_words_are_known() -> None:
    counts = count_phrases([["graph", "of", "data"], ["nets"]], [0, 0], _role, 1 / 3)
    assert counts.spellings({"data graph", "nets nets", "unknown"}) == {
        "data graph": Counter(),
        "nets nets": Counter(),
        "unknown": Counter(),
    }
