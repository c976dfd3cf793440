"""Person ids that survive a new split: the larger part keeps the address, the rest moves."""

from ranking.people import claimed_apart, reconcile


def test_a_new_paper_joins_its_person_and_everyone_keeps_their_id() -> None:
    stored = {"a1": 7, "a2": 7, "b1": 9}
    result = reconcile(stored, [["a1", "a2", "new"], ["b1"]])
    assert result.people == [7, 9]
    assert result.moved == {}


def test_a_paper_unlike_the_others_starts_a_new_person() -> None:
    result = reconcile({"a1": 7, "a2": 7}, [["a1", "a2"], ["odd"]])
    assert result.people == [7, None]


def test_after_a_split_the_larger_part_keeps_the_id() -> None:
    stored = {"a1": 7, "a2": 7, "a3": 7}
    result = reconcile(stored, [["a3"], ["a1", "a2"]])
    assert result.people == [None, 7]
    assert result.moved == {}


def test_after_a_merge_the_person_with_fewer_papers_moves_to_the_other() -> None:
    stored = {"a1": 7, "a2": 7, "b1": 9}
    result = reconcile(stored, [["b1", "a1", "a2"]])
    assert result.people == [7]
    assert result.moved == {9: 0}


def test_a_claimed_person_keeps_its_id_even_when_it_holds_fewer_papers() -> None:
    stored = {"a1": 7, "a2": 7, "b1": 9}
    result = reconcile(stored, [["b1", "a1", "a2"]], first_pick=frozenset({9}))
    assert result.people == [9]
    assert result.moved == {7: 0}


def test_a_person_whose_papers_scatter_moves_to_the_group_holding_most_of_them() -> None:
    stored = {"a1": 7, "a2": 7, "a3": 7, "b1": 9, "b2": 9, "b3": 9, "b4": 9}
    result = reconcile(stored, [["b1", "b2", "b3", "a1"], ["b4", "a2", "a3"]])
    assert result.people == [9, 7]
    stored = {"a1": 7, "b1": 9, "b2": 9, "c1": 5, "c2": 5}
    result = reconcile(stored, [["b1", "b2", "a1"], ["c1", "c2"]])
    assert result.people == [9, 5]
    assert result.moved == {7: 0}


def test_ties_go_to_the_older_person_so_a_rerun_gives_the_same_answer() -> None:
    stored = {"a1": 7, "b1": 9}
    first = reconcile(stored, [["a1", "b1"]])
    assert first.people == [7]
    assert first.moved == {9: 0}
    assert reconcile(stored, [["b1", "a1"]]) == first


def test_a_group_holding_two_claimed_people_is_cut_between_them() -> None:
    stored = {"a1": 1, "a2": 1, "a3": 1, "b1": 2, "b2": 2, "c1": 3}
    merged = [["a1", "b1", "new", "a2", "b2", "a3", "c1"]]
    # 1 and 2 are claimed: each keeps its papers; the rest go with the larger (1).
    assert claimed_apart(stored, merged, frozenset({1, 2})) == [
        ["a1", "a2", "a3", "new", "c1"],
        ["b1", "b2"],
    ]
    # One claimed person in a group, or none: the groups are left as they are.
    assert claimed_apart(stored, merged, frozenset({1})) == merged
    assert claimed_apart(stored, [["a1"], ["b1"]], frozenset({1, 2})) == [["a1"], ["b1"]]
