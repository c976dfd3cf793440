"""Corrections under a burst: fifty requests sent together, each from its own thread and
connection, to the app served by uvicorn over the real database; the limits hold, the same
correction is stored once, and no person is left an empty page."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select, update

from accounts.corrections import PER_DAY
from app.core.db import session_scope
from app.core.models import PaperPerson, Person, PersonCorrection, Subscriber
from app.services.people import split_names
from app.web.app import create_app
from tests.conftest import Database
from tests.servers import served
from tests.services.people_store import LEARNING, store
from tests.services.test_moderation import signed_in

BURST = 50


@pytest.fixture
def papers(database: Database) -> list[str]:
    """Sixty papers of Zhe Qu with the same co-authors: one person."""
    ids = [f"2502.{n:03d}01" for n in range(BURST + 10)]
    for arxiv_id in ids:
        store(database, arxiv_id, "zhe-qu ana-lima bo-chen", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions)
    return ids


@pytest.fixture
def base_url(database: Database, papers: list[str]) -> Iterator[str]:
    with served(create_app(database.settings)) as url:
        yield url


def person_of(database: Database, arxiv_id: str) -> int:
    with database.sessions() as session:
        return session.get_one(PaperPerson, (arxiv_id, "zhe-qu")).person_id


def burst(base_url: str, who: dict[str, str], forms: list[tuple[int, str]]) -> list[int]:
    """Each (person, paper) said "not theirs" at once, one thread and connection each."""

    def send(form: tuple[int, str]) -> int:
        person, arxiv_id = form
        with httpx.Client(base_url=base_url, timeout=120) as client:
            answer = client.post(
                f"/people/{person}/not-theirs", data={"arxiv_id": arxiv_id}, headers=who
            )
            return answer.status_code

    with ThreadPoolExecutor(max_workers=len(forms)) as pool:
        return list(pool.map(send, forms))


def stored(database: Database) -> int:
    with database.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(PersonCorrection)) or 0)


def test_fifty_corrections_at_once_store_at_most_a_days_limit(
    base_url: str, database: Database, papers: list[str]
) -> None:
    person = person_of(database, papers[0])
    who = signed_in(database, "burst@example.org")
    answers = burst(base_url, who, [(person, paper) for paper in papers[:BURST]])
    assert set(answers) <= {303, 400}
    assert answers.count(303) == PER_DAY
    assert stored(database) == PER_DAY


def test_one_correction_sent_fifty_times_at_once_is_stored_once(
    base_url: str, database: Database, papers: list[str]
) -> None:
    person = person_of(database, papers[0])
    who = signed_in(database, "twice@example.org")
    answers = burst(base_url, who, [(person, papers[0])] * BURST)
    assert set(answers) == {303}
    assert stored(database) == 1


def test_accepted_corrections_racing_leave_no_person_an_empty_page(
    base_url: str, database: Database, papers: list[str]
) -> None:
    person = person_of(database, papers[0])
    claimant = signed_in(database, "zq@example.org")
    assert httpx.post(f"{base_url}/people/{person}/claim", headers=claimant).status_code == 303
    with session_scope(database.sessions) as session:
        session.execute(
            update(Subscriber)
            .where(Subscriber.email_key == "zq@example.org")
            .values(claim_verified_at=datetime.now(UTC), claim_verified_by="arxiv:test")
        )
    answers = burst(base_url, claimant, [(person, paper) for paper in papers[1 : PER_DAY + 1]])
    assert set(answers) == {303}
    with database.sessions() as session:
        everyone = list(session.scalars(select(Person.id).where(Person.author_key == "zhe-qu")))
        of_name = select(PaperPerson.person_id).where(PaperPerson.author_key == "zhe-qu")
        holding = set(session.scalars(of_name))
    # Each correction holds: the claimant's person keeps the rest, each paper is its own.
    assert len(holding) == PER_DAY + 1
    for someone in everyone:
        answer = httpx.get(f"{base_url}/people/{someone}", follow_redirects=False)
        assert answer.status_code in {200, 301, 404}
        assert (answer.status_code == 200) == (someone in holding)


def test_a_person_left_with_no_papers_answers_404_not_an_empty_page(
    base_url: str, database: Database, papers: list[str]
) -> None:
    with session_scope(database.sessions) as session:
        empty = Person(author_key="zhe-qu", created_at=datetime.now(UTC))
        session.add(empty)
        session.flush()
        empty_id = empty.id
    assert httpx.get(f"{base_url}/people/{empty_id}").status_code == 404
    assert httpx.get(f"{base_url}/api/people/{empty_id}").status_code == 404
