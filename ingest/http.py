"""The HTTP shell every live source uses: polite, patient, and loud when it gives up; and the
politeness gate it passes.

:class:`PoliteSession` is a ``requests.Session`` (the one the ``arxiv`` package also takes),
so every request of every arXiv client passes through the same code: the politeness gate,
a User-Agent with a contact address, a timeout, and retries with exponential back-off and
jitter on 429/5xx, timeouts and broken connections, honouring ``Retry-After``. The back-off
is pushed into the gate, so every process on the database waits it out, not only this one.
No response is read past ``PAPERBOY_INGEST_MAX_RESPONSE_BYTES`` (counted decompressed): a
larger one is an error, never a body held in memory and parsed.

The politeness gate (:class:`Gate`) lets one arXiv request at a time, at most one every N
seconds, for the whole deployment. Its state is one row of ``request_gates`` on the shared
database, so every client object and every process that uses the same database waits its turn. A
request is claimed with a conditional UPDATE (compare-and-set), which both SQLite (writes are
serialised) and PostgreSQL (a concurrent UPDATE re-checks its WHERE once the row is free) let
only one claimant win. The claim is a lease: a process that dies mid-request blocks the others
only until the lease expires. Times are each host's wall clock, so hosts that share a PostgreSQL
database must keep their clocks in step (NTP).

The gate commits in its own short transactions, apart from the job's session: its state must
be visible to other processes at once. Callers therefore never hold a write transaction open
while they wait for a request (on SQLite it would block the gate's own write).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from importlib.metadata import version
from typing import Any, NamedTuple, Never

import requests
from sqlalchemy import Engine, select, text, update

from app.core.config import Settings
from app.core.models import Base, RequestGate
from ingest.errors import FetchError, ResponseTooLargeError

RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
# Broken or slow connections worth another try (a reset mid-body surfaces as ChunkedEncodingError).
_TRANSIENT = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
# Bodies are read this much at a time, decompressed; a body over the limit stops within one.
_CHUNK_BYTES = 16 * 1024

ResponseCheck = Callable[[requests.Response], None]


def user_agent(settings: Settings) -> str:
    contact = f"; mailto:{settings.contact_email}" if settings.contact_email else ""
    return f"Paperboy/{version('paperboy')} (+{settings.public_base_url}{contact})"


class PoliteSession(requests.Session):
    """A session whose every request is gated (when ``gate`` is given) and retried."""

    def __init__(
        self,
        settings: Settings,
        gate: Gate | None,
        *,
        check: ResponseCheck | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        byte_limit: ByteLimit | None = None,
    ) -> None:
        """``byte_limit``: a tighter cap than ``PAPERBOY_INGEST_MAX_RESPONSE_BYTES`` where the
        answers are smaller by nature (a thumbnail)."""
        super().__init__()
        self.headers["User-Agent"] = user_agent(settings)
        self._gate, self._check, self._sleep, self._jitter = gate, check, sleep, jitter
        self._timeout = settings.http_timeout_seconds
        self._retries = settings.arxiv_max_retries
        self._base_delay = settings.arxiv_min_interval_seconds
        self._max_wait = settings.arxiv_max_wait_seconds
        self._limit = byte_limit or ByteLimit(
            settings.ingest_max_response_bytes, "PAPERBOY_INGEST_MAX_RESPONSE_BYTES"
        )

    def request(
        self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any
    ) -> requests.Response:
        kwargs.setdefault("timeout", self._timeout)
        kwargs["stream"] = True  # the body is read by _read_body, within the size limit
        # Our User-Agent wins over a library's own (the arxiv package sends "arxiv.py/...").
        kwargs["headers"] = _without_user_agent(kwargs.get("headers"))
        for attempt in range(self._retries + 1):
            last = attempt == self._retries
            with self._slot() as slot:
                response, retry_after = self._attempt(method, url, args, kwargs, last)
                if response is not None:
                    if self._check is not None:
                        self._check(response)
                    return response
                slot.defer(self._backoff(attempt, retry_after))
            if self._gate is None:
                self._sleep(slot.not_before_next)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _slot(self) -> AbstractContextManager[Slot]:
        return self._gate.slot() if self._gate is not None else _ungated()

    def _attempt(
        self, method: str | bytes, url: str | bytes, args: Any, kwargs: Any, last: bool
    ) -> tuple[requests.Response | None, float | None]:
        """The response to keep, or None and the server's Retry-After to retry.

        Raises :class:`FetchError` when the last try fails too.
        """
        try:
            response = super().request(method, url, *args, **kwargs)
            _read_body(response, self._limit)
        except _TRANSIENT as error:
            if last:
                raise FetchError(f"{_describe(error)} from {_text(url)}") from error
            return None, None
        if response.status_code not in RETRYABLE_STATUSES:
            return response, None
        if last:
            raise FetchError(
                f"HTTP {response.status_code} from {_text(url)} after {self._retries + 1} tries",
                response.status_code,
                response.content,
            )
        return None, _retry_after_seconds(response.headers)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Retry-After when the server gave one, else base * 2^attempt with jitter; capped."""
        if retry_after is not None:
            return min(retry_after, self._max_wait)
        growing = self._base_delay * 2**attempt
        return float(min(growing * (0.5 + self._jitter() / 2), self._max_wait))


