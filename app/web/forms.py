"""Browser forms: what a POST carries, its CSRF pair, and why a POST is refused.

The CSRF pair is a random nonce in a SameSite=Strict, HTTP-only cookie and its HMAC under
the deployment's secret in a hidden field; a form POST must bring both, and must not come
from another site (:mod:`app.web.origin`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from enum import StrEnum

from fastapi import Request

from app.core import tokens
from app.core.config import Settings
from app.core.refusals import BadChoice
from app.services.subscriptions import NAMED_LISTS
from app.web.limits import client_key
from app.web.origin import from_this_site

CSRF_COOKIE = "paperboy_csrf"


# The fields a form sends many times: ticked boxes, and one input per topic or author named.
LIST_FIELDS = ("categories", *NAMED_LISTS)


@dataclass(frozen=True, slots=True)
class PostedForm:
    """A form's text fields, and its fields sent many times (:data:`LIST_FIELDS`)."""

    fields: dict[str, str]
    lists: dict[str, list[str]] = field(default_factory=dict)

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default)

    def sent(self, name: str) -> str:
        """A field that sets one stored value: sent empty, it clears the value; left out, the
        POST is refused (422), so a form that omits a field never clears what it holds."""
        if name not in self.fields:
            raise BadChoice(f"{name} is missing (send it empty to clear it)")
        return self.fields[name]

    @property
    def categories(self) -> list[str]:
        return self.lists.get("categories", [])


async def read_form(request: Request) -> PostedForm:
    data = await request.form()
    fields = {key: value for key, value in data.items() if isinstance(value, str)}
    lists = {
        name: [value for value in data.getlist(name) if isinstance(value, str)]
        for name in LIST_FIELDS
    }
    return PostedForm(fields, lists)


class Refusal(StrEnum):
    """Why a form POST is refused before it is read any further."""

    CROSS_SITE = "cross-site"
    NO_CSRF = "no-csrf"  # the pair is missing or does not match: an old or forged form
    BAD_CSRF = "bad-csrf"  # the field is not even ASCII: a malformed request


# A nonce as :func:`browser_nonce` makes one; a cookie holding anything else gets a new one.
_NONCE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def browser_nonce(request: Request) -> str:
    """The nonce of the browser's CSRF pair: the cookie's, or a new one if it holds none.

    Kept across pages, so that a form open in another tab stays valid after this one sets the
    cookie again; and a sign-in link knows the browser that pressed it by it.
    """
    held = request.cookies.get(CSRF_COOKIE, "")
    return held if _NONCE.fullmatch(held) else secrets.token_urlsafe(16)


def csrf_field(settings: Settings, nonce: str) -> str:
    """The hidden field's value for the cookie's ``nonce``."""
    key = settings.secret_key.encode()
    return hmac.new(key, f"csrf:{nonce}".encode(), hashlib.sha256).hexdigest()


class FormRefusedError(Exception):
    """A form POST refused before it is read further; the app answers it with a page."""

    def __init__(self, why: Refusal) -> None:
        super().__init__(why.value)
        self.why = why


async def checked_form(request: Request, settings: Settings) -> PostedForm:
    """The POSTed form, or :class:`FormRefusedError` (another site, no CSRF pair)."""
    require_this_site(request, settings)
    form = await read_form(request)
    nonce = request.cookies.get(CSRF_COOKIE, "")
    sent = form.get("csrf")
    if not sent.isascii():
        raise FormRefusedError(Refusal.BAD_CSRF)
    if not nonce or not nonce.isascii() or not tokens.same_text(sent, csrf_field(settings, nonce)):
        raise FormRefusedError(Refusal.NO_CSRF)
    return form


def require_this_site(request: Request, settings: Settings) -> None:
    """Refuse a POST the browser says comes from another site (:mod:`app.web.origin`)."""
    if not from_this_site(request, settings.public_base_url):
        raise FormRefusedError(Refusal.CROSS_SITE)


def client_host(request: Request) -> str:
    """The client, as per-client limits count it (:func:`app.web.limits.client_key`)."""
    return client_key(request.client.host if request.client else "unknown")
