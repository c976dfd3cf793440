import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from accounts import subscriptions
from app.core.models import SignInKey, Subscriber, UsedToken
from app.core.tokens import REPEAT_GRACE
from app.web import queries
from app.web.routes.voting import SESSION_COOKIE
from ranking.signals import votes_by_day
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock, Smtp
from tests.digest.editions import store_edition
from tests.digest.mail_links import press
from tests.digest.test_subscribe import link_in, stored, subscribe
from tests.ranking import voters


def sign_in(client: TestClient, smtp: Smtp, email: str = "ada@example.org") -> str:
    page = client.get("/signin")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    assert client.post("/signin", data={"email": email, "csrf": csrf.group(1)}).status_code == 200
    return link_in(smtp.handler.to(email)[-1], "/signin/confirm")


def test_a_signed_in_person_upvotes_once_and_can_take_it_back(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    assert press(client, sign_in(client, smtp)).status_code == 200
    assert client.post("/votes/2603.00001").json() == {
        "arxiv_id": "2603.00001",
        "votes": 1,
        "voted": True,
    }
    assert client.post("/votes/2603.00001").json()["votes"] == 1
    with Session(database.engine) as session:
        assert votes_by_day(session, ["2603.00001"], NOW.date()) == {("2603.00001", NOW.date()): 1}
    assert client.delete("/votes/2603.00001").json()["votes"] == 0


def test_voting_without_signing_in_or_for_an_unknown_paper_is_refused(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    assert client.post("/votes/2603.00001").status_code == 401
    press(client, sign_in(client, smtp))
    assert client.post("/votes/9999.99999").status_code == 404


def test_a_sign_in_link_works_once_and_not_after_it_expires(
    client: TestClient, smtp: Smtp, clock: Clock
) -> None:
    link = sign_in(client, smtp)
    assert press(client, link).status_code == 200
    clock.now += REPEAT_GRACE + timedelta(seconds=1)
    used = press(client, link)
    assert used.status_code == 400 and "used" in used.text
    late = sign_in(client, smtp, "bob@example.org")
    clock.now += timedelta(minutes=31)
    assert "expired" in press(client, late).text


def test_a_sign_in_link_pressed_again_moments_later_signs_in_as_the_first_did(
    client: TestClient, smtp: Smtp, clock: Clock, database: Database
) -> None:
    store_edition(database.sessions)
    link = sign_in(client, smtp)
    assert "Signed in" in press(client, link).text
    # The second press's answer is the one this browser keeps; its CSRF cookie stays.
    client.cookies.delete(SESSION_COOKIE)
    clock.now += timedelta(seconds=5)
    again = press(client, link)
    assert again.status_code == 200 and "You can vote now as ada@example.org" in again.text
    assert client.post("/votes/2603.00001").json()["votes"] == 1
    with Session(database.engine) as session:
        assert session.scalar(select(func.count()).select_from(UsedToken)) == 1
        assert session.scalar(select(SignInKey.signed_in_at)) == NOW


def test_a_papers_cards_show_its_votes_next_to_its_hugging_face_upvotes(
    client: TestClient, smtp: Smtp, database: Database
) -> None:
    store_edition(database.sessions)
    assert press(client, sign_in(client, smtp)).status_code == 200
    client.post("/votes/2603.00001")
    with Session(database.engine) as session:
        found = queries.signals(session, ["2603.00001", "2603.00002"])
    assert (found["2603.00001"].votes, found["2603.00001"].upvotes) == (1, 0)
    assert "2603.00002" not in found  # no signal of any kind


def test_an_established_voter_who_unsubscribes_and_confirms_again_keeps_full_weight(
    client: TestClient, smtp: Smtp, clock: Clock, database: Database
) -> None:
    store_edition(database.sessions)
    subscribe(client)
    press(client, link_in(smtp.handler.to("ada@example.org")[-1], "/subscribe/confirm"))
    clock.now += timedelta(days=10)  # a week after the proof: ada's vote counts fully
    voted_at = clock.now
    press(client, sign_in(client, smtp))
    assert client.post("/votes/2603.00001").json()["votes"] == 1
    newcomers = [f"new{n}@example.org" for n in range(3)]  # together they count for two
    voters.sign_in(database, newcomers, voted_at)
    voters.cast(database, newcomers, "2603.00001", voted_at)
    with database.sessions.begin() as session:
        subscriptions.unsubscribe(session.scalars(select(Subscriber)).one(), clock.now)
    clock.now += timedelta(days=2)
    subscribe(client)
    press(client, link_in(smtp.handler.to("ada@example.org")[-1], "/subscribe/confirm"))

    with Session(database.engine) as session:
        counted = votes_by_day(session, ["2603.00001"], voted_at.date())
    assert counted == {("2603.00001", voted_at.date()): pytest.approx(3)}
    [ada] = [row for row in stored(database) if row.email_key == "ada@example.org"]
    assert (ada.status, ada.confirmed_at) == ("active", NOW)
