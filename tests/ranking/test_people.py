"""Splitting one author name into people: by shared co-authors, then by subject."""

import numpy as np

from ranking.people import SHORT_LIST, SplitParams, Work, linked_groups, split_people


def _unit(*values: float) -> np.ndarray:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def _work(coauthors: str, categories: str = "cs.CV", vector: np.ndarray | None = None) -> Work:
    return Work(
        coauthors=frozenset(coauthors.split()),
        categories=frozenset(categories.split()),
        vector=_unit(1.0) if vector is None else vector,
    )


VISION, MAGNETS = _unit(1.0, 0.1), _unit(0.0, 0.0, 1.0, 0.1)


def test_papers_that_share_a_coauthor_are_one_person_whatever_their_subject() -> None:
    works = [
        _work("ana bo", "cs.CV", VISION),
        _work("bo cy", "cond-mat.str-el", MAGNETS),
        _work("cy", "cond-mat.str-el", MAGNETS),
    ]
    assert split_people(works) == [0, 0, 0]


def test_two_groups_apart_in_collaborators_field_and_subject_are_two_people() -> None:
    works = [
        _work("ana bo", "cs.CV cs.LG", VISION),
        _work("ed fay", "cond-mat.str-el", MAGNETS),
        _work("ana", "cs.CV", VISION),
        _work("fay", "cond-mat.str-el", MAGNETS),
    ]
    # Numbered by each person's first paper.
    assert split_people(works) == [0, 1, 0, 1]


def test_new_collaborators_on_the_same_subject_stay_the_same_person() -> None:
    works = [_work("ana bo", "cs.CV", VISION), _work("ed fay", "cs.CV", _unit(1.0, 0.2))]
    assert split_people(works) == [0, 0]
    # A stricter threshold than the shipped one splits them.
    assert split_people(works, SplitParams(merge_threshold=2.5)) == [0, 1]


def test_one_shared_name_on_consortium_papers_links_nothing_two_do() -> None:
    crowd = " ".join(f"member{n}" for n in range(SHORT_LIST + 1))
    assert linked_groups([_work("ana bo"), _work("bo cy")]) == [[0, 1]]  # both lists short
    assert linked_groups([_work(crowd), _work("member0 y1 y2")]) == [[0], [1]]
    two_shared = [
        _work(crowd),
        _work(" ".join(f"other{n}" for n in range(40)) + " member0 member1"),
    ]
    assert linked_groups(two_shared) == [[0, 1]]


def test_no_papers_no_people_and_one_paper_one_person() -> None:
    assert split_people([]) == []
    assert split_people([_work("ana")]) == [0]
