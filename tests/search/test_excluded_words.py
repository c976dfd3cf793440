"""``-word`` in a query: what is searched for, and which matches are left out."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from search.excluded_words import (
    MAX_EXCLUDED,
    Asked,
    TooManyExcludedError,
    mentions,
    split_query,
)


def test_a_minus_before_a_word_leaves_the_word_out_and_a_hyphen_inside_one_does_not() -> None:
    assert split_query("graph networks -Molecule state-of-the-art -GPT-4") == Asked(
        "graph networks state-of-the-art", ("molecule", "gpt-4")
    )
    assert split_query("-only -only") == Asked("", ("only",))
    assert split_query("a - b") == Asked("a - b")


def test_a_word_is_left_out_whole_and_in_any_case() -> None:
    assert mentions("Small MOLECULE graphs", ["molecule"])
    assert not mentions("Molecules and molecular graphs", ["molecule"])
    assert mentions("We compare with GPT-4.", ["gpt-4"])
    assert not mentions("anything", [])


def test_more_than_the_excluded_words_allowed_is_refused_in_words() -> None:
    query = " ".join(f"-w{n}" for n in range(MAX_EXCLUDED + 1))
    with pytest.raises(TooManyExcludedError, match=f"at most {MAX_EXCLUDED} words, not 11"):
        split_query(query)


@given(st.text(alphabet=st.sampled_from("ab -.+\tÉé4"), max_size=60))
def test_what_is_searched_for_holds_no_excluded_word_and_each_came_from_the_query(
    query: str,
) -> None:
    try:
        asked = split_query(query)
    except TooManyExcludedError:
        return
    assert split_query(asked.words).without == ()  # nothing left that reads as a minus
    for word in asked.without:
        assert word and word == word.casefold()
        assert f"-{word}" in query.casefold()
