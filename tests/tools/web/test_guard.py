"""The network guard: only public addresses, judged after resolution, IPv4-in-IPv6 included."""

from __future__ import annotations

import anyio
import pytest

from bot.tools.web.guard import BlockedAddressError, GuardedBackend, GuardedTransport, is_public_address


@pytest.mark.parametrize(
    ("description", "address", "public"),
    [
        ("a public IPv4 address", "93.184.216.34", True),
        ("a public IPv6 address", "2606:2800:220:1:248:1893:25c8:1946", True),
        ("loopback", "127.0.0.1", False),
        ("another loopback address", "127.8.9.10", False),
        ("IPv6 loopback", "::1", False),
        ("a private 10/8 address", "10.1.2.3", False),
        ("a private 172.16/12 address", "172.20.0.1", False),
        ("a private 192.168/16 address", "192.168.1.1", False),
        ("link-local (cloud metadata)", "169.254.169.254", False),
        ("IPv6 link-local", "fe80::1", False),
        ("IPv6 unique local", "fd00::1", False),
        ("carrier-grade NAT", "100.64.0.1", False),
        ("unspecified", "0.0.0.0", False),
        ("multicast", "224.0.0.1", False),
        ("IPv4-mapped loopback", "::ffff:127.0.0.1", False),
        ("IPv4-mapped public", "::ffff:93.184.216.34", True),
        ("NAT64 of a private address", "64:ff9b::a00:1", False),
        ("6to4 of a private address", "2002:c0a8:101::1", False),
        ("local-use NAT64 (RFC 8215), whatever it embeds", "64:ff9b:1:a9fe:a9fe::", False),
        ("deprecated site-local", "fec0::1", False),
        ("not an address", "example.org", False),
    ],
)
def test_is_public_address(description: str, address: str, public: bool) -> None:
    assert is_public_address(address) is public


def test_the_backend_refuses_a_name_that_resolves_to_loopback() -> None:
    async def main() -> None:
        await GuardedBackend().connect_tcp("localhost", 9, timeout=5)

    with pytest.raises(BlockedAddressError, match="localhost resolves to"):
        anyio.run(main)


def test_unix_sockets_are_refused() -> None:
    async def main() -> None:
        await GuardedBackend(allow_private=True).connect_unix_socket("/var/run/docker.sock")

    with pytest.raises(BlockedAddressError):
        anyio.run(main)


def test_the_transport_installs_the_guard() -> None:
    transport = GuardedTransport()
    assert isinstance(transport._pool._network_backend, GuardedBackend)  # type: ignore[attr-defined]
