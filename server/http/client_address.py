"""Which client a request comes from, as the per-address limits count it.

An IPv4 address is one client. An IPv6 subscriber is handed a whole /64 (often more)
and may send from any of its 2^64 addresses, so counting IPv6 addresses one by one
would give one client an endless budget: the rate limits and the connection cap count
an IPv6 client by its /64 network instead (an IPv4-mapped address as the IPv4 address
it carries).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from litestar.connection import ASGIConnection

IPV6_PREFIX = 64  # the network one IPv6 subscriber is given at the least (RFC 6177)


def client_address(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The TCP peer's group (behind a proxy, the address the trusted proxy names)."""
    return address_group(connection.client.host) if connection.client else None


@lru_cache(maxsize=4096)
def address_group(host: str) -> str:
    """``203.0.113.7`` as it is; ``2001:db8:0:1::7`` as ``2001:db8:0:1::/64``; anything
    else (a Unix socket's path) as given."""
    try:  # a proxy may forward an IPv6 address in brackets, as in a URL
        address = ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return host
