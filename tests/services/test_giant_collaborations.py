"""A collaboration of thousands on the site: its group page and API answer count its members
and list only the closest (a paper lists its first authors and says how many there are), and a
correction on a group's page is refused with a reason, changing nothing. (Its own store, as
test_giant_pages.py's: three papers, each signed by a roster of 3,000 and the group.)"""

from __future__ import annotations

import html
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

from accounts import signin
from app.core.db import session_scope
from app.core.models import Author, Paper, PaperAuthor, PaperPerson, PersonCorrection
from app.services.people import split_names
from app.web.app import create_app
from app.web.profiles import AUTHORS_LISTED
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database

ROSTER = 3000
GROUP = ("giant-collaboration", "Giant Collaboration")
PAPERS = ("2503.00001", "2503.00002", "2503.00003")


def _store_collaboration(database: Database) -> int:
    """Three papers by the same 3,000 members and the group; the group's person id."""
    members = [(f"member-{n:04d}", f"Member {n:04d}") for n in range(ROSTER)]
    with session_scope(database.sessions) as session:
        names = [{"key": key, "name": name} for key, name in [*members, GROUP]]
        session.execute(insert(Author).values(names))
        session.add_all(
            Paper(
                arxiv_id=arxiv_id,
                title=f"Paper {arxiv_id}",
                abstract="An abstract.",
                content_hash="x",
                announced_on=date(2025, 3, day),
            )
            for day, arxiv_id in enumerate(PAPERS, start=1)
        )
        session.flush()
        # A statement a paper: PostgreSQL's search trigger then reads it once, not per row.
        for arxiv_id in PAPERS:
            signed = [
                {"arxiv_id": arxiv_id, "position": n, "author_key": key, "name": name}
                for n, (key, name) in enumerate([*members, GROUP])
            ]
            session.execute(insert(PaperAuthor).values(signed))
    split_names(database.settings, database.sessions, [GROUP[0], members[0][0]])
    with database.sessions() as session:
        [person] = set(
            session.scalars(select(PaperPerson.person_id).where(PaperPerson.author_key == GROUP[0]))
        )
    return person


@pytest.fixture
def group(database: Database) -> int:
    return _store_collaboration(database)


@pytest.fixture
def site(database: Database) -> Iterator[TestClient]:
    with TestClient(create_app(database.settings)) as client:
        yield client


def test_a_collaborations_answer_counts_its_thousands_and_lists_a_few(
    group: int, site: TestClient
) -> None:
    answer = site.get(f"/api/people/{group}")
    body = answer.json()
    assert (body["kind"], body["paperCount"], answer.headers["X-Total-Count"]) == ("group", 3, "3")
    assert [paper["id"] for paper in body["papers"]] == list(PAPERS[::-1])
    for paper in body["papers"]:
        assert len(paper["authors"]) == AUTHORS_LISTED
        assert paper["authors"][0] == {"name": "Member 0000", "key": "member-0000"}
        assert paper["authorCount"] == ROSTER + 1
    assert len(body["collaborators"]) <= 10 and body["collaboratorCount"] == ROSTER
    assert len(answer.content) < 200_000  # a few papers' worth, not 9,000 authors
    # A member's answer lists as few; the paper's own answer still names everyone.
    member = site.get("/api/authors/member-0000").json()
    assert member["collaboratorCount"] == ROSTER  # 2,999 members and the group
    assert all(len(paper["authors"]) == AUTHORS_LISTED for paper in member["papers"])
    assert len(site.get(f"/api/papers/{PAPERS[0]}").json()["authors"]) == ROSTER + 1
    page = site.get(f"/people/{group}").text
    assert f"10 of {ROSTER} co-authors shown" in " ".join(page.split())


def test_a_small_papers_answer_lists_every_author_and_no_count(
    group: int, database: Database, site: TestClient
) -> None:
    with session_scope(database.sessions) as session:
        session.add(Paper(arxiv_id="2503.00009", title="Alone", abstract="A.", content_hash="x"))
        session.flush()
        session.add(
            PaperAuthor(
                arxiv_id="2503.00009", position=0, author_key="member-0001", name="Member 0001"
            )
        )
    body = site.get("/api/authors/member-0001").json()
    [alone] = [paper for paper in body["papers"] if paper["id"] == "2503.00009"]
    assert len(alone["authors"]) == 1 and "authorCount" not in alone


def test_a_correction_on_a_group_page_is_refused_with_its_reason_and_stores_nothing(
    group: int, database: Database, site: TestClient
) -> None:
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(
            database.settings, session, "reader@example.org", datetime.now(UTC)
        )
    reader = {"cookie": f"{SESSION_COOKIE}={cookie}"}
    form = {"arxiv_id": PAPERS[0]}
    plain = site.post(f"/people/{group}/not-theirs", data=form, headers=reader)
    assert plain.status_code == 403
    assert "a group author's papers are all the group's" in html.unescape(plain.text)
    scripted = site.post(
        f"/people/{group}/not-theirs", data=form, headers=reader | {"accept": "application/json"}
    )
    assert scripted.status_code == 403
    assert "Paperboy does not split a collaboration" in scripted.text
    with database.sessions() as session:
        assert session.scalars(select(PersonCorrection)).all() == []
    assert site.get(f"/api/people/{group}").json()["paperCount"] == 3
