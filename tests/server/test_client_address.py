"""The unit the per-address limits count: an IPv4 address, an IPv6 /64."""

from __future__ import annotations

import pytest

from server.http.client_address import address_group


@pytest.mark.parametrize(
    ("host", "group"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:0:1::7", "2001:db8:0:1::/64"),
        ("2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"),
        ("2001:DB8:0:1::8", "2001:db8:0:1::/64"),  # one spelling per network
        ("2001:db8:0:2::7", "2001:db8:0:2::/64"),
        ("[2001:db8:0:2::8]", "2001:db8:0:2::/64"),  # as a proxy may forward it
        ("::1", "::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),  # an IPv4 client seen through a dual stack
        ("/run/ginrummy.sock", "/run/ginrummy.sock"),
        ("", ""),
    ],
)
def test_an_ipv6_client_is_counted_by_its_64_network(host: str, group: str) -> None:
    assert address_group(host) == group
