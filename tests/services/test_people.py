"""Names split into people on a real store: ids stay put as papers arrive, splits and merges."""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
from sqlalchemy import select

from app.core.db import session_scope
from app.core.models import OrcidPaper, PaperPerson, Person, Subscriber
from app.services.people import names_of_day, split_names
from digest.run_inputs import people_of_papers
from tests.conftest import Database
from tests.digest.editions import add_subscriber
from tests.services.people_store import LEARNING, MAGNETS, store, store_zhe_qu, unit


def _people(database: Database, key: str) -> dict[int, list[str]]:
    with database.sessions() as session:
        found: dict[int, list[str]] = {}
        for arxiv_id, person in session.execute(
            select(PaperPerson.arxiv_id, PaperPerson.person_id)
            .where(PaperPerson.author_key == key)
            .order_by(PaperPerson.arxiv_id)
        ):
            found.setdefault(person, []).append(arxiv_id)
        return found


def test_a_name_in_two_fields_with_two_circles_of_coauthors_is_two_people(
    database: Database,
) -> None:
    store_zhe_qu(database)
    report = split_names(database.settings, database.sessions)
    assert sorted(_people(database, "zhe-qu").values()) == [
        ["2501.00001", "2501.00002", "2501.00003"],
        ["2501.00004", "2501.00005"],
    ]
    assert list(_people(database, "ana-lima").values()) == [["2501.00001", "2501.00002"]]
    assert report.names == 5 and report.people == 6 and report.new_people == 6


def test_a_new_paper_joins_its_person_and_no_address_changes(database: Database) -> None:
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    before = _people(database, "zhe-qu")
    store(database, "2501.00006", "zhe-qu ana-lima", "cs.LG", LEARNING)
    store(database, "2501.00007", "zhe-qu eve-park", "cond-mat.str-el", MAGNETS)
    report = split_names(database.settings, database.sessions, ["zhe-qu"])
    after = _people(database, "zhe-qu")
    assert after.keys() == before.keys()
    assert report.new_people == 0 and report.moved == 0
    learning = next(p for p, ids in before.items() if "2501.00001" in ids)
    assert after[learning] == [*before[learning], "2501.00006"]
    assert split_names(database.settings, database.sessions, ["zhe-qu"]).new_people == 0
    assert _people(database, "zhe-qu") == after


def test_a_paper_joining_two_people_merges_them_and_the_smaller_moves(database: Database) -> None:
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    people = _people(database, "zhe-qu")
    learning, magnets = sorted(people, key=lambda p: -len(people[p]))
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    report = split_names(database.settings, database.sessions, ["zhe-qu"])
    assert report.moved == 1
    assert list(_people(database, "zhe-qu")) == [learning]
    with database.sessions() as session:
        assert session.get_one(Person, magnets).moved_to == learning
        assert session.get_one(Person, learning).moved_to is None


def test_a_verified_person_keeps_its_address_through_a_merge(database: Database) -> None:
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    people = _people(database, "zhe-qu")
    learning, magnets = sorted(people, key=lambda p: -len(people[p]))
    verified = {"claim_verified_at": datetime.now(UTC), "claim_verified_by": "moderator:m@x.org"}
    add_subscriber(database.sessions, "zq@example.org", claimed_person=magnets, **verified)
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert list(_people(database, "zhe-qu")) == [magnets]
    with session_scope(database.sessions) as session:
        assert session.get_one(Person, learning).moved_to == magnets
        assert session.scalar(select(Subscriber.claimed_person)) == magnets


def test_an_editions_papers_know_the_person_behind_each_author(database: Database) -> None:
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    owners = _people(database, "zhe-qu")
    with database.sessions() as session:
        people = people_of_papers(session, ["2501.00001", "2501.00004"])
    learning = next(p for p, ids in owners.items() if "2501.00001" in ids)
    magnets = next(p for p, ids in owners.items() if "2501.00004" in ids)
    assert people[("2501.00001", "zhe-qu")] == learning
    assert people[("2501.00004", "zhe-qu")] == magnets
    assert len(people) == 6  # every author of the two papers


def test_the_names_of_a_day_are_the_authors_of_its_papers(database: Database) -> None:
    store_zhe_qu(database)
    assert names_of_day(database.sessions, date(2025, 1, 5)) == ["dan-ruiz", "zhe-qu"]


