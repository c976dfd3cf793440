"""Corrections counted by people, not addresses, and the moderators who decide what readers
cannot: the attacks on a person's page as tests, on the real app and database. (Not under
tests/web: those share one filled site, and this store is its own.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from accounts import signin
from app.cli.main import main
from app.core.db import session_scope
from app.core.models import ModerationDecision, PaperPerson, PersonCorrection, SignInKey, Subscriber
from app.services.people import split_names
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.services.people_store import store_zhe_qu

LEARNING_PAPERS = ["2501.00001", "2501.00002", "2501.00003"]
WRONG = LEARNING_PAPERS[2]


@pytest.fixture
def learning(database: Database) -> int:
    """Zhe Qu split in two; the learning person's id."""
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    with database.sessions() as session:
        return session.get_one(PaperPerson, (LEARNING_PAPERS[0], "zhe-qu")).person_id


@pytest.fixture
def site(database: Database, learning: int) -> Iterator[TestClient]:
    with TestClient(create_app(database.settings)) as client:
        yield client


def signed_in(
    database: Database, address: str, proven_days_ago: float | None = 30
) -> dict[str, str]:
    """A reader's cookie; their mailbox proven (a first sign-in) that many days ago."""
    now = datetime.now(UTC)
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(database.settings, session, address, now)
        if proven_days_ago is not None:
            row = session.get_one(SignInKey, address)
            row.signed_in_at = now - timedelta(days=proven_days_ago)
    return {"cookie": f"{SESSION_COOKIE}={cookie}"}


def not_theirs(site: TestClient, who: dict[str, str], person: int, paper: str = WRONG) -> int:
    return site.post(
        f"/people/{person}/not-theirs", data={"arxiv_id": paper}, headers=who
    ).status_code


def papers(page: str) -> list[str]:
    return sorted(set(re.findall(r'<li class="paper" id="p-([^"]+)"', page)))


def held_for_everyone(site: TestClient, person: int) -> bool:
    shown = papers(site.get(f"/people/{person}").text)
    assert set(shown) <= set(LEARNING_PAPERS)
    return WRONG not in shown


def test_three_tag_addresses_of_one_mailbox_are_one_person_of_the_quorum(
    site: TestClient, database: Database, learning: int
) -> None:
    for tag in (1, 2, 3):
        assert not_theirs(site, signed_in(database, f"mallory+{tag}@example.org"), learning) == 200
    assert not_theirs(site, signed_in(database, "Mal.Lory+4@gmail.com"), learning) == 200
    assert not_theirs(site, signed_in(database, "mallory@googlemail.com"), learning) == 200
    assert not held_for_everyone(site, learning)  # two mailboxes, however many addresses
    assert not_theirs(site, signed_in(database, "ada@example.org"), learning) == 200
    assert held_for_everyone(site, learning)  # the third person


def test_a_mailbox_proven_less_than_a_week_before_does_not_count(
    site: TestClient, database: Database, learning: int
) -> None:
    for address in ("ada@example.org", "bob@example.org"):
        not_theirs(site, signed_in(database, address), learning)
    not_theirs(site, signed_in(database, "never@example.org", proven_days_ago=None), learning)
    not_theirs(site, signed_in(database, "fresh@example.org", proven_days_ago=6.9), learning)
    assert not held_for_everyone(site, learning)
    with session_scope(database.sessions) as session:
        session.execute(
            update(SignInKey)
            .where(SignInKey.email_key == "fresh@example.org")
            .values(signed_in_at=datetime.now(UTC) - timedelta(days=8))
        )
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert held_for_everyone(site, learning)


def test_only_a_verified_claimant_settles_a_correction_alone(
    site: TestClient, database: Database, learning: int
) -> None:
    claimant = signed_in(database, "zq@example.org")
    site.post(f"/people/{learning}/claim", headers=claimant)
    assert not_theirs(site, claimant, learning) == 200
    assert not held_for_everyone(site, learning)
    assert WRONG not in papers(site.get(f"/people/{learning}", headers=claimant).text)
    with session_scope(database.sessions) as session:
        session.execute(
            update(Subscriber)
            .where(Subscriber.email_key == "zq@example.org")
            .values(claim_verified_at=datetime.now(UTC), claim_verified_by="arxiv:test")
        )
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert held_for_everyone(site, learning)


def moderator(database: Database, address: str = "mod@example.org") -> dict[str, str]:
    assert main(["moderators", "add", address], database.settings) == 0
    return signed_in(database, address)


def decide(site: TestClient, who: dict[str, str], path: str, decision: str, reason: str) -> int:
    form = {"decision": decision, "reason": reason}
    return site.post(path, data=form, headers=who, follow_redirects=False).status_code


