"""Sign in with ORCID against a real OpenID Connect provider on a local port
(``tests/oidc_provider.py``): a signed-in reader links their iD, and later signs in with it
alone; state, nonce, PKCE, the issuer and the code are each checked, and every refusal leaves
every reader's iD as it was."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import orcid, signin
from app.core.config import Settings
from app.core.models import Subscriber
from app.web.app import create_app
from app.web.routes.orcid import FLOW_COOKIE, FLOW_PATH
from app.web.routes.voting import SESSION_COOKIE
from tests.conftest import Database
from tests.oidc_provider import Provider, oidc_provider
from tests.servers import free_port

ADA, BOB = "ada@example.org", "bob@example.org"
JOSIAH = "0000-0002-1825-0097"  # ORCID's own example iD
CALLBACK = "/signin/orcid/callback"


def orcid_settings(database: Database, issuer: str) -> Settings:
    return database.settings.model_copy(
        update={
            "orcid_issuer": issuer,
            "orcid_client_id": "APP-PAPERBOY0TEST",
            "orcid_client_secret": "the-client-secret-orcid-gave",
        }
    )


@pytest.fixture
def provider() -> Iterator[Provider]:
    with oidc_provider() as running:
        yield running


@pytest.fixture
def settings(database: Database, provider: Provider) -> Settings:
    return orcid_settings(database, provider.base_url)


@pytest.fixture
def site(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def _links(database: Database) -> dict[str, str | None]:
    with database.sessions() as session:
        rows = session.scalars(select(Subscriber).where(Subscriber.orcid.is_not(None)))
        return {row.email_key: row.orcid for row in rows}


def _link_directly(database: Database, address: str, orcid_id: str) -> None:
    with database.sessions.begin() as session:
        orcid.link(session, address, orcid_id, datetime.now(UTC))


def _signed_in(client: TestClient, database: Database, settings: Settings, address: str) -> None:
    with database.sessions.begin() as session:
        cookie = signin.session_token(settings, session, address, datetime.now(UTC))
    client.cookies.set(SESSION_COOKIE, cookie)


def _start(client: TestClient) -> str:
    """Press "Sign in with ORCID": the provider's authorization URL it leads to."""
    answer = client.get("/signin/orcid", follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def _with_orcid(client: TestClient, provider: Provider, orcid_id: str) -> Any:
    return client.get(provider.authorize(_start(client), orcid_id))


def _query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def _voter(client: TestClient) -> object:
    return client.get("/for-you/state.json").json()["signed_in"]


def test_a_signed_in_reader_links_their_orcid_then_signs_in_with_it_alone(
    site: TestClient, settings: Settings, database: Database, provider: Provider
) -> None:
    _signed_in(site, database, settings, ADA)
    linked = _with_orcid(site, provider, JOSIAH)
    assert linked.status_code == 200 and "ORCID iD linked" in linked.text
    assert _links(database) == {ADA: JOSIAH}
    assert len(provider.verified_verifiers) == 1  # the code went with its PKCE verifier
    assert JOSIAH in site.get("/for-you").text and "Unlink my ORCID iD" in site.get("/for-you").text

    with TestClient(create_app(settings)) as elsewhere:
        answer = _with_orcid(elsewhere, provider, JOSIAH)
        assert answer.status_code == 200 and f"You are signed in as {ADA}" in answer.text
        assert _voter(elsewhere) is True
        assert FLOW_COOKIE not in elsewhere.cookies  # the sign-in's cookie is cleared


def test_the_request_to_orcid_carries_state_nonce_and_an_s256_challenge(
    site: TestClient, settings: Settings
) -> None:
    answer = site.get("/signin/orcid", follow_redirects=False)
    asked = _query(answer.headers["location"])
    assert asked["response_type"] == "code" and asked["scope"] == "openid"
    assert asked["client_id"] == settings.orcid_client_id
    assert asked["redirect_uri"] == f"{settings.public_base_url}{CALLBACK}"
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert len(asked["state"]) >= 32 and len(asked["nonce"]) >= 32
    cookie = answer.headers["set-cookie"].lower()
    assert f"path={FLOW_PATH}" in cookie and "samesite=lax" in cookie and "httponly" in cookie


def test_an_answer_for_another_state_is_refused_and_spends_nothing(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _signed_in(site, database, settings, ADA)
    back = provider.authorize(_start(site), JOSIAH)
    forged = back.replace(f"state={_query(back)['state']}", "state=forged")
    refused = site.get(forged)
    assert refused.status_code == 400 and "state does not match" in refused.text
    assert _links(database) == {}
    assert "ORCID iD linked" in site.get(back).text  # the real answer still finishes it


def test_an_answer_in_a_browser_that_did_not_start_the_sign_in_is_refused(
    site: TestClient, settings: Settings, provider: Provider
) -> None:
    back = provider.authorize(_start(site), JOSIAH)
    with TestClient(create_app(settings)) as other:
        refused = other.get(back)
    assert refused.status_code == 400 and "not started in this browser" in refused.text


def test_a_replayed_answer_is_refused_and_opens_no_session(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _link_directly(database, ADA, JOSIAH)
    back = provider.authorize(_start(site), JOSIAH)
    flow_cookie = site.cookies[FLOW_COOKIE]
    assert "Signed in" in site.get(back).text
    with TestClient(create_app(settings)) as replaying:
        replaying.cookies.set(FLOW_COOKIE, flow_cookie, path=FLOW_PATH)
        refused = replaying.get(back)
        assert refused.status_code == 400 and "finished already" in refused.text
        assert SESSION_COOKIE not in replaying.cookies
    assert _links(database) == {ADA: JOSIAH}


def _injected(site: TestClient, settings: Settings, provider: Provider) -> Any:
    """The callback of this browser's sign-in, carrying the code of another sign-in (an
    attacker's, for their own iD)."""
    mine = _query(provider.authorize(_start(site), JOSIAH))
    with TestClient(create_app(settings)) as attacker:
        theirs = _query(provider.authorize(_start(attacker), "0000-0002-1694-233X"))
    return site.get(f"{CALLBACK}?state={mine['state']}&code={theirs['code']}")


def test_another_sign_ins_code_is_refused_by_pkce(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _signed_in(site, database, settings, ADA)
    refused = _injected(site, settings, provider)
    assert refused.status_code == 400 and "invalid_grant" in refused.text
    assert _links(database) == {}


def test_another_sign_ins_code_is_refused_by_the_nonce_where_pkce_is_not_checked(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    provider.checks_pkce = False
    _signed_in(site, database, settings, ADA)
    refused = _injected(site, settings, provider)
    assert refused.status_code == 400 and "nonce" in refused.text
    assert _links(database) == {}


@pytest.mark.parametrize("how", ["expired", "used"])
def test_a_code_expired_or_used_already_is_refused(
    site: TestClient, database: Database, settings: Settings, provider: Provider, how: str
) -> None:
    provider.checks_pkce = False  # so that someone else can spend the code first
    _signed_in(site, database, settings, ADA)
    back = provider.authorize(_start(site), JOSIAH)
    code = _query(back)["code"]
    if how == "expired":
        provider.expired.add(code)
    else:
        redirect_uri = f"{settings.public_base_url}{CALLBACK}"
        provider.exchange_first(code, settings.orcid_client_id, redirect_uri)
    refused = site.get(back)
    assert refused.status_code == 400 and "expired or was used" in refused.text
    assert _links(database) == {}


def test_a_provider_describing_another_issuer_is_not_used(
    site: TestClient, provider: Provider
) -> None:
    provider.other_issuer_in.add("discovery")
    refused = site.get("/signin/orcid", follow_redirects=False)
    assert refused.status_code == 503 and provider.other_issuer in refused.text


def test_an_id_token_from_another_issuer_is_refused(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _signed_in(site, database, settings, ADA)
    back = provider.authorize(_start(site), JOSIAH)
    provider.other_issuer_in.add("token")
    refused = site.get(back)
    assert refused.status_code == 400 and "iss" in refused.text
    assert _links(database) == {}


def test_a_provider_that_is_down_gets_a_clear_answer_and_changes_nothing(
    database: Database,
) -> None:
    port = free_port()
    settings = orcid_settings(database, f"http://127.0.0.1:{port}")
    with TestClient(create_app(settings)) as site:
        _signed_in(site, database, settings, ADA)
        refused = site.get("/signin/orcid", follow_redirects=False)
        assert refused.status_code == 503 and "ORCID is not answering" in refused.text
        with oidc_provider(port) as provider:
            back = provider.authorize(_start(site), JOSIAH)
        gone = site.get(back)
        assert gone.status_code == 503 and "ORCID is not answering" in gone.text
    assert _links(database) == {}


def test_an_orcid_linked_to_another_reader_is_refused(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _link_directly(database, BOB, JOSIAH)
    _signed_in(site, database, settings, ADA)
    refused = _with_orcid(site, provider, JOSIAH)
    assert refused.status_code == 409 and "linked to another reader" in refused.text
    assert _links(database) == {BOB: JOSIAH}


def test_an_orcid_nobody_linked_signs_nobody_in_and_says_to_sign_in_by_email_first(
    site: TestClient, database: Database, provider: Provider
) -> None:
    answer = _with_orcid(site, provider, JOSIAH)
    assert answer.status_code == 200 and "Sign in with your email first" in answer.text
    assert SESSION_COOKIE not in site.cookies and _voter(site) is False
    assert _links(database) == {}


def test_a_reader_unlinks_their_orcid(
    site: TestClient, database: Database, settings: Settings, provider: Provider
) -> None:
    _link_directly(database, ADA, JOSIAH)
    _signed_in(site, database, settings, ADA)
    answer = site.post("/for-you/orcid/unlink", follow_redirects=False)
    assert answer.status_code == 303 and _links(database) == {}
    site.cookies.delete(SESSION_COOKIE)
    assert "Sign in with your email first" in _with_orcid(site, provider, JOSIAH).text


@pytest.mark.parametrize("subject", ["0000-0002-1825-0098", "josiah", "0000-0002-1825-009"])
def test_a_subject_that_is_no_orcid_id_is_refused(
    site: TestClient, database: Database, settings: Settings, provider: Provider, subject: str
) -> None:
    _signed_in(site, database, settings, ADA)
    refused = _with_orcid(site, provider, subject)
    assert refused.status_code == 400 and "not an ORCID iD" in refused.text
    assert _links(database) == {}


def test_a_sign_in_declined_at_orcid_changes_nothing(
    site: TestClient, database: Database, provider: Provider
) -> None:
    refused = site.get(provider.deny(_start(site)))
    assert refused.status_code == 400 and "access_denied" in refused.text
    assert _links(database) == {}


def test_without_an_orcid_client_the_feature_is_off(database: Database) -> None:
    with TestClient(create_app(database.settings)) as site:
        assert "Sign in with ORCID" not in site.get("/signin").text
        assert site.get("/signin/orcid", follow_redirects=False).status_code == 404
        assert site.get(f"{CALLBACK}?state=x&code=y").status_code == 404


def test_the_sign_in_page_offers_orcid_once_a_client_is_set(site: TestClient) -> None:
    assert (
        '<a class="button" href="/signin/orcid">Sign in with ORCID</a>' in site.get("/signin").text
    )


@pytest.mark.parametrize("good", [JOSIAH, "0000-0002-1694-233X", "0000-0001-5109-3700"])
def test_orcid_ids_with_their_check_character_are_taken(good: str) -> None:
    assert orcid.checked_orcid(good) == good


@pytest.mark.parametrize(
    "bad", ["0000-0002-1825-0098", "0000000218250097", f"https://orcid.org/{JOSIAH}", ""]
)
def test_anything_else_is_refused_as_no_orcid_id(bad: str) -> None:
    with pytest.raises(orcid.OrcidError):
        orcid.checked_orcid(bad)
