"""A name's people on the site: the name page lists them, each has a page, a moved person's
address answers 301, and "This is me" claims one person, who alone may hide the page. (Not
under tests/web: those share one filled site, and this store is its own.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.db import session_scope
from app.core.models import DigestFeedback, PaperPerson, Subscriber
from app.services.people import split_names
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from digest.accounts import signin
from tests.conftest import Database
from tests.ranking.axe_check import audited
from tests.services.people_store import LEARNING, store, store_zhe_qu

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
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(database.settings, session, address, datetime.now(UTC))
    return {"cookie": f"{SESSION_COOKIE}={cookie}"}


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


def test_a_person_left_without_papers_answers_301_to_the_person_who_has_them(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    learning, magnets = people
    store(database, "2501.00008", "zhe-qu ana-lima dan-ruiz", "cs.LG", LEARNING)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    moved = site.get(f"/people/{magnets}", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"/people/{learning}")
    assert _papers(site.get(f"/people/{learning}").text) == sorted(
        LEARNING_PAPERS + MAGNET_PAPERS + ["2501.00008"]
    )
    assert "people publish as" not in site.get("/authors/zhe-qu").text
    assert site.get("/people/999999").status_code == 404
    assert site.get("/people/0").status_code == 400


def test_this_is_me_claims_one_person_whose_claimant_alone_can_hide_the_page(
    site: TestClient, database: Database, people: tuple[int, int]
) -> None:
    magnets = people[1]
    zhe, other = _signed_in(database, "zq@example.org"), _signed_in(database, "x@example.org")
    claimed = site.post(f"/people/{magnets}/claim", headers=zhe, follow_redirects=False)
    assert claimed.status_code == 303
    with database.sessions() as session:
        reader = session.scalars(
            select(Subscriber).where(Subscriber.email_key == "zq@example.org")
        ).one()
        assert (reader.claimed_person, reader.claimed_author) == (magnets, "zhe-qu")
        liked = session.scalars(
            select(DigestFeedback.arxiv_id).where(DigestFeedback.subscriber_id == reader.id)
        )
        assert sorted(liked) == MAGNET_PAPERS
    assert site.post(f"/people/{magnets}/hide", headers=other).status_code == 403
    assert (
        site.post(f"/people/{magnets}/hide", headers=zhe, follow_redirects=False).status_code == 303
    )
    assert site.get(f"/people/{magnets}").status_code == 404
    assert site.get(f"/people/{magnets}", headers=other).status_code == 404
    own = site.get(f"/people/{magnets}", headers=zhe)
    assert own.status_code == 200 and "Hidden:" in own.text
    assert own.headers["cache-control"] == "private, no-store"
    assert f'<a href="/people/{magnets}">' not in site.get("/authors/zhe-qu").text
    site.post(f"/people/{magnets}/unclaim", headers=zhe)
    assert site.get(f"/people/{magnets}").status_code == 200
    with database.sessions() as session:
        reader = session.scalars(
            select(Subscriber).where(Subscriber.email_key == "zq@example.org")
        ).one()
        assert reader.claimed_person is None


def test_a_name_and_a_person_page_pass_axe_with_and_without_scripts(
    database: Database, people: tuple[int, int]
) -> None:
    for path in ("/authors/zhe-qu", f"/people/{people[1]}"):
        assert audited(database.settings, path) == {"light": [], "dark": [], "no-scripts": []}
