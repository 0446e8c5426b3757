"""Where WebFetch may connect: public addresses only, checked after DNS resolution.

Trust model: the URL comes from the model, which reads untrusted text (issues, web pages). A URL
whose host *resolves* to a private, loopback, link-local or otherwise non-public address could
reach the runner's metadata service (169.254.169.254), a service on localhost, or the CI's
private network. The check therefore runs at connect time, on the addresses actually
connected to — not on the URL's host name — so DNS rebinding (a name that resolves to a public
address when checked and a private one when used) gains nothing: we connect to the very address
we checked. Every address a name resolves to must be public, or none is used.

The guard sits in the HTTP client's network backend (httpcore's ``AsyncNetworkBackend``), under
TLS: certificates are still verified against the host name. Proxies from the environment are not
used (a proxy would resolve names itself, out of the guard's sight).

Tests open a loopback server through an explicit setting (``allow_private``), never by default and
never from an environment variable.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import anyio
import httpcore2
import httpx2

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
#: Never public, though ``is_global`` may say so: local-use NAT64 (RFC 8215: a local translator
#: may map it to any IPv4 address, 169.254.169.254 included) and the deprecated site-local range.
_NOT_PUBLIC = (ipaddress.ip_network("64:ff9b:1::/48"), ipaddress.ip_network("fec0::/10"))


class BlockedAddressError(Exception):
    """The host resolves to an address WebFetch may not connect to."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(
            f"{host} resolves to {address}, a private, loopback, link-local or otherwise "
            "non-public address; WebFetch connects to public addresses only"
        )
        self.host = host
        self.address = address


def is_public_address(address: str) -> bool:
    """True for a globally routable unicast address (IPv4-in-IPv6 forms judged by their IPv4)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in network for network in _NOT_PUBLIC):
            return False
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is None and ip.teredo is not None:
            embedded = ip.teredo[1]
        if embedded is not None:
            return is_public_address(str(embedded))
    return ip.is_global and not ip.is_multicast


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """Resolves the host itself, refuses non-public addresses, connects to the checked address."""

    def __init__(self, *, allow_private: bool = False) -> None:
        self._inner = httpcore2.AnyIOBackend()
        self._allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"resolving {host} timed out") from None
        except OSError as exc:
            raise httpcore2.ConnectError(f"cannot resolve {host}: {exc}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise httpcore2.ConnectError(f"{host} has no address")
        if not self._allow_private:
            for address in addresses:
                if not is_public_address(address):
                    raise BlockedAddressError(host, address)
        last: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise BlockedAddressError(path, "a Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(httpx2.AsyncHTTPTransport):
    """httpx2's transport with the connection pool built on :class:`GuardedBackend`."""

    def __init__(self, *, allow_private: bool = False) -> None:
        super().__init__(trust_env=False)
        # httpx2 keeps its httpcore pool in `_pool` and builds it without a backend parameter; we
        # rebuild it around the guard. Fail closed if that ever changes: no unguarded transport.
        if not isinstance(getattr(self, "_pool", None), httpcore2.AsyncConnectionPool):
            raise RuntimeError(
                "httpx2.AsyncHTTPTransport no longer exposes its pool; the network guard cannot be installed"
            )
        context: ssl.SSLContext = httpx2.create_ssl_context(trust_env=False)
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            http1=True,
            http2=False,
            max_connections=10,
            max_keepalive_connections=5,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(allow_private=allow_private),
        )
