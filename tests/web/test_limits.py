"""Per-client limits: who counts as one client, and the API's buckets for them.

A host is given a whole IPv6 /64 and may use any of its addresses, so every per-client limit
counts an IPv6 client by its /64; an IPv4 client (IPv4-mapped IPv6 included) by its address.
"""

from __future__ import annotations

import ipaddress

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.config import Settings
from app.web.app import create_app
from app.web.limits import MAX_CLIENTS, InFlight, RateLimiter, TooManyAtOnceError, client_key
from tests.servers import served

IPV6 = st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address)
IPV4 = st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address)
HOST_PART = st.integers(0, 2**64 - 1)


def _in_network(address: ipaddress.IPv6Address, host: int) -> ipaddress.IPv6Address:
    """Another address of ``address``'s /64: the same first half, ``host`` as the second."""
    return ipaddress.IPv6Address((int(address) >> 64 << 64) | host)


@given(IPV6, HOST_PART)
def test_every_address_of_one_ipv6_64_is_one_client(
    address: ipaddress.IPv6Address, host: int
) -> None:
    other = _in_network(address, host)
    # ::/64 holds the IPv4-mapped range: those addresses are IPv4 clients, keyed apart.
    if address.ipv4_mapped is None and other.ipv4_mapped is None:
        assert client_key(str(other)) == client_key(str(address))


@given(IPV6, IPV6)
def test_addresses_of_two_ipv6_64s_are_two_clients(
    one: ipaddress.IPv6Address, other: ipaddress.IPv6Address
) -> None:
    if int(one) >> 64 != int(other) >> 64:
        assert client_key(str(one)) != client_key(str(other))


@given(IPV4)
def test_an_ipv4_client_is_its_address_however_it_is_written(
    address: ipaddress.IPv4Address,
) -> None:
    mapped = ipaddress.IPv6Address(f"::ffff:{address}")
    assert client_key(str(address)) == str(address)
    assert client_key(str(mapped)) == client_key(mapped.exploded) == str(address)


@given(st.text(max_size=60))
def test_text_that_is_no_address_is_its_own_client(text: str) -> None:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        assert client_key(text) == text


def test_a_client_key_reads_as_the_network_it_stands_for() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert client_key("2001:DB8:1:2::ffff") == "2001:db8:1:2::/64"
    assert client_key("fe80::1%eth0") == "fe80::/64"
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("testclient") == "testclient"


def test_the_api_limit_counts_one_ipv6_64_as_one_client(site_settings: Settings) -> None:
    limited = site_settings.model_copy(
        update={"api_rate_limit_per_minute": 6, "api_rate_limit_burst": 2}
    )
    # uvicorn takes X-Forwarded-For from 127.0.0.1, as from a proxy in front of it.
    with served(create_app(limited)) as base_url:
        codes = [
            httpx.get(f"{base_url}/api/version", headers={"X-Forwarded-For": host}).status_code
            for host in ("2001:db8::1", "2001:db8::2", "2001:db8::3:1", "2001:db8:0:1::1")
        ]
    assert codes == [200, 200, 429, 200]


def _limiter(now: list[float]) -> RateLimiter:
    return RateLimiter(per_minute=1, burst=1, clock=lambda: now[0])


def test_a_full_limiter_forgets_the_client_seen_longest_ago_and_keeps_the_others() -> None:
    now = [0.0]
    limiter = _limiter(now)
    for number in range(MAX_CLIENTS):
        assert limiter.retry_after(f"client{number}") is None  # each spends its one request
    assert limiter.retry_after("client1") is not None  # seen again: now the most recent
    assert limiter.retry_after("newcomer") is None
    assert limiter.retry_after("client1") is not None  # still remembered, still limited
    assert limiter.retry_after(f"client{MAX_CLIENTS - 1}") is not None
    assert limiter.retry_after("client0") is None  # the one seen longest ago was forgotten


def test_a_client_with_its_share_in_flight_waits_for_one_to_end_not_for_time() -> None:
    in_flight = InFlight(per_client=2)
    with in_flight.hold("a"), in_flight.hold("a"), in_flight.hold("b"):
        assert len(in_flight) == 2
        with pytest.raises(TooManyAtOnceError):
            in_flight.hold("a").__enter__()
    with in_flight.hold("a"), in_flight.hold("a"):  # both places free again
        assert len(in_flight) == 1
    assert len(in_flight) == 0  # a client with nothing in flight is not kept
