"""13. A key never goes over plain HTTP, except to this machine's loopback (a local fake or
server): round 19's ``.env`` switched ``ANTHROPIC_BASE_URL`` to ``http://api.anthropic.com`` (the
same host, so the ``.env`` rule let it pass) and the key went unencrypted; any ``http://`` URL
did the same. Now one line naming where the setting is (the ``.env``, or the environment) and the
setting, and no request."""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler

import pytest

from tasks.convert import mathpix
from tasks.convert.mathpix import MathpixError
from tasks.llm import BackendError
from tests.fakes import anthropic_api as fa
from tests.fakes.env import CANARY, clean_env  # noqa: F401 - a fixture
from tests.hardening.support import LocalServer
from tests.hardening.test_credentials import BACKENDS, _request

CATEGORY = "13 credentials and requests"


def _own_v4() -> str | None:
    """This machine's IPv4 address that is not loopback (none sent: a UDP socket's source)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("198.51.100.1", 9))
            found = s.getsockname()[0]
    except OSError:
        return None
    return None if found.startswith("127.") or found == "0.0.0.0" else found


class _Everywhere:
    """An HTTP server on every IPv4 address of this machine that records each request's
    headers and answers 200 ``{}``."""

    def __init__(self):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                seen.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_POST = do_GET  # noqa: N815

            def log_message(self, *a):
                pass

        self.server = LocalServer(Handler, host="0.0.0.0")
        self.port = self.server.port

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.close()


def _no_network(monkeypatch):
    """Any connection to a host that is not this machine fails the test (a refusal must come first)."""
    real = socket.create_connection

    def guarded(address, *a, **k):
        if not address[0].startswith("127.") and address[0] not in ("localhost", "::1"):
            pytest.fail(f"a connection to {address[0]} was attempted")
        return real(address, *a, **k)

    monkeypatch.setattr(socket, "create_connection", guarded)


@pytest.mark.parametrize("key_in", ["environment", "dotenv"])
@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_key_never_goes_over_plain_http_to_another_address(clean_env, monkeypatch, name, key_in):
    base_var, key_var, make = BACKENDS[name]
    host = _own_v4() or "192.0.2.1"  # none but loopback: a documentation address (RFC 5737), asked nothing either
    with _Everywhere() as server:
        lines = [f"{base_var}=http://{host}:{server.port}/v1"]
        if key_in == "environment":
            monkeypatch.setenv(key_var, CANARY[key_var])
        else:
            lines.append(f"{key_var}={CANARY[key_var]}")
        (clean_env / ".env").write_text("\n".join(lines) + "\n")
        with pytest.raises(BackendError) as e:
            make().complete(_request())
        assert server.seen == []
    reason = str(e.value)
    assert "\n" not in reason and base_var in reason and ".env" in reason and "plain HTTP" in reason, reason
    assert CANARY[key_var] not in reason


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_the_providers_own_host_over_plain_http_is_refused_too(clean_env, monkeypatch, name):
    base_var, key_var, make = BACKENDS[name]
    _no_network(monkeypatch)
    monkeypatch.setenv(key_var, CANARY[key_var])
    (clean_env / ".env").write_text(f"{base_var}=http://api.anthropic.com\n")
    with pytest.raises(BackendError) as e:
        make().complete(_request())
    reason = str(e.value)
    assert "\n" not in reason and base_var in reason and str(clean_env / ".env") in reason and "plain HTTP" in reason


def test_an_exported_plain_http_base_is_refused_naming_the_environment(clean_env, monkeypatch):
    _no_network(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://api.anthropic.com")
    with pytest.raises(BackendError) as e:
        BACKENDS["anthropic"][2]().complete(_request())
    assert "ANTHROPIC_BASE_URL" in str(e.value) and "environment" in str(e.value) and "plain HTTP" in str(e.value)


def test_mathpix_credentials_never_go_over_plain_http(clean_env, monkeypatch):
    _no_network(monkeypatch)
    monkeypatch.setenv("MATHPIX_APP_ID", "app-id-from-env-0001")
    monkeypatch.setenv("MATHPIX_APP_KEY", "app-key-from-env-0123456789")
    monkeypatch.delenv("MATHPIX_BASE_URL", raising=False)  # the suite's own points at a closed loopback port
    (clean_env / ".env").write_text("MATHPIX_BASE_URL=http://api.mathpix.com\n")
    with pytest.raises(MathpixError) as e:
        mathpix.convert_pdf(b"%PDF-1.4\n%%EOF\n", "sheet.pdf")
    assert "MATHPIX_BASE_URL" in e.value.reason and "plain HTTP" in e.value.reason
    assert "app-key-from-env" not in e.value.reason


@pytest.mark.parametrize("spelling", ["127.0.0.1", "localhost"])
def test_a_loopback_fake_over_plain_http_still_answers(clean_env, monkeypatch, spelling):
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    with fa.FakeAnthropic([fa.ok(fa.message(text="hello"))]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url.replace("127.0.0.1", spelling))
        reply = BACKENDS["anthropic"][2]().complete(_request())
    assert reply.text == "hello" and len(fake.requests) == 1


def test_no_key_no_refusal(clean_env, monkeypatch):
    """A local model server on another machine, asked with no key at all, is no key sent."""
    from tasks.llm.secrets import base_for_key

    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1")
    assert base_for_key("OPENAI_BASE_URL", ("OPENAI_API_KEY",), None) == "http://10.0.0.5:8000/v1"
