"""Whether a URL's host is this machine: by its spelling (:func:`is_loopback`, for a key sent over
plain HTTP) and by what it resolves to (:func:`local_addresses`, for who may be listening there).

A host spelled otherwise than ``127.0.0.1`` may still be this machine: ``127.1`` and
``2130706433`` (inet_aton(3)'s short and whole-number forms of 127.0.0.1), ``0.0.0.0`` and ``::``
(connect(2) to the unspecified address reaches this machine), ``::ffff:127.0.0.1`` (an IPv4
address mapped into IPv6, RFC 4291 2.5.5.2), ``localhost.``, the machine's name, or one of its
own addresses (round 19: each passed for another host). So the host is resolved
(``getaddrinfo``, every result) and each address judged: loopback, unspecified, or one this
machine can bind (bind(2) gives ``EADDRNOTAVAIL`` for an address that is not its own).

Only the standard library is imported here (the command line checks ``PREFECT_API_URL`` before
Prefect or pydantic is imported).
"""

from __future__ import annotations

import ipaddress
import socket


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a URL's hostname) is spelled as this machine's loopback: ``localhost``
    (or a name under ``.localhost``, RFC 6761 6.3), an address of 127.0.0.0/8, ``::1``, or such an
    IPv4 address mapped into IPv6. A spelling only: nothing is resolved."""
    if not host:
        return False
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _own(family: int, sockaddr: tuple) -> bool:
    """Whether this machine can bind ``sockaddr`` (port 0): an address of its own."""
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((sockaddr[0], 0, *sockaddr[2:]))
        return True
    except OSError:
        return False


def local_addresses(host: str, port: int) -> list[str]:
    """The addresses among those ``host`` resolves to (``getaddrinfo`` for TCP ``port``, every
    result) that are this machine's: loopback, unspecified (``0.0.0.0``, ``::``), an IPv4 address
    mapped into IPv6 that is one of these, or one this machine can bind; empty for a host
    elsewhere. Raises ``OSError`` (``socket.gaierror``) when ``host`` does not resolve, and
    ``UnicodeError`` for a name IDNA cannot encode."""
    found: list[str] = []
    for family, _, _, _, sockaddr in socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM):
        text = str(sockaddr[0])
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            continue
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if address.is_loopback or address.is_unspecified or _own(family, sockaddr):
            found.append(text)
    return found
