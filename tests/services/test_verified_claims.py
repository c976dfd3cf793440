"""Claims verified by arXiv, over real servers: the site, and a local server serving arXiv
author feeds built from recorded entries. A reader's ORCID iD is stored on their row as ORCID
sign-in stores it. Unverified claims change nothing public; the attacks of an impostor (claim
and hide, blocking the real person's claim) fail."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from accounts import reader
from app.core.db import session_scope
from app.core.models import ModerationDecision, OrcidPaper, PaperPerson, Person, Subscriber
from app.services.people import split_names
from app.web.app import create_app
from tests.conftest import Database
from tests.ingest.author_feeds import ORCID, OTHER_ORCID, author_feed, feed_path
from tests.ingest.recorded_server import RecordedServer, Reply
from tests.services.people_store import MAGNETS, store, store_zhe_qu
from tests.services.test_moderation import moderator as moderator_of
from tests.services.test_person_pages import _signed_in

ATOM = {"Content-Type": "application/atom+xml"}
# A real paper (its entry recorded from the arXiv API) written by the magnets person.
THEIRS = "1605.08386"
MARK = "claimed by its researcher (verified)"
# Another real paper, stored as the person's, that their feed leaves out until they link it.
LEFT_OUT = "1707.08567"


@pytest.fixture
def magnets(database: Database) -> int:
    store_zhe_qu(database)
    store(database, THEIRS, "zhe-qu dan-ruiz", "cond-mat.str-el", MAGNETS, day=6)
    split_names(database.settings, database.sessions)
    with database.sessions() as session:
        found = select(PaperPerson.person_id).where(
            PaperPerson.arxiv_id == THEIRS, PaperPerson.author_key == "zhe-qu"
        )
        return int(session.scalars(found).one())


@pytest.fixture
def site(database: Database, server: RecordedServer, magnets: int) -> Iterator[TestClient]:
    settings = database.settings.model_copy(
        update={
            "arxiv_author_feed_url": f"{server.url}/a",
            "arxiv_min_interval_seconds": 0.0,
            "arxiv_max_retries": 0,
            "http_timeout_seconds": 2.0,
            "contact_email": "ops@paperboy.test",
        }
    )
    with TestClient(create_app(settings)) as client:
        yield client


def _reader(database: Database, address: str, orcid: str | None = None) -> dict[str, str]:
    """A signed-in reader; with ``orcid``, one who proved that iD (signed in with ORCID)."""
    headers = _signed_in(database, address)
    with session_scope(database.sessions) as session:
        reader.reader_row(session, address, datetime.now(UTC)).orcid = orcid
    return headers


def _verified_by(database: Database, address: str) -> str | None:
    with database.sessions() as session:
        found = reader.find(session, address)
        assert found is not None
        return found.claim_verified_by


def _post(site: TestClient, path: str, who: dict[str, str]) -> tuple[int, str]:
    answer = site.post(path, headers=who, follow_redirects=False)
    return answer.status_code, answer.headers.get("location", "")


def _papers_of(database: Database, person: int) -> list[str]:
    with database.sessions() as session:
        found = select(PaperPerson.arxiv_id).where(PaperPerson.person_id == person)
        return sorted(session.scalars(found))


def test_a_verified_claimant_gets_a_paper_arxiv_left_out_by_linking_it_and_checking_again(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    # A paper on the person's subject, none of their co-authors, long before the feed is read.
    store(database, LEFT_OUT, "zhe-qu eve-park", "cond-mat.str-el", MAGNETS, day=3)
    split_names(database.settings, database.sessions, ["zhe-qu"])
    assert LEFT_OUT in _papers_of(database, magnets)
    first = Reply(200, author_feed(ORCID, THEIRS), ATOM)
    server.add(feed_path(ORCID), {}, first, Reply(200, author_feed(ORCID, THEIRS, LEFT_OUT), ATOM))
    zhe = _reader(database, "zq@example.org", ORCID)
    verified = (303, f"/people/{magnets}?arxiv=verified#claim-heading")
    assert _post(site, f"/people/{magnets}/claim", zhe) == verified
    # Verified, the name is split at once: the feed would list the paper if it were theirs.
    assert _papers_of(database, magnets) == [THEIRS, "2501.00004", "2501.00005"]
    own = site.get(f"/people/{magnets}", headers=zhe).text
    assert "Missing one? Link it to your arXiv account" in own
    assert "Check with arXiv again" in own
    # The claimant links it on arXiv and checks again: it is theirs.
    assert _post(site, f"/people/{magnets}/verify", zhe) == verified
    assert _papers_of(database, magnets) == [THEIRS, LEFT_OUT, "2501.00004", "2501.00005"]


def test_a_claim_is_verified_when_arxiv_lists_the_persons_paper_for_the_orcid(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    server.add(feed_path(ORCID), {}, Reply(200, author_feed(ORCID, THEIRS, "1707.08567"), ATOM))
    zhe = _reader(database, "zq@example.org", ORCID)
    assert MARK not in site.get(f"/people/{magnets}").text
    assert _post(site, f"/people/{magnets}/claim", zhe) == (
        303,
        f"/people/{magnets}?arxiv=verified#claim-heading",
    )
    assert _verified_by(database, "zq@example.org") == f"arxiv:{ORCID}"
    assert [one.path for one in server.arrivals] == [feed_path(ORCID)]
    with database.sessions() as session:
        listed = session.scalars(select(OrcidPaper.arxiv_id).where(OrcidPaper.orcid == ORCID))
        assert sorted(listed) == [THEIRS, "1707.08567"]
    assert MARK in site.get(f"/people/{magnets}").text
    own = site.get(f"/people/{magnets}?arxiv=verified", headers=zhe).text
    assert "Verified: arXiv lists papers of this person" in own
    assert "Your claim is <strong>verified</strong> by arXiv." in own
    # Asked with a script, the same answer in JSON.
    again = site.post(
        f"/people/{magnets}/claim", headers=zhe | {"accept": "application/json"}
    ).json()
    assert again == {"claimedPerson": magnets, "arxiv": "verified"}


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(200, author_feed(ORCID, "2104.12255"), ATOM), "not-listed"),
        (Reply(200, author_feed(ORCID), ATOM), "not-listed"),
        (Reply(404, b"<html>No such author</html>"), "no-account"),
        (Reply(503, b"down"), "unreachable"),
        (Reply(200, b"<feed><entry>", ATOM), "unreachable"),
    ],
    ids=["other-papers", "empty", "no-account", "down", "malformed"],
)
def test_a_claim_arxiv_does_not_confirm_stays_the_readers_own_until_checked_again(
    site: TestClient,
    database: Database,
    server: RecordedServer,
    magnets: int,
    reply: Reply,
    said: str,
) -> None:
    server.add(feed_path(ORCID), {}, reply, Reply(200, author_feed(ORCID, THEIRS), ATOM))
    zhe = _reader(database, "zq@example.org", ORCID)
    status, where = _post(site, f"/people/{magnets}/claim", zhe)
    assert (status, where) == (303, f"/people/{magnets}?arxiv={said}#claim-heading")
    assert _verified_by(database, "zq@example.org") is None
    assert "unclaimed" in site.get(f"/people/{magnets}").text
    own = site.get(where.split("#")[0], headers=zhe).text
    assert "Not verified" in own and "Check with arXiv again" in own
    assert _post(site, f"/people/{magnets}/hide", zhe)[0] == 403
    # arXiv lists the paper now: checking again verifies the claim.
    assert _post(site, f"/people/{magnets}/verify", zhe) == (
        303,
        f"/people/{magnets}?arxiv=verified#claim-heading",
    )
    assert _verified_by(database, "zq@example.org") == f"arxiv:{ORCID}"


def test_a_reader_without_an_orcid_is_told_how_to_verify(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    plain = _reader(database, "plain@example.org")
    assert _post(site, f"/people/{magnets}/claim", plain)[1].endswith(
        "?arxiv=no-orcid#claim-heading"
    )
    assert server.arrivals == []
    assert "sign in with ORCID" in site.get(f"/people/{magnets}?arxiv=no-orcid", headers=plain).text
    assert site.get(f"/people/{magnets}?arxiv=forged").status_code in (400, 422)


def test_an_impostors_claim_and_hide_leave_the_page_public(
    site: TestClient, database: Database, magnets: int
) -> None:
    mallory = _reader(database, "mallory@example.org")
    assert _post(site, f"/people/{magnets}/claim", mallory)[0] == 303
    assert _post(site, f"/people/{magnets}/hide", mallory)[0] == 403
    page = site.get(f"/people/{magnets}")
    assert page.status_code == 200 and "unclaimed" in page.text
    assert site.get(f"/api/people/{magnets}").json()["claimed"] is False
    with database.sessions() as session:
        assert session.get_one(Person, magnets).hidden is False


def test_the_real_persons_claim_outranks_an_impostors(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    server.add(feed_path(ORCID), {}, Reply(200, author_feed(ORCID, THEIRS), ATOM))
    mallory = _reader(database, "mallory@example.org")
    _post(site, f"/people/{magnets}/claim", mallory)
    zhe = _reader(database, "zq@example.org", ORCID)
    assert _post(site, f"/people/{magnets}/claim", zhe)[1].endswith("?arxiv=verified#claim-heading")
    refused = site.post(f"/people/{magnets}/verify", headers=mallory)
    assert refused.status_code == 409 and "already has a verified claimant" in refused.text
    assert _post(site, f"/people/{magnets}/hide", zhe)[0] == 303
    for who in ({}, mallory):
        assert site.get(f"/people/{magnets}", headers=who).status_code == 404
    assert "Hidden:" in site.get(f"/people/{magnets}", headers=zhe).text
    with database.sessions() as session:
        assert (session.get_one(Person, magnets).hidden_by or "").startswith("reader:")
        mallory_row = reader.find(session, "mallory@example.org")
        assert mallory_row is not None and mallory_row.claimed_person == magnets


def test_a_second_reader_whose_feed_lists_the_paper_is_refused_verification(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    for orcid in (ORCID, OTHER_ORCID):
        server.add(feed_path(orcid), {}, Reply(200, author_feed(orcid, THEIRS), ATOM))
    first = _reader(database, "first@example.org", ORCID)
    second = _reader(database, "second@example.org", OTHER_ORCID)
    _post(site, f"/people/{magnets}/claim", first)
    # The claim itself is kept, unverified; checking it with arXiv is refused.
    assert _post(site, f"/people/{magnets}/claim", second)[1].endswith("?arxiv=taken#claim-heading")
    assert site.post(f"/people/{magnets}/verify", headers=second).status_code == 409
    assert _verified_by(database, "second@example.org") is None
    assert [one.path for one in server.arrivals] == [feed_path(ORCID)]


def _moderate(
    site: TestClient, who: dict[str, str], person: int, decision: str, reason: str = "a reason"
) -> tuple[int, str]:
    """A moderator's decision on a person's page, as the queue's and the page's form send it."""
    form = {"decision": decision, "reason": reason}
    answer = site.post(
        f"/moderation/people/{person}", data=form, headers=who, follow_redirects=False
    )
    return answer.status_code, answer.headers.get("location", "")


def _hidden_by_zhe(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> dict[str, str]:
    """Zhe Qu's claim verified by arXiv, and the page hidden by them: their cookie."""
    server.add(feed_path(ORCID), {}, Reply(200, author_feed(ORCID, THEIRS), ATOM))
    zhe = _reader(database, "zq@example.org", ORCID)
    assert _post(site, f"/people/{magnets}/claim", zhe)[1].endswith("?arxiv=verified#claim-heading")
    assert _post(site, f"/people/{magnets}/hide", zhe)[0] == 303
    assert site.get(f"/people/{magnets}").status_code == 404
    return zhe


