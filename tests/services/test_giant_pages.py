"""Groups and giants on the site: a group author's page and API answer say it is a group (no
split, no claim), and a person with hundreds of papers is shown 100 a page, with their total
on every page. (Its own store, as test_person_pages.py's.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import signin
from app.core.db import session_scope
from app.core.models import Author, Paper, PaperAuthor, PaperPerson, Person, Subscriber
from app.services.people import split_names
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.services.people_store import LEARNING, MAGNETS, store

MANY = 205


def _signed_in(database: Database, address: str) -> dict[str, str]:
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(database.settings, session, address, datetime.now(UTC))
    return {"cookie": f"{SESSION_COOKIE}={cookie}"}  # three pages: 100, 100 and 5


def _person_of(database: Database, key: str) -> int:
    with database.sessions() as session:
        people = set(
            session.scalars(select(PaperPerson.person_id).where(PaperPerson.author_key == key))
        )
    assert len(people) == 1
    return people.pop()


def _papers(page: str) -> list[str]:
    return re.findall(r'<li class="paper" id="p-([^"]+)"', page)


@pytest.fixture
def site(database: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database.settings)) as client:
        yield client


def _store_group(database: Database) -> int:
    store(database, "2501.00001", "kling-team ana-lima bo-chen", "cs.LG", LEARNING)
    store(database, "2501.00002", "cy-ito kling-team dan-ruiz", "cond-mat.str-el", MAGNETS)
    store(database, "2501.00003", "zhe-qu ana-lima bo-chen", "cs.LG", LEARNING)
    store(database, "2501.00004", "zhe-qu cy-ito dan-ruiz", "cond-mat.str-el", MAGNETS)
    split_names(database.settings, database.sessions)
    return _person_of(database, "kling-team")


def test_a_group_authors_page_says_it_is_a_group_with_no_split_and_no_claim(
    database: Database, site: TestClient
) -> None:
    group = _store_group(database)
    page = site.get(f"/people/{group}")
    assert page.status_code == 200
    assert "A group author: a collaboration, team or consortium" in page.text
    assert sorted(_papers(page.text)) == ["2501.00001", "2501.00002"]
    for absent in ("This is me", "people who publish as", "We think", "/not-theirs", "claimed"):
        assert absent not in page.text
    name = site.get("/authors/kling-team").text
    assert "A group author" in name and "We think" not in name and "This is me" not in name
    body = site.get(f"/api/people/{group}").json()
    assert (body["kind"], body["paperCount"], body["people"]) == ("group", 2, [])
    # Nobody claims a group, even by sending the form the page leaves out.
    reader = _signed_in(database, "kling@example.org")
    assert site.post(f"/people/{group}/claim", headers=reader).status_code == 403
    with database.sessions() as session:
        assert session.scalars(select(Subscriber.claimed_person)).all() in ([], [None])


def test_a_persons_and_a_names_api_answers_say_which_they_are(
    database: Database, site: TestClient
) -> None:
    _store_group(database)
    with database.sessions() as session:
        learning = session.scalar(
            select(PaperPerson.person_id).where(
                PaperPerson.arxiv_id == "2501.00003", PaperPerson.author_key == "zhe-qu"
            )
        )
    person = site.get(f"/api/people/{learning}").json()
    assert (person["kind"], person["paperCount"]) == ("person", 1)
    assert site.get("/api/authors/zhe-qu").json()["kind"] == "name"
    assert "A group author" not in site.get(f"/people/{learning}").text


def _store_many(database: Database, count: int) -> list[str]:
    """``count`` papers of Ana Lima with Bo Chen and Cy Ito (one person), newest last."""
    ids = [f"2502.{n:05d}" for n in range(count)]
    names = {"ana-lima": "Ana Lima", "bo-chen": "Bo Chen", "cy-ito": "Cy Ito"}
    with session_scope(database.sessions) as session:
        session.add_all(Author(key=key, name=name) for key, name in names.items())
        session.add_all(
            Paper(
                arxiv_id=arxiv_id,
                title=f"Paper {arxiv_id}",
                abstract="An abstract.",
                content_hash="x",
                announced_on=date(2025, 1, 1) + timedelta(days=n),
            )
            for n, arxiv_id in enumerate(ids)
        )
        session.flush()
        session.add_all(
            PaperAuthor(arxiv_id=arxiv_id, position=n, author_key=key, name=name)
            for arxiv_id in ids
            for n, (key, name) in enumerate(names.items())
        )
    split_names(database.settings, database.sessions)
    return ids


def test_a_persons_papers_come_100_a_page_with_links_to_the_next_and_previous(
    database: Database, site: TestClient
) -> None:
    ids = _store_many(database, MANY)
    person = _person_of(database, "ana-lima")
    newest_first = ids[::-1]
    first, second, third = (site.get(f"/people/{person}?page={n}").text for n in (1, 2, 3))
    assert _papers(first) == newest_first[:100]
    assert _papers(second) == newest_first[100:200]
    assert _papers(third) == newest_first[200:]
    assert f"{MANY} papers in Paperboy" in third  # the total, on every page
    assert 'href="?page=2" rel="next"' in first and 'rel="prev"' not in first
    assert 'href="?page=1" rel="prev"' in second and 'href="?page=3" rel="next"' in second
    assert 'href="?page=2" rel="prev"' in third and 'rel="next"' not in third
    assert "Page 2 of 3" in second and '<ol class="papers" start="101">' in second
    assert site.get(f"/people/{person}?page=4").status_code == 404
    assert _papers(site.get("/authors/ana-lima?page=3").text) == newest_first[200:]
    assert site.get(f"/people/{person}?page=0").status_code == 400


def test_a_persons_api_answer_comes_100_papers_a_page_with_the_total_and_links(
    database: Database, site: TestClient
) -> None:
    ids = _store_many(database, MANY)
    person = _person_of(database, "ana-lima")
    answer = site.get(f"/api/people/{person}")
    body = answer.json()
    assert (body["paperCount"], body["page"], body["pages"]) == (MANY, 1, 3)
    assert [one["id"] for one in body["papers"]] == ids[::-1][:100]
    assert answer.headers["X-Total-Count"] == str(MANY)
    assert re.fullmatch(r'<[^>]*/api/people/\d+\?page=2>; rel="next"', answer.headers["Link"])
    last = site.get(f"/api/people/{person}", params={"page": 3})
    assert [one["id"] for one in last.json()["papers"]] == ids[::-1][200:]
    assert 'rel="prev"' in last.headers["Link"] and 'rel="next"' not in last.headers["Link"]
    assert site.get(f"/api/people/{person}", params={"page": 4}).status_code == 404
    assert site.get(f"/api/people/{person}", params={"page": "x"}).status_code == 400
    name = site.get("/api/authors/ana-lima", params={"page": 2})
    assert [one["id"] for one in name.json()["papers"]] == ids[::-1][100:200]
    assert name.headers["X-Total-Count"] == str(MANY) and name.json()["kind"] == "name"


def _verified_claimant(database: Database, site: TestClient, person: int) -> dict[str, str]:
    """A reader whose claim of ``person`` is verified, as a moderator's approval stores it."""
    reader = _signed_in(database, "ana@example.org")
    site.post(f"/people/{person}/claim", headers=reader)
    with session_scope(database.sessions) as session:
        row = session.scalars(select(Subscriber).where(Subscriber.claimed_person == person)).one()
        row.claim_verified_at = datetime.now(UTC)
        row.claim_verified_by = "moderator:mod@example.org"
    return reader


