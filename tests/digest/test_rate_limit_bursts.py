"""The per-address mail limit holds under a burst: a hundred requests for one address sent at
once to a real server mail it at most ``digest_rate_per_address`` times in the hour.

Each request counts the address's recent attempts and records its own; before the two were
one step, requests that counted at the same moment all saw room and all mailed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
import pytest

from app.core.config import Settings
from app.web.app import create_app
from app.web.forms import CSRF_COOKIE
from tests.digest.conftest import Clock, Smtp
from tests.digest.test_subscribe import FORM
from tests.servers import served

BURST = 100
ADDRESS = str(FORM["email"])


@dataclass(frozen=True)
class Form:
    """A mail-sending form: the page that gives its CSRF pair and where it posts."""

    path: str
    fields: Mapping[str, object]


SUBSCRIBE = Form("/subscribe", FORM)
SIGN_IN = Form("/signin", {"email": ADDRESS})


def _csrf_pair(base_url: str, path: str) -> tuple[str, str]:
    """The form's hidden field and its cookie's nonce, as a browser would get them."""
    page = httpx.get(f"{base_url}{path}")
    field = re.search(r'name="csrf" value="([^"]+)"', page.text)
    nonce = re.search(rf"{CSRF_COOKIE}=([^;]+)", page.headers["set-cookie"])
    assert field is not None and nonce is not None
    return field.group(1), nonce.group(1)


def _burst(base_url: str, form: Form) -> list[int]:
    """``BURST`` identical POSTs of ``form`` sent at once, each on its own connection."""
    field, nonce = _csrf_pair(base_url, form.path)
    data = {**form.fields, "csrf": field}
    cookies = {"cookie": f"{CSRF_COOKIE}={nonce}"}

    async def send_all() -> list[int]:
        limits = httpx.Limits(max_connections=BURST, max_keepalive_connections=BURST)
        async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=120) as client:
            answers = await asyncio.gather(
                *(client.post(form.path, data=data, headers=cookies) for _ in range(BURST))
            )
        return [answer.status_code for answer in answers]

    return asyncio.run(send_all())


@pytest.mark.parametrize("form", [SUBSCRIBE, SIGN_IN], ids=["subscribe", "sign-in"])
def test_a_hundred_requests_at_once_for_one_address_mail_it_at_most_the_hours_limit(
    form: Form, mail_settings: Settings, smtp: Smtp, clock: Clock
) -> None:
    limit = mail_settings.digest_rate_per_address
    # Served to the end: uvicorn stops only once every answer's mail has gone.
    with served(create_app(mail_settings, clock)) as base_url:
        statuses = _burst(base_url, form)
    assert set(statuses) <= {200, 429}, sorted(statuses)
    assert statuses.count(200) == limit
    assert len(smtp.handler.to(ADDRESS)) == limit


def test_requests_from_one_ipv6_network_count_as_one_client(
    mail_settings: Settings, smtp: Smtp, clock: Clock
) -> None:
    settings = mail_settings.model_copy(update={"digest_rate_per_client": 2})
    # uvicorn takes X-Forwarded-For from 127.0.0.1, as from a proxy in front of it.
    hosts = ("2001:db8::1", "2001:db8::2", "2001:db8::ffff:3", "2001:db8:0:1::1")
    with served(create_app(settings, clock)) as base_url:
        field, nonce = _csrf_pair(base_url, SUBSCRIBE.path)
        statuses = [
            httpx.post(
                f"{base_url}{SUBSCRIBE.path}",
                data={**FORM, "email": f"reader{number}@example.org", "csrf": field},
                headers={"cookie": f"{CSRF_COOKIE}={nonce}", "X-Forwarded-For": host},
            ).status_code
            for number, host in enumerate(hosts)
        ]
    assert statuses == [200, 200, 429, 200]
    assert len(smtp.handler.messages) == 3