def test_the_queue_is_for_moderators_and_a_decision_needs_a_reason(
    site: TestClient, database: Database, learning: int, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = signed_in(database, "ada@example.org")
    site.post(f"/people/{learning}/claim", headers=reader)
    not_theirs(site, reader, learning)
    assert site.get("/moderation", headers=reader).status_code == 403
    assert site.get("/moderation", follow_redirects=False).status_code == 303
    mod = moderator(database)
    page = site.get("/moderation", headers=mod)
    assert page.status_code == 200 and page.headers["cache-control"] == "private, no-store"
    assert (
        "ada@example.org</span> claims" in page.text
        and f"/moderation/corrections/{learning}/{WRONG}" in page.text
    )
    with database.sessions() as session:
        ada = session.scalars(
            select(Subscriber).where(Subscriber.email_key == "ada@example.org")
        ).one()
    claim = f"/moderation/claims/{ada.id}/{learning}"
    assert decide(site, mod, claim, "approved", "   ") == 400
    assert decide(site, mod, claim, "maybe", "a reason") == 400
    assert decide(site, reader, claim, "approved", "I am me") == 403
    with database.sessions() as session:
        assert session.get_one(Subscriber, ada.id).claim_verified_at is None
        assert session.scalars(select(ModerationDecision)).all() == []
    capsys.readouterr()
    assert main(["moderators", "list"], database.settings) == 0
    assert "mod@example.org" in capsys.readouterr().out
    assert main(["moderators", "add", "not an address"], database.settings) == 2
    assert main(["moderators", "remove", "MOD@example.org"], database.settings) == 0
    assert main(["moderators", "remove", "mod@example.org"], database.settings) == 1
    assert site.get("/moderation", headers=mod).status_code == 403


def test_a_moderator_verifies_a_claim_once_and_the_claimant_reads_why(
    site: TestClient, database: Database, learning: int
) -> None:
    first, second = signed_in(database, "ada@example.org"), signed_in(database, "bob@example.org")
    site.post(f"/people/{learning}/claim", headers=first)
    site.post(f"/people/{learning}/follow", headers=second)  # makes Bob's row
    mod = moderator(database)
    with session_scope(database.sessions) as session:
        ids = dict(session.execute(select(Subscriber.email_key, Subscriber.id)).all())
        # Any number may claim a person unverified (the claim itself is another use case's).
        bob = session.get_one(Subscriber, ids["bob@example.org"])
        bob.claimed_person, bob.claimed_author = learning, "zhe-qu"
    assert (
        decide(
            site,
            mod,
            f"/moderation/claims/{ids['ada@example.org']}/{learning}",
            "approved",
            "ORCID checked",
        )
        == 303
    )
    assert "Claim approved" in site.get("/moderation?done=claim-approved", headers=mod).text
    bob_claim = f"/moderation/claims/{ids['bob@example.org']}/{learning}"
    assert decide(site, mod, bob_claim, "approved", "also him?") == 409
    assert decide(site, mod, bob_claim, "refused", "Ada is verified as this person") == 303
    assert decide(site, mod, bob_claim, "refused", "twice") == 404
    with database.sessions() as session:
        ada, bob = (
            session.get_one(Subscriber, ids[key]) for key in ("ada@example.org", "bob@example.org")
        )
        assert (ada.claimed_person, ada.claim_verified_by) == (
            learning,
            "moderator:mod@example.org",
        )
        assert bob.claimed_person is None
    mine = site.get("/moderation/decisions", headers=second).text
    assert "<strong>refused</strong>" in mine and "Ada is verified as this person" in mine
    assert "ORCID checked" not in mine
    assert "Decisions about you" in site.get("/for-you", headers=second).text


def test_an_approved_correction_holds_for_everyone_and_a_refused_one_never(
    site: TestClient, database: Database, learning: int
) -> None:
    mod = moderator(database)
    lone = signed_in(database, "lone@example.org", proven_days_ago=None)
    not_theirs(site, lone, learning)
    assert (
        decide(
            site,
            mod,
            f"/moderation/corrections/{learning}/{WRONG}",
            "approved",
            "a namesake's paper",
        )
        == 303
    )
    assert held_for_everyone(site, learning)
    assert "a namesake&#39;s paper" in site.get("/moderation/decisions", headers=lone).text
    other = LEARNING_PAPERS[1]
    for n in range(2):
        not_theirs(site, signed_in(database, f"r{n}@example.org"), learning, other)
    path = f"/moderation/corrections/{learning}/{other}"
    assert decide(site, mod, path, "refused", "Zhe Qu's own paper") == 303
    not_theirs(site, signed_in(database, "r2@example.org"), learning, other)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert other in papers(site.get(f"/people/{learning}").text)  # a quorum, but refused
    with database.sessions() as session:
        decided = session.scalars(
            select(ModerationDecision.decision).where(ModerationDecision.arxiv_id == other)
        )
        assert sorted(decided) == ["refused", "refused"]
        moderated = session.scalars(
            select(PersonCorrection.moderation).where(PersonCorrection.arxiv_id == other)
        )
        assert sorted(moderated, key=str) == [None, "refused", "refused"]
