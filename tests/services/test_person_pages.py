"""A name's people on the site: the name page lists them, each has a page, a moved person's
address answers 301, and "This is me" claims one person, whose verified claimant alone may
hide the page. (Not under tests/web: those share one filled site, and this store is its own.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from accounts import reader
from accounts.corrections import PER_DAY
from accounts.subscriptions import delete_everything, unsubscribe
from app.core.db import session_scope
from app.core.models import (
    DigestFeedback,
    PaperAuthor,
    PaperPerson,
    Person,
    PersonCorrection,
    Subscriber,
)
from app.services.people import split_names
from app.web.app import create_app
from tests.conftest import Database
from tests.ranking.axe_check import audited
from tests.services.people_store import LEARNING, store, store_zhe_qu
from tests.services.test_moderation import signed_in

LEARNING_PAPERS = ["2501.00001", "2501.00002", "2501.00003"]
MAGNET_PAPERS = ["2501.00004", "2501.00005"]


@pytest.fixture
def people(database: Database) -> tuple[int, int]:
    """Zhe Qu split in two: the learning person, then the magnets person."""
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    with database.sessions() as session:
        owner = dict(
            session.execute(
                select(PaperPerson.arxiv_id, PaperPerson.person_id).where(
                    PaperPerson.author_key == "zhe-qu"
                )
            ).all()
        )
    return owner[LEARNING_PAPERS[0]], owner[MAGNET_PAPERS[0]]


@pytest.fixture
def site(database: Database, people: tuple[int, int]) -> Iterator[TestClient]:
    with TestClient(create_app(database.settings)) as client:
        yield client


def _signed_in(database: Database, address: str) -> dict[str, str]:
    """A reader whose mailbox was proven long ago: their corrections count."""
    return signed_in(database, address)


def _row(session: Session, address: str) -> Subscriber:
    found = reader.find(session, address)
    assert found is not None
    return found


def _verified(database: Database, address: str) -> None:
    """The reader's claim verified, as a moderator's approval stores it (the check with arXiv
    itself is tested in test_verified_claims)."""
    with session_scope(database.sessions) as session:
        row = _row(session, address)
        row.claim_verified_at = datetime.now(UTC)
        row.claim_verified_by = "moderator:mod@example.org"


def _papers(page: str) -> list[str]:
    return sorted(set(re.findall(r'<li class="paper" id="p-([^"]+)"', page)))


def test_the_name_page_lists_its_people_and_each_has_a_page_of_its_papers(
    site: TestClient, people: tuple[int, int]
) -> None:
    learning, magnets = people
    name = site.get("/authors/zhe-qu").text
    assert "We think 2 people publish as" in name
    assert f'<a href="/people/{learning}">no topic yet, 3 papers</a>, with' in name
    assert f'<a href="/people/{magnets}">no topic yet, 2 papers</a>, with' in name
    assert _papers(name) == LEARNING_PAPERS + MAGNET_PAPERS
    page = site.get(f"/people/{magnets}")
    assert page.status_code == 200
    assert _papers(page.text) == MAGNET_PAPERS
    assert "one of 2 people who publish as" in page.text
    assert "Dan Ruiz" in page.text and "Ana Lima" not in page.text
    assert f'action="/people/{magnets}/claim"' in page.text
    assert site.get("/authors/ana-lima").text.count("people publish as") == 0


def test_the_api_gives_a_names_people_and_each_persons_profile(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning, magnets = people
    name = site.get("/api/authors/zhe-qu").json()
    assert [(one["id"], one["papers"]) for one in name["people"]] == [(learning, 3), (magnets, 2)]
    assert name["person"] is None and name["paperCount"] == 5
    answer = site.get(f"/api/people/{magnets}")
    # Its claimant may hide it at any moment: a cache asks again before each use.
    assert answer.headers["cache-control"] == "public, no-cache"
    person = answer.json()
    assert person["person"] == magnets and person["paperCount"] == 2
    assert sorted(paper["id"] for paper in person["papers"]) == MAGNET_PAPERS
    assert site.get("/api/people/999999").status_code == 404
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    moved = site.get(f"/api/people/{magnets}", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"/api/people/{learning}")


def test_a_paper_whose_author_list_no_longer_holds_the_name_leaves_its_person(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    with session_scope(database.sessions) as session:
        session.execute(
            delete(PaperAuthor).where(
                PaperAuthor.arxiv_id == MAGNET_PAPERS[1], PaperAuthor.author_key == "zhe-qu"
            )
        )
    assert _papers(site.get(f"/people/{magnets}").text) == MAGNET_PAPERS[:1]
    assert (
        f'<a href="/people/{magnets}">no topic yet, 1 paper</a>' in site.get("/authors/zhe-qu").text
    )


def test_a_hidden_page_shows_again_once_its_claimant_is_gone(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    zhe = _signed_in(database, "gone@example.org")
    site.post(f"/people/{magnets}/claim", headers=zhe)
    _verified(database, "gone@example.org")
    site.post(f"/people/{magnets}/hide", headers=zhe)
    assert site.get(f"/people/{magnets}").status_code == 404
    with session_scope(database.sessions) as session:
        found = reader.find(session, "gone@example.org")
        assert found is not None
        delete_everything(session, found)
    assert site.get(f"/people/{magnets}").status_code == 200
    assert f'<a href="/people/{magnets}">' in site.get("/authors/zhe-qu").text


def test_a_person_left_without_papers_answers_301_to_the_person_who_has_them(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning, magnets = people
    follower = _signed_in(database, "follows@example.org")
    site.post(f"/people/{magnets}/follow", headers=follower)
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    moved = site.get(f"/people/{magnets}", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"/people/{learning}")
    assert _papers(site.get(f"/people/{learning}").text) == sorted(
        LEARNING_PAPERS + MAGNET_PAPERS + ["2501.00008"]
    )
    assert "people publish as" not in site.get("/authors/zhe-qu").text
    # Its follower now follows where its papers went.
    state = site.get("/for-you/state.json", headers=follower).json()
    assert state["followed_people"] == [learning]
    assert site.get("/people/999999").status_code == 404
    assert site.get("/people/0").status_code == 400


def test_this_is_me_claims_one_person_whose_verified_claimant_alone_can_hide_the_page(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    zhe, other = _signed_in(database, "zq@example.org"), _signed_in(database, "x@example.org")
    claimed = site.post(f"/people/{magnets}/claim", headers=zhe, follow_redirects=False)
    assert claimed.status_code == 303
    with database.sessions() as session:
        claimant = _row(session, "zq@example.org")
        assert (claimant.claimed_person, claimant.claimed_author) == (magnets, "zhe-qu")
        liked = session.scalars(
            select(DigestFeedback.arxiv_id).where(DigestFeedback.subscriber_id == claimant.id)
        )
        assert sorted(liked) == MAGNET_PAPERS
    # Unverified, it hides nothing; another reader may claim the person too.
    assert site.post(f"/people/{magnets}/hide", headers=zhe).status_code == 403
    _verified(database, "zq@example.org")
    assert site.post(f"/people/{magnets}/hide", headers=other).status_code == 403
    assert site.post(f"/people/{magnets}/claim", headers=other).status_code == 200
    assert site.post(f"/people/{magnets}/hide", headers=other).status_code == 403
    assert (
        site.post(f"/people/{magnets}/hide", headers=zhe, follow_redirects=False).status_code == 303
    )
    # Claiming again leaves the page hidden; to others it is as if it did not exist.
    site.post(f"/people/{magnets}/claim", headers=zhe)
    assert site.get(f"/people/{magnets}").status_code == 404
    assert site.get(f"/people/{magnets}", headers=other).status_code == 404
    assert site.get(f"/api/people/{magnets}").status_code == 404
    for action in ("follow", "claim", "hide"):
        assert site.post(f"/people/{magnets}/{action}", headers=other).status_code == 404
    own = site.get(f"/people/{magnets}", headers=zhe)
    assert own.status_code == 200 and "Hidden:" in own.text
    assert own.headers["cache-control"] == "private, no-store"
    assert f'<a href="/people/{magnets}">' not in site.get("/authors/zhe-qu").text
    site.post(f"/people/{magnets}/unclaim", headers=zhe)
    assert site.get(f"/people/{magnets}").status_code == 200
    with database.sessions() as session:
        assert _row(session, "zq@example.org").claimed_person is None


def test_two_claimed_people_stay_apart_when_a_new_paper_links_them(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning, magnets = people
    first, second = _signed_in(database, "l@example.org"), _signed_in(database, "m@example.org")
    site.post(f"/people/{learning}/claim", headers=first)
    site.post(f"/people/{magnets}/claim", headers=second)
    _verified(database, "l@example.org")
    _verified(database, "m@example.org")
    site.post(f"/people/{magnets}/hide", headers=second)
    # Without the claims, this paper's co-authors would merge the two (see the 301 test).
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert _papers(site.get(f"/people/{learning}").text) == [*LEARNING_PAPERS, "2501.00008"]
    assert site.get(f"/people/{magnets}", follow_redirects=False).status_code == 404  # hidden
    assert _papers(site.get(f"/people/{magnets}", headers=second).text) == MAGNET_PAPERS
    with database.sessions() as session:
        claims = [_row(session, who).claimed_person for who in ("l@example.org", "m@example.org")]
    assert claims == [learning, magnets]


def test_one_person_has_one_verified_claimant_whatever_the_order_of_writes(
    database: Database, people: tuple[int, int]
) -> None:
    # Any number may claim a person unverified; two verifications at the same moment both
    # pass the check before either is stored: the second write is refused.
    now = datetime.now(UTC)
    with session_scope(database.sessions) as session:
        for address in ("one@example.org", "two@example.org"):
            reader.reader_row(session, address, now)
            _row(session, address).claimed_person = people[0]
    with pytest.raises(IntegrityError), session_scope(database.sessions) as session:
        for address in ("one@example.org", "two@example.org"):
            _row(session, address).claim_verified_at = now
            session.flush()


def test_a_claimant_who_stops_the_digest_still_holds_the_claim(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    zhe = _signed_in(database, "zq@example.org")
    site.post(f"/people/{magnets}/claim", headers=zhe)
    _verified(database, "zq@example.org")
    with session_scope(database.sessions) as session:
        unsubscribe(_row(session, "zq@example.org"), datetime.now(UTC))
    # The page, the claim button and the claimant's corrections say the same: claimed.
    assert "unclaimed" not in site.get(f"/people/{magnets}").text
    other = _signed_in(database, "x@example.org")
    assert site.post(f"/people/{magnets}/claim", headers=other).status_code == 200
    assert site.post(f"/people/{magnets}/verify", headers=other).status_code == 409


def test_a_follower_can_leave_a_person_hidden_since(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    fan, claimant = _signed_in(database, "fan@example.org"), _signed_in(database, "z@example.org")
    site.post(f"/people/{magnets}/follow", headers=fan)
    site.post(f"/people/{magnets}/claim", headers=claimant)
    _verified(database, "z@example.org")
    site.post(f"/people/{magnets}/hide", headers=claimant)
    assert site.post(f"/people/{magnets}/follow", headers=fan).status_code == 404
    form = {"undo": "1"}
    left = site.post(f"/people/{magnets}/follow", data=form, headers=fan, follow_redirects=False)
    assert left.status_code == 303
    assert site.get("/for-you/state.json", headers=fan).json()["followed_people"] == []


def test_following_a_person_lists_them_on_for_you_and_counts_them_on_the_page(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    fan = _signed_in(database, "f@example.org")
    followed = site.post(f"/people/{magnets}/follow", headers=fan, follow_redirects=False)
    assert followed.status_code == 303
    assert "1 reader follows this person" in _text(site.get(f"/people/{magnets}").text)
    for_you = site.get("/for-you", headers=fan).text
    assert f'<a href="/people/{magnets}" class="bidi">Zhe Qu (person {magnets})</a>' in for_you
    state = site.get("/for-you/state.json", headers=fan).json()
    assert state["followed_people"] == [magnets] and state["followed_authors"] == []
    site.post(f"/people/{magnets}/follow", data={"undo": "1"}, headers=fan)
    assert "0 readers follow this person" in _text(site.get(f"/people/{magnets}").text)
    # Unfollowing the name leaves its people too.
    site.post(f"/people/{magnets}/follow", headers=fan)
    site.post("/authors/zhe-qu/follow", headers=fan)
    site.post("/authors/zhe-qu/follow", data={"undo": "1"}, headers=fan)
    state = site.get("/for-you/state.json", headers=fan).json()
    assert state["followed_people"] == [] and state["followed_authors"] == []
    assert site.post("/people/999999/follow", headers=fan).status_code == 404


def _not_theirs(
    site: TestClient, who: dict[str, str], person: int, paper: str, undo: bool = False
) -> int:
    form = {"arxiv_id": paper} | ({"undo": "1"} if undo else {})
    answer = site.post(f"/people/{person}/not-theirs", data=form, headers=who)
    return answer.status_code


def test_not_theirs_changes_one_readers_view_until_three_agree_and_is_kept(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning = people[0]
    readers = [_signed_in(database, f"c{n}@example.org") for n in range(3)]
    wrong = LEARNING_PAPERS[2]
    assert _not_theirs(site, readers[0], learning, wrong) == 200
    mine = site.get(f"/people/{learning}", headers=readers[0])
    assert _papers(mine.text) == LEARNING_PAPERS[:2]
    assert "Papers you said are not theirs" in mine.text
    assert mine.headers["cache-control"] == "private, no-store"
    assert _papers(site.get(f"/people/{learning}").text) == LEARNING_PAPERS
    assert _papers(site.get(f"/people/{learning}", headers=readers[1]).text) == LEARNING_PAPERS
    _not_theirs(site, readers[1], learning, wrong)
    assert _papers(site.get(f"/people/{learning}").text) == LEARNING_PAPERS
    _not_theirs(site, readers[2], learning, wrong)
    # Three agree: the paper is a person of its own for everyone.
    assert _papers(site.get(f"/people/{learning}").text) == LEARNING_PAPERS[:2]
    assert "We think 3 people publish as" in site.get("/authors/zhe-qu").text
    # One takes it back: two are not enough, and the paper comes home.
    assert _not_theirs(site, readers[2], learning, wrong, undo=True) == 200
    assert _papers(site.get(f"/people/{learning}").text) == LEARNING_PAPERS
    with database.sessions() as session:
        rows = session.scalars(select(PersonCorrection).order_by(PersonCorrection.id)).all()
        assert [(r.arxiv_id, r.withdrawn_at is None) for r in rows] == [
            (wrong, True),
            (wrong, True),
            (wrong, False),
        ]


def test_a_verified_claimants_correction_holds_for_everyone_and_one_reader_is_rate_limited(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning = people[0]
    claimant = _signed_in(database, "own@example.org")
    site.post(f"/people/{learning}/claim", headers=claimant)
    with session_scope(database.sessions) as session:
        _row(session, "own@example.org").claim_verified_at = datetime.now(UTC)
    assert _not_theirs(site, claimant, learning, LEARNING_PAPERS[0]) == 200
    assert _papers(site.get(f"/people/{learning}").text) == LEARNING_PAPERS[1:]
    assert _not_theirs(site, claimant, learning, MAGNET_PAPERS[0]) == 404
    assert _not_theirs(site, {}, learning, LEARNING_PAPERS[1]) == 200  # to /signin
    busy = _signed_in(database, "busy@example.org")
    assert _not_theirs(site, busy, learning, LEARNING_PAPERS[1]) == 200
    with session_scope(database.sessions) as session:
        busy_id = _row(session, "busy@example.org").id
        others = sorted(set(session.scalars(select(Person.id))) - {learning})
        pairs = [(p, a) for p in others for a in LEARNING_PAPERS + MAGNET_PAPERS]
        session.add_all(
            PersonCorrection(
                subscriber_id=busy_id,
                person_id=person,
                arxiv_id=paper,
                author_key="zhe-qu",
                created_at=datetime.now(UTC),
            )
            for person, paper in pairs[: PER_DAY - 1]
        )
    assert _not_theirs(site, busy, learning, LEARNING_PAPERS[2]) == 400


def test_a_correction_taken_back_is_said_again_a_day_later_at_the_soonest(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    # Each change may split the name again: saying and unsaying must not go on all day.
    learning, wrong = people[0], LEARNING_PAPERS[2]
    fickle = _signed_in(database, "fickle@example.org")
    assert _not_theirs(site, fickle, learning, wrong) == 200
    assert _not_theirs(site, fickle, learning, wrong, undo=True) == 200
    assert _not_theirs(site, fickle, learning, wrong) == 400
    with session_scope(database.sessions) as session:
        row = session.scalars(select(PersonCorrection)).one()
        row.withdrawn_at = row.created_at = datetime.now(UTC) - timedelta(days=2)
    assert _not_theirs(site, fickle, learning, wrong) == 200
    with database.sessions() as session:
        row = session.scalars(select(PersonCorrection)).one()
        # Said again today: it counts among today's corrections.
        assert row.withdrawn_at is None and row.created_at > datetime.now(UTC) - timedelta(hours=1)


def test_corrections_move_with_their_person_and_can_be_taken_back_there(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning, magnets = people
    readers = [_signed_in(database, f"r{n}@example.org") for n in range(3)]
    wrong = MAGNET_PAPERS[1]
    for who in readers:
        _not_theirs(site, who, magnets, wrong)  # three agree: the paper is split off
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert site.get(f"/people/{magnets}", follow_redirects=False).status_code == 301
    mine = site.get(f"/people/{learning}", headers=readers[0]).text
    assert "Papers you said are not theirs" in mine
    assert _not_theirs(site, readers[0], learning, wrong, undo=True) == 200
    # Two are not enough: the paper comes back to the person its magnets papers went to.
    assert wrong in _papers(site.get(f"/people/{learning}").text)


def test_a_name_and_a_person_page_pass_axe_with_and_without_scripts(
    database: Database, people: tuple[int, int]
) -> None:
    for path in ("/authors/zhe-qu", f"/people/{people[1]}"):
        assert audited(database.settings, path) == {"light": [], "dark": [], "no-scripts": []}


def _text(page: str) -> str:
    """The page's text, its tags left out (the count is a script's to update)."""
    return re.sub(r"<[^>]+>", "", page)
