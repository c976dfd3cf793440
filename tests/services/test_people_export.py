"""A reader's data export holds what they did about people: votes, "not by this person"
corrections, their claim and its verification, pages they hid, and moderators' decisions."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from accounts import reader, signin
from app.core.db import session_scope
from app.core.models import ModerationDecision, PaperPerson, Person
from app.services.people import split_names
from app.web.app import create_app
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.services.people_store import store_zhe_qu

ADDRESS = "zhe@example.org"
DECIDED = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
VERIFIED = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def _learning_person(database: Database) -> int:
    with database.sessions() as session:
        person = session.scalar(
            select(PaperPerson.person_id).where(
                PaperPerson.arxiv_id == "2501.00001", PaperPerson.author_key == "zhe-qu"
            )
        )
    assert person is not None
    return person


def test_the_export_read_back_holds_votes_corrections_claims_and_decisions(
    database: Database,
) -> None:
    store_zhe_qu(database)
    split_names(database.settings, database.sessions)
    person = _learning_person(database)
    with session_scope(database.sessions) as session:
        cookie = signin.session_token(database.settings, session, ADDRESS, datetime.now(UTC))
    headers = {"cookie": f"{SESSION_COOKIE}={cookie}"}
    with TestClient(create_app(database.settings)) as site:
        assert site.post("/votes/2501.00002", headers=headers).json()["voted"] is True
        site.post(f"/people/{person}/claim", headers=headers)
        site.post(f"/people/{person}/not-theirs", data={"arxiv_id": "2501.00003"}, headers=headers)
        # What the ORCID sign-in and a moderator store, as they store it.
        with session_scope(database.sessions) as session:
            found = reader.find(session, ADDRESS)
            assert found is not None and found.claimed_person == person
            found.orcid, found.claim_verified_at = "0000-0002-1825-0097", VERIFIED
            found.claim_verified_by = "arxiv:0000-0002-1825-0097"
            session.execute(
                update(Person)
                .where(Person.id == person)
                .values(hidden=True, hidden_by=f"reader:{found.id}")
            )
            session.add(
                ModerationDecision(
                    kind="claim",
                    subscriber_id=found.id,
                    person_id=person,
                    decision="approved",
                    reason="Listed by arXiv for this ORCID iD.",
                    moderator="mod@example.org",
                    decided_at=DECIDED,
                )
            )
        answer = site.get("/for-you/data.json", headers=headers)
    assert answer.status_code == 200
    data = json.loads(answer.content)
    assert [vote["arxiv_id"] for vote in data["votes"]] == ["2501.00002"]
    assert data["claimed_person"] == person
    assert data["orcid"] == "0000-0002-1825-0097"
    assert data["claim_verified_by"] == "arxiv:0000-0002-1825-0097"
    assert datetime.fromisoformat(data["claim_verified_at"]) == VERIFIED
    [correction] = data["corrections"]
    assert correction["person_id"] == person and correction["arxiv_id"] == "2501.00003"
    assert correction["author_key"] == "zhe-qu" and correction["withdrawn_at"] is None
    assert data["hidden_people"] == [person]
    [decision] = data["moderation_decisions"]
    assert decision["kind"] == "claim" and decision["decision"] == "approved"
    assert decision["reason"] == "Listed by arXiv for this ORCID iD."
    assert datetime.fromisoformat(decision["decided_at"]) == DECIDED
    assert "mod@example.org" not in answer.text  # the moderator's address is not the reader's