class ByteLimit(NamedTuple):
    """The most bytes a response may hold, and the setting that says so (named in the error)."""

    most: int
    setting: str


def _read_body(response: requests.Response, limit: ByteLimit) -> None:
    """Read the body into ``response`` (as requests itself would), or refuse it past ``limit``.

    A declared length over the limit is refused before reading; otherwise the body is read a
    chunk at a time, decompressed, so a compressed bomb is stopped as early as a plain one.
    """
    declared = response.headers.get("Content-Length", "")
    # isascii: "²" is a digit to str.isdigit, and not a number to int().
    if declared.isascii() and declared.isdigit() and int(declared) > limit.most:
        _refuse(response, limit)
    body = bytearray()
    for chunk in response.iter_content(_CHUNK_BYTES):
        body += chunk
        if len(body) > limit.most:
            _refuse(response, limit)
    response._content = bytes(body)  # what Response.content returns from now on


def _refuse(response: requests.Response, limit: ByteLimit) -> Never:
    response.close()
    raise ResponseTooLargeError(
        f"the response from {response.url} is larger than {limit.most:,} bytes ({limit.setting})"
    )


def get(session: requests.Session, url: str, **kwargs: Any) -> requests.Response:
    """GET ``url``; a refused status (4xx other than 304) is a :class:`FetchError`."""
    response = session.get(url, **kwargs)
    if response.status_code >= 400:
        raise FetchError(
            f"HTTP {response.status_code} from {response.url}",
            response.status_code,
            response.content,
        )
    return response


@contextmanager
def _ungated() -> Iterator[Slot]:
    yield Slot()


def _without_user_agent(headers: Mapping[str, str] | None) -> dict[str, str]:
    return {key: value for key, value in (headers or {}).items() if key.lower() != "user-agent"}


def _retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds: either a number or an HTTP date."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    if value.isascii() and value.strip().isdigit():
        return float(value)
    try:
        return max((parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None


def _describe(error: Exception) -> str:
    if isinstance(error, requests.Timeout):
        return "timed out"
    if isinstance(error, requests.exceptions.ChunkedEncodingError):
        return "connection broken mid-body"
    return "connection failed"


def _text(url: str | bytes) -> str:
    return url.decode() if isinstance(url, bytes) else url


gates = Base.metadata.tables[RequestGate.__tablename__]

ARXIV = "arxiv"
# Waiting for a request in flight, poll this often (a fraction of the interval, within bounds).
_MIN_POLL_SECONDS, _MAX_POLL_SECONDS = 0.005, 1.0


@dataclass
class Slot:
    """The right to send one request; :meth:`defer` pushes the next one further back."""

    not_before_next: float = 0.0

    def defer(self, seconds: float) -> None:
        self.not_before_next = max(self.not_before_next, seconds)


class Gate:
    """A named gate on ``engine``'s database; ``interval`` seconds between requests."""

    def __init__(
        self,
        engine: Engine,
        *,
        interval: float,
        lease: float,
        name: str = ARXIV,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._engine, self._name, self._interval, self._lease = engine, name, interval, lease
        self._clock, self._sleep = clock, sleep
        self._holder = f"{uuid.uuid4().hex[:16]}"
        self._ensure_row()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        """Wait for the gate, hold it while the block runs (one request), then release it."""
        self._claim()
        slot = Slot()
        try:
            yield slot
        finally:
            self._release(slot.not_before_next)

    def _ensure_row(self) -> None:
        # ON CONFLICT DO NOTHING is understood by SQLite (3.24+) and PostgreSQL alike.
        with self._engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO request_gates (name, held_until, next_request_at) "
                    "VALUES (:name, 0, 0) ON CONFLICT DO NOTHING"
                ),
                {"name": self._name},
            )

    def _claim(self) -> None:
        while True:
            now = self._clock()
            with self._engine.begin() as connection:
                claimed = connection.execute(
                    update(gates)
                    .where(gates.c.name == self._name)
                    .where(gates.c.held_until <= now, gates.c.next_request_at <= now)
                    .values(held_until=now + self._lease, holder=self._holder)
                )
                if claimed.rowcount == 1:
                    return
                state = connection.execute(
                    select(gates.c.held_until, gates.c.next_request_at).where(
                        gates.c.name == self._name
                    )
                ).one_or_none()
            if state is None:  # the row was deleted under us (a wiped table): start afresh
                self._ensure_row()
                continue
            self._sleep(self._wait(now, state.held_until, state.next_request_at))

    def _wait(self, now: float, held_until: float, next_request_at: float) -> float:
        if held_until > now:  # a request is in flight; its release sets the next time
            poll = min(max(self._interval / 4, _MIN_POLL_SECONDS), _MAX_POLL_SECONDS)
            return min(poll, held_until - now)
        return max(next_request_at - now, _MIN_POLL_SECONDS)

    def _release(self, not_before_next: float) -> None:
        now = self._clock()
        with self._engine.begin() as connection:
            connection.execute(
                update(gates)
                .where(gates.c.name == self._name, gates.c.holder == self._holder)
                .values(
                    held_until=0.0,
                    holder=None,
                    next_request_at=now + max(self._interval, not_before_next),
                )
            )
