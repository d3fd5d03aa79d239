"""A request that carries the sheet never follows a redirect to another host.

A 307 or 308 answer makes a client send the same request, body and all, to the address it
names (RFC 9110, 15.4.8-9); the ``requests`` and ``httpx`` clients follow it, stripping only
``Authorization`` when the host changes. The body of a model call or a Mathpix upload is the
sheet itself, so a server (or whoever answers at its address) could send it anywhere (attack7
row 50: a model API's 307 to another port received the whole request). Such a redirect is
refused with :class:`CrossHostRedirect` (one line); a redirect that sends no body (a ``GET``,
or a 301/302/303 after which the client asks with ``GET``) is followed as before, credentials
stripped (:class:`tasks.convert.mathpix._CredentialSession`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import requests


class CrossHostRedirect(Exception):
    """A redirect that would send a request's body to another origin; ``str()`` is the run's one line."""


def origin(url) -> tuple[str, str]:
    """``(scheme, host:port)`` of ``url`` (a user part dropped), lower-cased."""
    parts = urlsplit(str(url))
    return parts.scheme.lower(), (parts.netloc.rsplit("@", 1)[-1]).lower()


def refusal(target) -> CrossHostRedirect:
    """The one line for a redirect to ``target`` that was not followed."""
    return CrossHostRedirect(f"the server redirected the request to another host ({origin(target)[1]}): not followed, "
                             "so the sheet it carries is sent nowhere else")


class SheetStaysSession(requests.Session):
    """A ``requests`` session that raises :class:`CrossHostRedirect` instead of sending a
    request's body on to another origin (``rebuild_auth`` runs for every redirect followed,
    once the next request is built and before it is sent)."""

    def rebuild_auth(self, prepared_request, response):
        if prepared_request.body and origin(prepared_request.url) != origin(response.request.url):
            raise refusal(prepared_request.url)
        super().rebuild_auth(prepared_request, response)


def httpx_hook(base: str):
    """An ``httpx`` request event hook (it runs for every request, redirects included) that
    raises :func:`refusal` for a request with a body to an origin other than ``base``'s."""
    home = origin(base)

    def hook(request) -> None:
        if request.method not in ("GET", "HEAD") and origin(request.url) != home:
            raise refusal(request.url)
    return hook
