"""Sign in with ORCID beside the mailed link: start a sign-in, finish it when ORCID sends the
browser back, and unlink a reader's iD.

A sign-in starts with its secrets (state, nonce, PKCE verifier: ``accounts.orcid_client``)
and the reader signed in on that browser, if any, in a token signed with the secret key that
the browser keeps as a cookie for :data:`FLOW_MINUTES`. ORCID's answer is taken only with that
cookie, its state equal to the cookie's, once (the token is spent as the sign-in ends, so an
answer sent again is refused), and only once ORCID's ID token holds. Then:

- a reader signed in when the sign-in started gets the iD linked (one reader per iD);
- else the reader the iD is linked to is signed in, with the session a mailed link gives;
- else nobody is: the person is told to sign in with their email first and link the iD.

Every refusal changes nothing; a provider that does not answer is
:class:`app.core.refusals.Unavailable`. With no ORCID client configured every step is
:class:`app.core.refusals.NotFound`, as if the feature did not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from sqlalchemy.orm import Session

from accounts import orcid, orcid_client, signin
from app.core import tokens
from app.core.config import Settings
from app.core.db import session_scope, unit_of_work
from app.core.refusals import BadInput, NotFound
from app.services.reports import Deployment

FLOW_PURPOSE = "orcid"
FLOW_MINUTES = 10
START_AGAIN = "Nothing was changed: start again from the sign-in page."


class SignInOutcome(StrEnum):
    LINKED = "linked"  # the iD is now the signed-in reader's
    SIGNED_IN = "signed-in"  # its reader is signed in
    UNKNOWN = "unknown"  # no reader has it: sign in by email, then link it


class FlowRefused(BadInput):
    """ORCID's answer cannot finish a sign-in started in this browser."""


@dataclass(frozen=True, slots=True)
class Started:
    url: str  # ORCID's authorization page, for this sign-in
    cookie: str  # the sign-in's signed secrets, for the browser to keep


@dataclass(frozen=True, slots=True)
class Finished:
    outcome: SignInOutcome
    orcid: str
    voter: str | None = None  # the reader's mailbox (linked or signed in)
    cookie: str | None = None  # the session cookie, when signed in


def flow_seconds() -> int:
    return FLOW_MINUTES * 60


def require_on(settings: Settings) -> None:
    if not settings.orcid_sign_in:
        raise NotFound("sign-in with ORCID is not set up on this site")


def start(site: Deployment, reader: str | None) -> Started:
    """ORCID's page for a new sign-in, and the cookie that carries its secrets; ``reader``
    (the mailbox signed in on this browser) gets the iD linked when it ends."""
    require_on(site.settings)
    provider = orcid_client.discover(site.settings)
    flow = orcid_client.new_flow()
    cookie = tokens.issue(
        site.settings.secret_key,
        FLOW_PURPOSE,
        flow.state,
        site.clock(),
        nonce=flow.nonce,
        verifier=flow.verifier,
        reader=reader or "",
    )
    return Started(orcid_client.authorization_url(site.settings, provider, flow), cookie)


def finish(site: Deployment, cookie: str, state: str, code: str, error: str = "") -> Finished:
    """End the sign-in ORCID sent the browser back from (see the module's rules)."""
    require_on(site.settings)
    if error:
        raise FlowRefused(f"ORCID did not sign you in ({error[:100]}). {START_AGAIN}")
    claims = _unspent_flow(site, cookie, state)
    flow = orcid_client.Flow(claims.subject, claims.extra["nonce"], claims.extra["verifier"])
    provider = orcid_client.discover(site.settings)
    subject = orcid_client.signed_in_subject(site.settings, provider, flow, code, site.clock())
    found = orcid.checked_orcid(subject)
    now = site.clock()

    def work(session: Session) -> Finished:
        if not tokens.spend(session, claims, now):
            raise _refused("it was finished already (ORCID's answer was sent twice)")
        reader = claims.extra.get("reader", "")
        if reader:
            orcid.link(session, reader, found, now)
            return Finished(SignInOutcome.LINKED, found, voter=reader)
        held = orcid.holder(session, found)
        if held is None:
            return Finished(SignInOutcome.UNKNOWN, found)
        voter = held.email_key
        session_cookie = signin.session_token(site.settings, session, voter, now)
        return Finished(SignInOutcome.SIGNED_IN, found, voter=voter, cookie=session_cookie)

    try:
        return unit_of_work(site.sessions, work)
    except tokens.TokenError:
        raise _refused("it was finished already (ORCID's answer was sent again)") from None


def unlink(site: Deployment, email_key: str) -> str | None:
    """Unlink the reader's ORCID iD (the iD it was, or None: none was linked)."""
    with session_scope(site.sessions) as session:
        return orcid.unlink(session, email_key)


def linked_orcid(session: Session, email_key: str) -> str | None:
    """The reader's linked iD, read with a page's session."""
    return orcid.orcid_of(session, email_key)


def _unspent_flow(site: Deployment, cookie: str, state: str) -> tokens.Claims:
    """The sign-in's secrets from the browser's cookie, if the answer is for it and new."""
    now = site.clock()
    if not cookie:
        raise _refused("it was not started in this browser (its cookie is missing)")
    try:
        claims = tokens.verify(
            site.settings.secret_key, cookie, FLOW_PURPOSE, now, timedelta(minutes=FLOW_MINUTES)
        )
    except tokens.TokenError as bad:
        raise _refused(f"its cookie is {bad.reason}") from None
    if not tokens.same_text(state, claims.subject):
        raise _refused("ORCID's answer is for another sign-in (its state does not match)")
    with session_scope(site.sessions) as session:
        try:
            if tokens.spent_moments_ago(session, claims, now):
                raise _refused("it was finished already (ORCID's answer was sent twice)")
        except tokens.TokenError:
            raise _refused("it was finished already (ORCID's answer was sent again)") from None
    return claims


def _refused(why: str) -> FlowRefused:
    return FlowRefused(f"This ORCID sign-in cannot be finished: {why}. {START_AGAIN}")
