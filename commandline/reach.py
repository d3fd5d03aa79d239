"""What a command line reaches over the network, checked before Prefect is imported.

A Dask scheduler or Prefect API that does not answer, or a work pool that does not exist,
otherwise surfaced only once Prefect had started (a Dask client waits 30 s, then ~90 lines
of traceback; a Prefect API that does not answer gave 116 lines). Each is answered here in
one line ``<what>: <problem>``, the command exiting 1 (:func:`commandline.options.precheck`,
:func:`commandline.entry.entry`, :func:`commandline.entry.run_command`).

Only the standard library is imported here (``socket``, ``urllib``).
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from tasks.safe_json import json_loads

DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
"""The address schemes of Dask's ``distributed`` (``distributed.comm.registry``); an address
without one is ``tcp`` (``distributed.comm.addressing.parse_address``)."""

NETWORK_SCHEMES = ("tcp", "tls", "ws", "wss")
"""The schemes whose address is ``HOST:PORT`` and which this module can try to connect to."""

CONNECT_TIMEOUT = 10.0
"""Seconds a scheduler or a Prefect API is given to accept a connection or answer (a kept
server on a shared machine under a load of 30 took over 3 s to answer ``/health``)."""

_checked: dict[tuple, str | None] = {}
"""Answers already found in this process (a command checks its line twice: at its entry and
in its ``main``), so a scheduler that does not answer is waited for once."""


def dask_address_form(address: str) -> tuple[str, str, int] | str:
    """``(scheme, host, port)`` of a Dask scheduler address (``tcp://10.0.0.5:8786``,
    ``10.0.0.5:8786``, ``tls://[::1]:8786``); for ``ucx://`` and ``inproc://`` the port is 0
    and the host the rest. A string instead says what is wrong with it."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in DASK_SCHEMES:
        return f"unknown scheme {scheme!r}, not one of {', '.join(DASK_SCHEMES)}"
    if scheme not in NETWORK_SCHEMES:
        return (scheme, rest, 0) if rest else "no address after the scheme"
    try:
        parts = urllib.parse.urlsplit(f"//{rest}")
        port = parts.port
    except ValueError:
        return "the port is not a number from 1 to 65535"
    if not parts.hostname or port is None or parts.path or parts.query or parts.fragment or parts.username:
        return "not HOST:PORT"
    if not 0 < port < 65536:
        return "the port is not a number from 1 to 65535"
    return scheme, parts.hostname, port


def dask_problem(address: str, timeout: float = CONNECT_TIMEOUT) -> str | None:
    """One line ``--dask-address ADDR: <problem>`` when ``address`` is not a scheduler
    address, or when nothing accepts a connection there within ``timeout`` seconds (a TCP
    connect only: whether a Dask scheduler answers is left to the run); ``None`` when it
    looks reachable."""
    key = ("dask", address)
    if key in _checked:
        return _checked[key]
    form = dask_address_form(address)
    if isinstance(form, str):
        line = f"--dask-address {address}: not a Dask scheduler address ({form}); give tcp://HOST:PORT, " \
               "e.g. tcp://10.0.0.5:8786"
    elif form[0] not in NETWORK_SCHEMES:
        line = None
    else:
        line = None
        try:
            socket.create_connection((form[1], form[2]), timeout=timeout).close()
        except OSError as e:
            line = (f"--dask-address {address}: no Dask scheduler answers there ({_why(e, timeout)}); start one "
                    "(dask scheduler) or give its address")
    _checked[key] = line
    return line


def _why(error: BaseException, timeout: float) -> str:
    """A few words for a failed connection."""
    if isinstance(error, urllib.error.URLError) and isinstance(error.reason, BaseException):
        error = error.reason
    if isinstance(error, (TimeoutError, socket.timeout)):
        return f"no answer within {timeout:g} s"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


PREFECT_CLOUD = "https://api.prefect.cloud/"
"""Prefect Cloud's API (``PREFECT_CLOUD_API_URL``'s default), which Prefect's client never asks
for its version."""

MAX_ANSWER_BYTES = 64 << 10
"""Most of an answer read here (a Prefect API's ``/health`` is ``true``, its version a few
bytes): a server that answers a megabyte of anything is not read whole."""


def _auth_headers() -> dict[str, str]:
    """The credentials Prefect's client would send (``PREFECT_API_AUTH_STRING`` as basic auth,
    else ``PREFECT_API_KEY`` as a bearer token: ``prefect.client.orchestration``)."""
    import base64

    auth, key = os.environ.get("PREFECT_API_AUTH_STRING"), os.environ.get("PREFECT_API_KEY")
    if auth:
        return {"Authorization": "Basic " + base64.b64encode(auth.encode("utf-8")).decode("ascii")}
    return {"Authorization": f"Bearer {key}"} if key else {}


def _request(url: str, body: dict | None, timeout: float, headers: dict[str, str] | None = None):
    """GET ``url`` (or POST ``body`` as JSON); ``(status, at most MAX_ANSWER_BYTES of the body,
    the response's headers)``, or raises ``urllib.error.HTTPError`` (the server answered with an
    error; never read here) or ``OSError`` (it did not answer)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={**(headers or {}),
                                                          **({"Content-Type": "application/json"} if data else {})})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read(MAX_ANSWER_BYTES), r.headers


def who_answered(headers) -> str:
    """A few printable words for what answered: its ``Server`` header (at most 60 characters,
    control characters dropped) and content type, never its body (an error page may echo a
    token, and may be megabytes)."""
    def clean(value) -> str:
        text = "".join(c for c in str(value or "") if c.isprintable())
        return text[:57] + "..." if len(text) > 60 else text

    server = clean(headers.get("Server") if headers is not None else None)
    kind = clean(headers.get("Content-Type") if headers is not None else None)
    return ", ".join(x for x in (f"Server: {server}" if server else "no Server header",
                                 f"Content-Type: {kind}" if kind else "") if x)


def _not_prefect(url: str, why: str) -> str:
    return (f"PREFECT_API_URL {url}: what answers there is not a Prefect API ({why}); point PREFECT_API_URL at "
            "Prefect's (`sheet2lambda server start` prints the kept server's), or unset it")


def _prefect_identity(url: str, timeout: float) -> str | None:
    """One line when the server at ``url`` that answered its ``/health`` is not a Prefect API,
    or refuses this command's credentials: Prefect's ``/health`` answers ``true`` and its
    ``/admin/version`` (the client's first call, with the credentials it would send) a version
    string. An error body is never printed (:func:`who_answered`)."""
    base = url.rstrip("/")
    try:
        _, body, headers = _request(base + "/health", None, timeout)
    except urllib.error.HTTPError:
        headers, body = None, None  # asks for a key: the version call below says whether ours is taken
    except (OSError, ValueError):
        return None  # answered a moment ago; the run finds out
    if body is not None and body.strip() != b"true":
        return _not_prefect(url, f"its /health answered {len(body):,} bytes that are not `true`; "
                                 + who_answered(headers))
    try:
        _, body, headers = _request(base + "/admin/version", None, timeout, _auth_headers())
    except urllib.error.HTTPError as e:
        if e.code in (401, 403):
            given = ("PREFECT_API_AUTH_STRING" if os.environ.get("PREFECT_API_AUTH_STRING")
                     else "PREFECT_API_KEY" if os.environ.get("PREFECT_API_KEY") else "no credentials")
            return (f"PREFECT_API_URL {url}: the server refuses this command (HTTP {e.code} for /admin/version, "
                    f"{given} sent); set PREFECT_API_AUTH_STRING to its password (the kept server's is the line of "
                    "$PREFECT_HOME/sheet2lambda-auth; if that file was removed while the server ran, "
                    "`sheet2lambda server stop` then `server start` makes a new pair), or unset PREFECT_API_URL")
        return _not_prefect(url, f"HTTP {e.code} for /admin/version; {who_answered(e.headers)}")
    except (OSError, ValueError):
        return None
    try:
        version = json_loads(body)
    except ValueError:
        version = None
    if not isinstance(version, str) or not version[:1].isdigit():
        return _not_prefect(url, "its /admin/version is not a version; " + who_answered(headers))
    return None


def foreign_api(url: str | None = None) -> str | None:
    """One line when ``url`` (default: ``PREFECT_API_URL``) names a port of this machine on
    which another user listens (:func:`commandline.ownership.foreign_listener`: however the host
    is spelled), or its host does not resolve, else ``None``.
    Checked before any request goes there: the request would carry ``PREFECT_API_AUTH_STRING``
    (the kept server's password, when the README's exports are left in the shell after that
    server stopped) and then every sheet of the run (attack18 C17)."""
    from commandline.ownership import foreign_listener

    url = url if url is not None else os.environ.get("PREFECT_API_URL")
    try:
        uid = foreign_listener(url) if url else None
    except (OSError, UnicodeError) as e:  # no address to judge: none is asked (round 19)
        host = urllib.parse.urlsplit(url).hostname
        why = getattr(e, "strerror", None) or type(e).__name__
        return (f"PREFECT_API_URL {url}: its host {host} does not resolve ({why}), so nothing was sent there (not "
                "PREFECT_API_AUTH_STRING, not a sheet): correct the address (the kept server's is "
                "http://127.0.0.1:PORT/api), or unset PREFECT_API_URL")
    if uid is None:
        return None
    return (f"PREFECT_API_URL {url}: another user (uid {uid}) listens on that port of this machine, so nothing was "
            "sent there (not PREFECT_API_AUTH_STRING, not a sheet); the server it named is gone: unset PREFECT_API_URL "
            "and PREFECT_API_AUTH_STRING (a kept server is then started or reused), or point it at your own server")


def api_problem(url: str, timeout: float = CONNECT_TIMEOUT) -> str | None:
    """One line when the Prefect API at ``url`` (``PREFECT_API_URL``) is not an http(s)
    address, or does not answer its ``/health`` within ``timeout`` seconds, or answers it
    with an HTTP error other than 401/403 (a proxy's 404 for a host it cannot reach, a web
    server that is not Prefect's), or is not Prefect's or refuses the credentials this command
    would send (:func:`_prefect_identity`); ``None`` when a Prefect API answers."""
    key = ("api", url)
    if key in _checked:
        return _checked[key]
    line = None
    if urllib.parse.urlsplit(url).scheme not in ("http", "https") or not urllib.parse.urlsplit(url).hostname:
        line = f"PREFECT_API_URL {url}: not an http(s) address of a Prefect API (e.g. http://127.0.0.1:4200/api)"
    elif (foreign := foreign_api(url)) is not None:  # asked nothing: it would get the password and the sheets
        line = foreign
    else:
        try:
            _request(url.rstrip("/") + "/health", None, timeout)
        except urllib.error.HTTPError as e:
            if e.code not in (401, 403):
                line = (f"PREFECT_API_URL {url}: no Prefect API answers there (HTTP {e.code} for {url.rstrip('/')}"
                        "/health); start that server, or unset PREFECT_API_URL")
        except (OSError, ValueError) as e:
            line = (f"PREFECT_API_URL {url}: the Prefect API there does not answer ({_why(e, timeout)}); start that "
                    "server, or unset PREFECT_API_URL")
        if line is None and not url.startswith(PREFECT_CLOUD):  # Cloud answers no /admin/version
            line = _prefect_identity(url, timeout)
    _checked[key] = line
    return line


def pool_problem(url: str, pool: str, timeout: float = CONNECT_TIMEOUT) -> str | None:
    """One line when work pool ``pool`` does not exist on the Prefect API at ``url``, or holds
    no deployment of the folder flow (what :func:`flows.sweep.folder_deployment` would refuse
    once Prefect started); ``None`` when it does, or when the API does not say (a reply other
    than 404 or a list: the run finds out)."""
    from commandline.pool_check import TEMPLATE, exposed

    base = url.rstrip("/")
    try:
        _, body, _ = _request(f"{base}/work_pools/{urllib.parse.quote(pool, safe='')}", None, timeout, _auth_headers())
        found = json_loads(body)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return f"--pool {pool}: no such work pool on the Prefect server at {url} (create it: prefect work-pool " \
                   f"create --base-job-template {TEMPLATE}; README, Deployments)"
        return None
    except (OSError, ValueError):
        return None
    if isinstance(found, dict) and (fields := exposed(found.get("base_job_template"))):  # attack20 C43
        return (f"--pool {pool}: its runs' job variables may set {', '.join(fields)}, which runs code outside the "
                f"deployment's root: prefect work-pool update --base-job-template {TEMPLATE} {pool}")
    try:
        _, body, _ = _request(f"{base}/deployments/filter", {"flows": {"name": {"any_": ["folder"]}},
                                                              "work_pools": {"name": {"any_": [pool]}}, "limit": 1},
                              timeout, _auth_headers())
        found = json_loads(body)
    except (OSError, ValueError):
        return None
    if isinstance(found, list) and not found:
        return (f"--pool {pool}: no deployment of the folder flow on this work pool (deploy deployments/prefect.yaml "
                "and start a worker: README, Deployments)")
    return None


def server_problems(command: str, args) -> list[str]:
    """The problems of ``args`` that need the Prefect server chosen for this command
    (``PREFECT_API_URL``, set by the user or by :func:`commandline.server.connect`): it does not
    answer, or ``--pool`` names no usable pool. Empty without ``PREFECT_API_URL`` (Prefect's
    temporary server, started by the run itself)."""
    url = os.environ.get("PREFECT_API_URL")
    if command not in ("document", "folder", "sweep") or not url:
        return []
    line = api_problem(url)
    if line:
        return [line]
    pool = getattr(args, "pool", None)
    if pool:
        key = ("pool", url, pool)
        if key not in _checked:
            _checked[key] = pool_problem(url, pool)
        if _checked[key]:
            return [_checked[key]]
    return []


def server_refusal(error: BaseException) -> str | None:
    """One bounded line for an HTTP error answer of the Prefect API that stopped a command
    (``PrefectHTTPStatusError``, ``httpx.HTTPStatusError``, found along ``error``'s causes): the
    server, the status and the path asked, never the answer's body (an error page may echo a
    token, and may be megabytes), and what to do; ``None`` for any other error."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        response, request = getattr(error, "response", None), getattr(error, "request", None)
        code = getattr(response, "status_code", None)
        url = getattr(request, "url", None) or getattr(response, "url", None)
        if isinstance(code, int) and url is not None:
            parts = urllib.parse.urlsplit(str(url))
            where = f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"
            path = "".join(c for c in parts.path if c.isprintable())[:80]
            what = ("it refuses this command's credentials: set PREFECT_API_AUTH_STRING to its password (the kept "
                    "server's is the line of $PREFECT_HOME/sheet2lambda-auth), or unset PREFECT_API_URL"
                    if code in (401, 403) else "see that server's log, or unset PREFECT_API_URL")
            return f"the Prefect server at {where} answered HTTP {code} for {path} (its answer not shown); {what}"
        error = error.__cause__ or error.__context__
    return None


UNREADABLE = (ValueError, KeyError, TypeError, AttributeError, IndexError)
"""What reading a reply of the wrong shape raises inside Prefect's client: ``json`` and
pydantic's ``ValidationError`` are ``ValueError`` subclasses; a missing field, a ``None``, a list for a
dict the rest."""


def unreadable_answer(error: BaseException) -> str | None:
    """One bounded line for a reply of the Prefect API that its client could not read (a body
    that is not JSON, HTML, ``{}``, the wrong shape: attack5 case 12 gave a 65-line traceback),
    found along ``error``'s causes as one of :data:`UNREADABLE` raised inside ``prefect/client/``:
    the server (``PREFECT_API_URL``), the client function and what was wrong, never the body;
    ``None`` for any other error."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb, where = error.__traceback__, None
        while tb is not None:
            path = tb.tb_frame.f_code.co_filename.replace(os.sep, "/")
            if "/prefect/client/" in path:
                where = tb.tb_frame.f_code.co_name
            tb = tb.tb_next
        if where is not None and isinstance(error, UNREADABLE):
            parts = urllib.parse.urlsplit(os.environ.get("PREFECT_API_URL") or "")
            server = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" if parts.netloc else "Prefect's temporary server"
            what = "not JSON" if isinstance(error, json.JSONDecodeError) else f"not of the shape Prefect's client reads " \
                f"({type(error).__name__})"
            return (f"the Prefect server at {server} answered {where}() with a reply that is {what} (its answer not "
                    "shown): it is not a Prefect API this version reads; see that server's log, or unset PREFECT_API_URL")
        error = error.__cause__ or error.__context__
    return None