def _held(database: Database, person: int) -> int:
    with database.sessions() as session:
        count = session.scalar(select(Person.paper_count).where(Person.id == person))
    assert count is not None
    return count


def test_a_persons_total_is_kept_by_the_split_and_follows_a_correction(
    database: Database, site: TestClient
) -> None:
    ids = _store_many(database, 250)
    person = _person_of(database, "ana-lima")
    newest_first = ids[::-1]
    assert _held(database, person) == 250
    second = site.get(f"/api/people/{person}", params={"page": 2}).json()
    assert [one["id"] for one in second["papers"]] == newest_first[100:200]
    assert (second["paperCount"], second["pages"]) == (250, 3)
    assert _papers(site.get(f"/people/{person}?page=2").text) == newest_first[100:200]
    # The verified claimant says the newest is not theirs: the name is split again at once.
    claimant = _verified_claimant(database, site, person)
    answer = site.post(f"/people/{person}/not-theirs", data={"arxiv_id": ids[-1]}, headers=claimant)
    assert answer.status_code == 200
    assert _held(database, person) == 249
    moved = site.get(f"/api/people/{person}", params={"page": 2})
    assert moved.headers["X-Total-Count"] == "249"
    assert [one["id"] for one in moved.json()["papers"]] == newest_first[101:201]
    with database.sessions() as session:
        apart = session.scalar(
            select(PaperPerson.person_id).where(
                PaperPerson.arxiv_id == ids[-1], PaperPerson.author_key == "ana-lima"
            )
        )
    assert apart is not None and apart != person and _held(database, apart) == 1
    assert site.get(f"/api/people/{apart}").json()["paperCount"] == 1
