"""A name split when one of its people is verified: the listed papers are one person, an older
paper the feed leaves out is someone else's unless it shares co-authors with them, and a newer
one joins where it is as close to them as the ordinary split's bar."""

import numpy as np

from ranking.people import split_people
from ranking.verified_people import VerifiedParams, pinned, split_verified
from tests.ranking.test_people import MAGNETS, VISION, _unit, _work

# Orthogonal to VISION, so that a vector at a chosen cosine to it can be made.
ASIDE = _unit(0.0, 0.0, 0.0, 0.0, 1.0)


def _at_cosine(cosine: float) -> np.ndarray:
    vector: np.ndarray = cosine * VISION + np.sqrt(1 - cosine**2) * ASIDE
    return vector.astype(np.float32)


def test_listed_papers_are_one_person_where_the_ordinary_split_sees_two() -> None:
    works = [_work("ana bo", "cs.CV", VISION), _work("ed fay", "cond-mat.str-el", MAGNETS)]
    assert split_people(works) == [0, 1]
    assert split_verified(works, frozenset({0, 1})) == [0, 0]


def test_an_older_paper_the_feed_leaves_out_is_someone_elses_even_on_the_same_subject() -> None:
    works = [_work("ana bo", "cs.CV", VISION), _work("gil", "cs.CV", VISION)]
    assert split_verified(works, frozenset({0}), older=frozenset({0, 1})) == [0, 1]
    # Announced after the feed was read, the same paper joins.
    assert split_verified(works, frozenset({0}), older=frozenset({0})) == [0, 0]


def test_an_older_paper_sharing_coauthors_with_the_listing_joins_whatever_its_subject() -> None:
    # The feed may leave out a paper a co-author submitted: the co-authors tie it to the person.
    works = [_work("ana bo", "cs.CV", VISION), _work("ana bo", "cond-mat.str-el", MAGNETS)]
    assert split_verified(works, frozenset({0}), older=frozenset({0, 1})) == [0, 0]


def test_a_newer_paper_joins_where_it_is_as_close_as_the_ordinary_split_merges() -> None:
    works = [
        _work("ana bo", "cs.CV", VISION),
        _work("gil", "cs.LG", _at_cosine(0.3)),
        _work("hal", "q-bio.NC", ASIDE),
    ]
    assert split_verified(works, frozenset({0})) == [0, 0, 1]
    # The bar is a setting: above the neighbour's closeness it stays apart too.
    assert split_verified(works, frozenset({0}), VerifiedParams(threshold=0.5)) == [0, 1, 1]
    assert split_verified(works, frozenset({0}), VerifiedParams(threshold=-10.0)) == [0, 0, 0]


def test_a_new_paper_with_the_verified_persons_coauthors_joins_them_whatever_its_subject() -> None:
    works = [
        _work("ana bo", "cs.CV", VISION),
        _work("ana bo", "cond-mat.str-el", MAGNETS),
        _work("ivo", "q-bio.NC", ASIDE),
    ]
    assert split_verified(works, frozenset({0})) == [0, 0, 1]


def test_the_people_left_over_are_split_as_without_a_claim() -> None:
    works = [
        _work("ana bo", "cs.CV", VISION),
        _work("ed fay", "cond-mat.str-el", MAGNETS),
        _work("ed", "cond-mat.str-el", MAGNETS),
        _work("ivo", "q-bio.NC", _unit(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)),
    ]
    assert split_verified(works, frozenset({0})) == [0, 1, 1, 2]
    assert split_verified(works, frozenset()) == split_people(works) == [0, 1, 1, 2]


def test_pinned_gives_the_verified_group_to_the_claimed_person_and_nothing_else() -> None:
    stored = {"a": 7, "b": 7, "c": 8, "d": 9}
    assert pinned(stored, ["a", "c"], person=7) == {"a": 7, "c": 7, "d": 9}
