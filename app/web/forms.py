"""What a request asks, read and checked: a browser form's POST (what it carries, its CSRF
pair, why it is refused) and a URL's parameters (dates, ISO weeks, months, periods, ids).

The CSRF pair is a random nonce in a SameSite=Strict, HTTP-only cookie and its HMAC under
the deployment's secret in a hidden field; a form POST must bring both, and must not come
from another site (:mod:`app.web.forms`).

Each parameter parser raises :class:`BadInputError` with a message fit to show the caller; an
id no row can have is answered 404 by :data:`TopicId` before the database is asked.

Whether a state-changing request comes from one of Paperboy's own pages.

SameSite=Strict cookies already keep another site's forms from acting as a signed-in reader;
this is the second lock. Browsers say where a request comes from: ``Sec-Fetch-Site`` (modern
browsers) and ``Origin`` (on every cross-origin request and every POST). A request whose
browser names another site is refused. A request that names no origin at all (a command-line
client, an old browser) is let through: it carries no cookie of a victim, and the forms'
CSRF pair or the link's token still has to match.

It also says which page of this site a request came from (:func:`own_path`), for a button
that answers by sending the reader back there.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Path, Query, Request

from app.core import tokens
from app.core.arxiv_ids import ArxivId, InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.periods import Period
from app.core.refusals import BadChoice, BadInput, NotFound
from app.services.subscriptions import NAMED_LISTS
from app.web.limits import client_key

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
    """Refuse a POST the browser says comes from another site (:mod:`app.web.forms`)."""
    if not from_this_site(request, settings.public_base_url):
        raise FormRefusedError(Refusal.CROSS_SITE)


def client_host(request: Request) -> str:
    """The client, as per-client limits count it (:func:`app.web.limits.client_key`)."""
    return client_key(request.client.host if request.client else "unknown")


# A URL's parameters.
# ASCII digits only: \d would take "٢025" for 2025.
_WEEK = re.compile(r"([0-9]{4})-W([0-9]{2})")
_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")
PERIOD_NAMES: dict[str, Period] = {"day": "day", "week": "week", "month": "month"}
# Ids are INTEGER keys counted from 1: 32 bits on PostgreSQL (SQLite's are wider). A larger
# number names no row, and handing it to the database overflows its driver (a 500).
MAX_ID = 2**31 - 1
# A week's pages reach its Sunday and the Monday after it (the end of a half-open range), so
# a week may start no later than this: the last week of 9999 runs past the calendar's end.
LATEST_WEEK_START = date.max - timedelta(days=7)


class BadInputError(BadInput, ValueError):
    """A request parameter that cannot be understood; the message says which and why."""


def stored_id(text: str) -> int | None:
    """``text`` as a row's id if it can be one (ASCII digits naming 1 to :data:`MAX_ID`),
    else None; read without handing ``int()`` more digits than an id has."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_ID)):
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


def paper_path_id(text: str) -> ArxivId:
    """The arXiv identifier a page's path names; a path naming none is a page not here."""
    try:
        return parse_arxiv_id(text)
    except InvalidArxivIdError:
        raise NotFound("not an arXiv identifier") from None


def require_plain_id(request: Request, name: str) -> None:
    """The path's id as it was written: digits alone. An int parameter would also take
    "\r3" or " 3" (parsing strips them), and answer for an address that names nothing."""
    if stored_id(str(request.path_params.get(name, ""))) is None:
        raise NotFound(f"no {name.removesuffix('_id')} is stored at this address")


async def topic_id(
    request: Request, topic_id: Annotated[int, Path(description="A topic's id")]
) -> int:
    require_plain_id(request, "topic_id")
    return topic_id


TopicId = Annotated[int, Depends(topic_id)]
"""A topic id from the path, answered 404 when no row can have it."""


def parse_day(text: str, name: str = "date") -> date:
    try:
        return date.fromisoformat(text) if len(text) == 10 else _fail()
    except ValueError:
        raise BadInputError(f"{name} must be a date as YYYY-MM-DD, got {text[:40]!r}") from None


def _fail() -> date:
    raise ValueError


def parse_week(text: str) -> date:
    """The Monday of ISO week ``YYYY-Www``: one that ends, with a day to spare, by ``date.max``."""
    match = _WEEK.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise BadInputError(f"week must be an ISO week as YYYY-Www, got {text[:40]!r}") from None
    if monday > LATEST_WEEK_START:
        raise BadInputError(f"week must end by {date.max.isoformat()}, got {text[:40]!r}")
    return monday


def parse_month(text: str) -> date:
    """The first day of month ``YYYY-MM``."""
    match = _MONTH.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        return date(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise BadInputError(f"month must be YYYY-MM, got {text[:40]!r}") from None


def parse_period(text: str) -> Period:
    if text not in PERIOD_NAMES:
        raise BadInputError(f"period must be one of day, week, month; got {text[:40]!r}")
    return PERIOD_NAMES[text]


def edition_key(
    date_: str | None, week: str | None, month: str | None
) -> tuple[Period, date | None]:
    """Which edition ``?date=|week=|month=`` names; at most one may be given."""
    given = [
        (name, value)
        for name, value in (("date", date_), ("week", week), ("month", month))
        if value
    ]
    if len(given) > 1:
        raise BadInputError("give at most one of date, week and month")
    if not given:
        return "day", None
    name, value = given[0]
    if name == "week":
        return "week", parse_week(value)
    if name == "month":
        return "month", parse_month(value)
    return "day", parse_day(value)


def key_label(period: Period, key: date) -> str:
    if period == "week":
        year, week, _ = key.isocalendar()
        return f"{year:04d}-W{week:02d}"
    if period == "month":
        return f"{key.year:04d}-{key.month:02d}"  # strftime leaves years before 1000 unpadded
    return key.isoformat()


def week_monday(week: Annotated[str | None, Query(max_length=8)] = None) -> date | None:
    """``?week=YYYY-Www`` as its Monday (None when not given), answered 400 when malformed."""
    return None if week is None else parse_week(week)


WeekMonday = Annotated[date | None, Depends(week_monday)]
"""The week a page of weekly write-ups shows (the radar, the review, under the radar)."""


# "none": the reader typed the address or used a bookmark; never another site.
_OWN_FETCH_SITES = frozenset({"same-origin", "none"})


def from_this_site(request: Request, public_base_url: str) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in _OWN_FETCH_SITES:
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = {_origin(public_base_url), _origin(str(request.base_url))}
    return origin.rstrip("/").lower() in own


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def own_path(referer: str, netloc: str) -> str | None:
    """The path and query of ``referer`` when it is a page of this site (``netloc``), else None.

    Only a path no browser reads as another site: never ``//host`` (a scheme-relative URL),
    nor a backslash (browsers read ``/\\host`` as ``//host``), nor a control character
    (browsers drop tabs and newlines from a URL, which can bring two slashes together).
    """
    try:
        parts = urlsplit(referer)
    except ValueError:  # an unbalanced bracket where an IPv6 host would be
        return None
    back = parts.path + (f"?{parts.query}" if parts.query else "")
    if parts.netloc != netloc or not back.startswith("/") or back.startswith("//"):
        return None
    return back if back.isprintable() and "\\" not in back else None
