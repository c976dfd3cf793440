"""A paper's own key phrases (RAKE), as the API names them where HF had no keywords."""

from __future__ import annotations

from ranking.keyphrases import MAX_PHRASES, key_phrases

TITLE = "Sparse mixture of experts routing for long-context language models"
ABSTRACT = (
    "We study sparse mixture of experts routing. Expert routing balances the load across "
    "experts, and long-context language models gain throughput. Routing collapse is avoided "
    "by an auxiliary loss; we evaluate on long-context retrieval benchmarks."
)


def test_phrases_come_from_the_paper_title_first_at_most_the_limit() -> None:
    phrases = key_phrases(TITLE, ABSTRACT)
    assert 0 < len(phrases) <= MAX_PHRASES
    assert phrases[0] in TITLE.lower()
    text = f"{TITLE} {ABSTRACT}".lower()
    assert all(phrase in text for phrase in phrases)


def test_a_phrase_inside_one_kept_before_it_is_dropped() -> None:
    phrases = key_phrases(TITLE, ABSTRACT)
    for later, phrase in enumerate(phrases):
        words = set(phrase.split())
        assert not any(words <= set(kept.split()) for kept in phrases[:later]), phrase


def test_a_smaller_limit_keeps_the_same_leading_phrases() -> None:
    assert key_phrases(TITLE, ABSTRACT, 2) == key_phrases(TITLE, ABSTRACT)[:2]


def test_callers_get_their_own_list_though_answers_are_remembered() -> None:
    first = key_phrases(TITLE, ABSTRACT)
    first.append("changed by a caller")
    assert "changed by a caller" not in key_phrases(TITLE, ABSTRACT)
