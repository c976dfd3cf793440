"""Links counted for many papers at once are the links counted pair by pair."""

import random

import numpy as np

from ranking.people import SHORT_LIST, Work, linked_groups
from ranking.people_links import PaperLinks


def _as_works(key: str, authors: dict[str, list[str]]) -> list[Work]:
    blank = np.zeros(2, dtype=np.float32)
    return [Work(frozenset(keys) - {key}, frozenset(), blank) for keys in authors.values()]


def test_a_collaborations_papers_link_as_they_do_pair_by_pair() -> None:
    draw = random.Random(7)
    roster = [f"member{n}" for n in range(400)]
    authors = {
        f"2501.{n:05d}": ["ana", *(m for m in roster if draw.random() < 0.9)] for n in range(12)
    }
    links = PaperLinks(authors)
    assert links.linked_groups(list(authors)) == linked_groups(_as_works("ana", authors))
    assert links.linked_groups(list(authors)) == [list(range(12))]


def test_short_lists_one_shared_name_and_strangers_link_as_they_do_pair_by_pair() -> None:
    crowd = [f"member{n}" for n in range(SHORT_LIST + 1)]
    authors = {
        "a": ["ana", "bo", "cy"],
        "b": ["ana", "cy", "dan"],  # one shared, both short: linked to a
        "c": ["ana", *crowd],
        "d": ["ana", "member0", "eve"],  # one shared with a long list: apart
        "e": ["ana", "fay", "gil", "ana"],  # the name twice: still one author
        "f": ["ana", "member1", "member2", *(f"x{n}" for n in range(40))],  # two shared with c
    }
    expected = linked_groups(_as_works("ana", authors))
    assert PaperLinks(authors).linked_groups(list(authors)) == expected
    assert expected == [[0, 1], [2, 5], [3], [4]]


def test_a_names_papers_are_read_among_other_names_papers() -> None:
    draw = random.Random(11)
    people = [f"p{n}" for n in range(30)]
    authors = {f"2502.{n:05d}": draw.sample(people, 4) for n in range(60)}
    links = PaperLinks(authors)
    for key in people[:10]:
        mine = {arxiv_id: keys for arxiv_id, keys in authors.items() if key in keys}
        assert links.linked_groups(list(mine)) == linked_groups(_as_works(key, mine))