def test_a_page_hidden_by_its_verified_claimant_stays_hidden_until_they_or_a_moderator_say(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    zhe = _hidden_by_zhe(site, database, server, magnets)
    moderator = moderator_of(database)
    # A later unverified claim changes nothing (an earlier version showed the page again).
    late = _reader(database, "late@example.org")
    assert site.post(f"/people/{magnets}/claim", headers=late).status_code == 404
    page = site.get(f"/people/{magnets}", headers=moderator)
    assert page.status_code == 200 and "Show this page again (moderator)" in page.text
    # A moderator decides with a reason, never with the claimant's bare button.
    assert _post(site, f"/people/{magnets}/show", moderator)[0] == 403
    assert _moderate(site, moderator, magnets, "shown", "  ")[0] == 400
    assert site.get(f"/people/{magnets}").status_code == 404
    shown = _moderate(site, moderator, magnets, "shown", "The record is public")
    assert shown == (303, "/moderation?done=page-shown")
    assert site.get(f"/people/{magnets}").status_code == 200
    # What a moderator decided only a moderator changes: the claimant cannot hide it again.
    assert _post(site, f"/people/{magnets}/hide", zhe)[0] == 403
    assert site.get(f"/people/{magnets}").status_code == 200
    assert _moderate(site, moderator, magnets, "hidden", "Asked by mail")[0] == 303
    assert site.get(f"/people/{magnets}").status_code == 404
    assert site.get(f"/people/{magnets}", headers=zhe).status_code == 200
    assert _post(site, f"/people/{magnets}/show", zhe)[0] == 403
    with database.sessions() as session:
        assert session.get_one(Person, magnets).hidden_by == "moderator:mod@example.org"
    mine = site.get("/moderation/decisions", headers=zhe).text
    assert "<strong>shown again</strong> by a moderator" in mine and "The record is public" in mine
    assert "<strong>hidden</strong> by a moderator" in mine and "Asked by mail" in mine


def test_the_queue_lists_hidden_pages_and_keeps_each_page_decision(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    zhe = _hidden_by_zhe(site, database, server, magnets)
    moderator = moderator_of(database)
    queue = site.get("/moderation", headers=moderator).text
    assert "Hidden pages (1)" in queue and "hidden by its verified claimant" in queue
    assert _moderate(site, zhe, magnets, "shown")[0] == 403
    assert _moderate(site, moderator, magnets, "maybe")[0] == 400
    assert _moderate(site, moderator, 999_999, "hidden")[0] == 404
    with database.sessions() as session:
        assert session.scalars(select(ModerationDecision)).all() == []
        assert session.get_one(Person, magnets).hidden_by == f"reader:{_zhe_id(session)}"
    assert _moderate(site, moderator, magnets, "shown", "Not theirs to hide")[0] == 303
    queue = site.get("/moderation?done=page-shown", headers=moderator).text
    assert "Page shown again to everyone." in queue and "No page is hidden." in queue
    # A page nobody claims: the decision is kept all the same, naming no reader.
    with database.sessions() as session:
        other = session.scalars(select(Person.id).where(Person.id != magnets)).first()
    assert other is not None and _moderate(site, moderator, other, "hidden", "Spam")[0] == 303
    assert site.get(f"/people/{other}").status_code == 404
    with database.sessions() as session:
        kept = session.execute(
            select(
                ModerationDecision.kind,
                ModerationDecision.subscriber_id,
                ModerationDecision.person_id,
                ModerationDecision.decision,
            ).order_by(ModerationDecision.id)
        ).all()
        assert [tuple(row) for row in kept] == [
            ("hide", _zhe_id(session), magnets, "shown"),
            ("hide", None, other, "hidden"),
        ]


def test_unlinking_the_orcid_unverifies_the_claim_and_shows_the_hidden_page(
    site: TestClient, database: Database, server: RecordedServer, magnets: int
) -> None:
    zhe = _hidden_by_zhe(site, database, server, magnets)
    assert _post(site, "/for-you/orcid/unlink", zhe) == (303, "/for-you#orcid")
    assert _verified_by(database, "zq@example.org") is None
    public = site.get(f"/people/{magnets}")
    assert public.status_code == 200 and "unclaimed" in public.text and MARK not in public.text
    own = site.get(f"/people/{magnets}", headers=zhe).text
    assert "Your claim is <strong>unverified</strong>" in own
    assert site.get(f"/api/people/{magnets}").json()["claimed"] is False
    with database.sessions() as session:
        assert session.get_one(Person, magnets).hidden is False
        zhe_row = reader.find(session, "zq@example.org")
        assert zhe_row is not None and zhe_row.claimed_person == magnets


def _zhe_id(session: Session) -> int:
    found = session.scalars(select(Subscriber.id).where(Subscriber.email_key == "zq@example.org"))
    return int(found.one())