def _claim_learning(
    database: Database, verified: bool, read_at: datetime = datetime(2025, 2, 1, tzinfo=UTC)
) -> int:
    """A reader claims Zhe Qu's learning person with an iD whose arXiv feed, read at
    ``read_at``, lists its papers."""
    people = _people(database, "zhe-qu")
    learning = next(p for p, ids in people.items() if "2501.00001" in ids)
    at = read_at
    add_subscriber(
        database.sessions,
        "zq@example.org",
        claimed_person=learning,
        orcid="0000-0002-1825-0097",
        claim_verified_at=at if verified else None,
        claim_verified_by="arxiv:0000-0002-1825-0097" if verified else None,
    )
    with session_scope(database.sessions) as session:
        session.add_all(
            OrcidPaper(orcid="0000-0002-1825-0097", arxiv_id=arxiv_id, fetched_at=at)
            for arxiv_id in ("2501.00001", "2501.00002", "2501.00003", "2409.99999")
        )
    return learning


# A paper on a neighbouring subject: the split without a claim puts it with the learning papers.
NEIGHBOUR = (0.3 * LEARNING + np.sqrt(1 - 0.3**2) * unit(0, 0, 0, 0, 0, 1)).astype(np.float32)


def test_a_verified_claim_keeps_an_older_paper_its_feed_leaves_out_off_the_claimed_person(
    database: Database,
) -> None:
    store_zhe_qu(database)
    store(database, "2501.00009", "zhe-qu eve-park", "stat.ML", NEIGHBOUR)
    split_names(database.settings, database.sessions)
    learning = _claim_learning(database, verified=True)
    assert "2501.00009" in _people(database, "zhe-qu")[learning]
    split_names(database.settings, database.sessions, ["zhe-qu"])
    people = _people(database, "zhe-qu")
    assert people[learning] == ["2501.00001", "2501.00002", "2501.00003"]
    assert sorted(people.values()) == [
        ["2501.00001", "2501.00002", "2501.00003"],
        ["2501.00004", "2501.00005"],
        ["2501.00009"],
    ]
    # A new paper of the verified person, not yet in the feed, joins them.
    store(database, "2501.00010", "zhe-qu ana-lima", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert _people(database, "zhe-qu")[learning][-1] == "2501.00010"


def test_after_the_feed_was_read_a_paper_joins_the_verified_person_if_like_their_papers(
    database: Database,
) -> None:
    store_zhe_qu(database)
    # Before the read (the 9th of January): the learning subject, but no shared co-author.
    store(database, "2501.00007", "zhe-qu eve-park", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions)
    learning = _claim_learning(database, verified=True, read_at=datetime(2025, 1, 9, tzinfo=UTC))
    # After it: alone on the learning subject, alone on another.
    store(database, "2501.00012", "zhe-qu", "cs.LG", LEARNING)
    store(database, "2501.00013", "zhe-qu", "q-bio.NC", unit(0, 0, 0, 0, 0, 0, 1))
    split_names(database.settings, database.sessions, ["zhe-qu"])
    people = _people(database, "zhe-qu")
    assert people[learning] == ["2501.00001", "2501.00002", "2501.00003", "2501.00012"]
    assert sorted(people.values()) == [
        ["2501.00001", "2501.00002", "2501.00003", "2501.00012"],
        ["2501.00004", "2501.00005"],
        ["2501.00007"],
        ["2501.00013"],
    ]


def test_an_unverified_claim_leaves_the_split_as_it_was(database: Database) -> None:
    store_zhe_qu(database)
    store(database, "2501.00009", "zhe-qu eve-park", "stat.ML", NEIGHBOUR)
    split_names(database.settings, database.sessions)
    before = _people(database, "zhe-qu")
    _claim_learning(database, verified=False)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert _people(database, "zhe-qu") == before and len(before) == 2


def test_a_group_author_is_one_group_holding_all_its_papers_whatever_their_field(
    database: Database,
) -> None:
    store(database, "2501.00001", "kling-team ana-lima bo-chen", "cs.LG", LEARNING)
    store(database, "2501.00002", "cy-ito kling-team dan-ruiz", "cond-mat.str-el", MAGNETS)
    store(database, "2501.00003", "zhe-qu ana-lima bo-chen", "cs.LG", LEARNING)
    store(database, "2501.00004", "zhe-qu cy-ito dan-ruiz", "cond-mat.str-el", MAGNETS)
    split_names(database.settings, database.sessions)
    # The same papers split a person's name in two; a group's name stays whole.
    assert len(_people(database, "zhe-qu")) == 2
    assert list(_people(database, "kling-team").values()) == [["2501.00001", "2501.00002"]]
