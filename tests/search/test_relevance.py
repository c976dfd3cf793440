import numpy as np

from search.index import NO_DATE
from search.query import (
    FUSION,
    Match,
    SearchSort,
    Words,
    arrange,
    every_word_held,
    relevance,
)


def test_a_weak_meaning_only_neighbour_is_no_match() -> None:
    keyword = np.array([0.0, 0.0, 0.3, 0.1, 0.1, 0.0])
    coverage = np.array([0.0, 0.0, 1.0, 0.5, 0.5, 0.0])
    meaning = np.array([0.3, 0.7, 0.1, 0.2, 0.6, 0.0])
    has_vector = np.array([True, True, True, True, True, False])
    scores = relevance(Words(keyword, coverage), meaning, has_vector, FUSION)
    # Weak meaning alone: out; strong meaning alone: in; every word: in; some words with
    # unrelated meaning: out; some words with related meaning: in; no vector, no word: out.
    assert np.isfinite(scores).tolist() == [False, True, True, False, True, False]
    assert scores[4] > scores[1]  # the keyword match adds to a close meaning
    by_words = relevance(Words(keyword, coverage), None, has_vector, FUSION)
    assert np.isfinite(by_words).tolist() == [False, False, True, True, True, False]


def test_newest_first_breaks_ties_by_relevance() -> None:
    matches = [Match(0, 0.9, 10), Match(1, 0.5, 12), Match(2, 0.7, 12), Match(3, 0.8, NO_DATE)]
    assert [m.row for m in arrange(matches, SearchSort.newest)] == [2, 1, 0, 3]
    assert [m.row for m in arrange(matches, SearchSort.relevance)] == [0, 3, 2, 1]


def test_where_no_paper_holds_every_word_the_closest_matches_come() -> None:
    # Paper 0 holds most of the words and is related in meaning; paper 1 holds few; paper 2
    # holds most, far in meaning; paper 3 holds none.
    words = Words(np.array([0.1, 0.05, 0.1, 0.0]), np.array([0.8, 0.3, 0.8, 0.0]))
    meaning = np.array([0.35, 0.4, 0.1, 0.3])
    has_vector = np.ones(4, dtype=bool)
    assert not np.isfinite(relevance(words, meaning, has_vector, FUSION)).any()
    closest = relevance(words, meaning, has_vector, FUSION, every_word_held=False)
    assert np.isfinite(closest).tolist() == [True, False, False, False]
    assert not every_word_held(words, np.ones(4, dtype=bool))
    held = Words(words.keyword, np.array([1.0, 0.3, 0.8, 0.0]))
    assert every_word_held(held, np.ones(4, dtype=bool))
    assert not every_word_held(held, np.array([False, True, True, True]))
