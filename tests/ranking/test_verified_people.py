"""A name split when one of its people is verified: the listed papers are one person, others
join only where the ordinary split would merge them and they are like the listing."""

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


def test_an_unlisted_paper_unlike_the_listing_is_split_off_though_the_split_would_merge() -> None:
    works = [
        _work("ana bo", "cs.CV", VISION),
        _work("gil", "cs.LG", _at_cosine(0.3)),
        _work("hal", "cs.LG", _at_cosine(0.9)),
    ]
    assert split_people(works) == [0, 0, 0]
    assert split_verified(works, frozenset({0})) == [0, 1, 0]
    # Below the bar, the verified person takes whatever the ordinary split merges.
    assert split_verified(works, frozenset({0}), VerifiedParams(threshold=0.2)) == [0, 0, 0]


def test_no_bar_joins_a_paper_the_ordinary_split_keeps_apart() -> None:
    works = [_work("ana bo", "cs.CV", VISION), _work("ed fay", "cond-mat.str-el", MAGNETS)]
    assert split_verified(works, frozenset({0}), VerifiedParams(threshold=-10.0)) == [0, 1]


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
