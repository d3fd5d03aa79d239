"""13. Credentials go only where they should, and requests only to places we chose: a
``.env`` is read from the working folder or the project only, a ``.env`` never sends a key
from the environment to another host without saying so, Mathpix's credentials never follow
a redirect to another origin, images of Mathpix's markdown are fetched only from Mathpix's
own hosts, an OCR cache entry cannot name a file outside the cache, and a 200 reply with no
usage is a failed call, not a traceback."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from schemas.llm import LLMRequest
from tasks.convert import mathpix
from tasks.convert.mathpix import MathpixError, image_allowed
from tasks.convert.ocr_cache import read_entry
from tasks.llm import BackendError
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.openai_compat import OpenAIBackend, OpenRouterBackend
from tasks.llm.secrets import dotenv_file, secret
from tests.fakes import anthropic_api as fa
from tests.fakes.env import CANARY, clean_env  # noqa: F401 - a fixture

CATEGORY = "13 credentials and requests"


class _Recorder:
    """An HTTP server on 127.0.0.1 that records every request's path and headers and answers
    ``answer(path) -> (status, headers, body)``."""

    def __init__(self, answer):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, headers, body = answer(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET  # noqa: N815

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="v", system="Copy only.", user="Sheet text.",
                      json_schema=None, max_tokens=100)


def test_a_dotenv_in_a_folder_above_the_working_one_is_never_read(clean_env, tmp_path, monkeypatch):
    above = clean_env.parent
    (above / ".env").write_text(f"ANTHROPIC_API_KEY={CANARY['ANTHROPIC_API_KEY']}\n")
    child = clean_env / "course"
    child.mkdir()
    monkeypatch.chdir(child)
    assert secret("ANTHROPIC_API_KEY") is None
    assert dotenv_file() in (None, mathpix_root_env())
    (child / ".env").write_text("ANTHROPIC_API_KEY=from-the-working-folder-0123\n")
    assert secret("ANTHROPIC_API_KEY") == "from-the-working-folder-0123"


def mathpix_root_env():
    from tasks.llm.secrets import PROJECT_ROOT

    return PROJECT_ROOT / ".env" if (PROJECT_ROOT / ".env").is_file() else None


BACKENDS = {
    "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", lambda: AnthropicBackend("claude-sonnet-5-5", attempts=1, timeout=5)),
    "openrouter": ("OPENROUTER_BASE_URL", "OPENROUTER_API_KEY", lambda: OpenRouterBackend("a/b", attempts=1, timeout=5)),
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY", lambda: OpenAIBackend("local", attempts=1, timeout=5)),
}


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_dotenv_base_url_never_takes_a_key_from_the_environment_elsewhere(clean_env, monkeypatch, name):
    base_var, key_var, make = BACKENDS[name]
    monkeypatch.setenv(key_var, CANARY[key_var])
    with _Recorder(lambda path: (200, {}, b"{}")) as elsewhere:
        (clean_env / ".env").write_text(f"{base_var}={elsewhere.url}/v1\n")
        with pytest.raises(BackendError) as e:
            make().complete(_request())
        assert elsewhere.seen == []
    reason = str(e.value)
    assert base_var in reason and key_var in reason and ".env" in reason and "\n" not in reason
    assert CANARY[key_var] not in reason


def test_a_key_and_a_base_url_from_the_same_dotenv_go_where_they_say(clean_env):
    with fa.FakeAnthropic([fa.ok(fa.message(text="hello"))]) as fake:
        (clean_env / ".env").write_text(f"ANTHROPIC_BASE_URL={fake.url}\nANTHROPIC_API_KEY={CANARY['ANTHROPIC_API_KEY']}\n")
        reply = AnthropicBackend("claude-sonnet-5-5", attempts=1, timeout=5).complete(_request())
    assert reply.text == "hello" and len(fake.requests) == 1


def test_a_dotenv_mathpix_base_never_takes_credentials_from_the_environment(clean_env, monkeypatch):
    monkeypatch.setenv("MATHPIX_APP_ID", "app-id-from-env-0001")
    monkeypatch.setenv("MATHPIX_APP_KEY", "app-key-from-env-0123456789")
    monkeypatch.delenv("MATHPIX_BASE_URL", raising=False)
    with _Recorder(lambda path: (200, {}, b"{}")) as elsewhere:
        (clean_env / ".env").write_text(f"MATHPIX_BASE_URL={elsewhere.url}\n")
        with pytest.raises(MathpixError) as e:
            mathpix.convert_pdf(b"%PDF-1.4\n%%EOF\n", "sheet.pdf")
        assert elsewhere.seen == []
    assert "MATHPIX_BASE_URL" in e.value.reason and "app-key-from-env" not in e.value.reason


def test_mathpix_credentials_never_follow_a_redirect_to_another_origin():
    with _Recorder(lambda path: (200, {"Content-Type": "application/json"}, b'{"ok": true}')) as other:
        with _Recorder(lambda path: (307, {"Location": f"{other.url}/v3/pdf/x"}, b"")) as api:
            client = mathpix._Client(api.url, 5, 30, 1, {"app_id": "the-id-0001", "app_key": "the-key-0123456789"})
            client.request("GET", f"{api.url}/v3/pdf/x")
            assert api.seen[0][1].get("app_key") == "the-key-0123456789"
        assert other.seen, "the redirect was followed"
        assert "app_key" not in other.seen[0][1] and "app_id" not in other.seen[0][1]


@pytest.mark.parametrize("url, allowed", [
    ("https://cdn.mathpix.com/cropped/2026_01_01_abc-1.jpg?height=10", True),
    ("http://cdn.mathpix.com/cropped/a.jpg", False),           # not over https
    ("https://cdn.mathpix.com.evil.example/cropped/a.jpg", False),
    ("http://127.0.0.1:8080/secret.png", False),               # loopback, another origin than the API
    ("http://169.254.169.254/latest/meta-data/", False),       # link-local (cloud metadata)
    ("http://[::1]/x.png", False),
    ("https://user@cdn.mathpix.com/a.jpg", False),             # userinfo: refused (attack 9, break7)
    ("https://api.mathpix.com/cropped/a.jpg", True),           # the API's own origin
])
def test_images_are_fetched_only_from_mathpixs_hosts(url, allowed):
    assert image_allowed(url, "https://api.mathpix.com") is allowed


def test_an_image_link_to_another_host_is_never_requested():
    with _Recorder(lambda path: (200, {}, b"\xff\xd8 crop")) as other:
        with _Recorder(lambda path: (200, {}, b"\xff\xd8 crop")) as api:
            client = mathpix._Client(api.url, 5, 30, 1, {})
            md = f"![]({api.url}/cropped/a.jpg)\n\n![]({other.url}/cropped/b.jpg)\n"
            got = mathpix._download_images(client, md)
        assert other.seen == []
    assert list(got) == [f"{api.url}/cropped/a.jpg"]


def test_an_image_that_redirects_is_one_line_and_not_followed():
    with _Recorder(lambda path: (200, {}, b"secret")) as other:
        with _Recorder(lambda path: (302, {"Location": f"{other.url}/x"}, b"")) as api:
            client = mathpix._Client(api.url, 5, 30, 1, {})
            with pytest.raises(MathpixError) as e:
                mathpix._download_images(client, f"![]({api.url}/cropped/a.jpg)\n")
        assert other.seen == []
    assert "redirect" in e.value.reason and "\n" not in e.value.reason


@pytest.mark.parametrize("name", ["../../outside.jpg", "..", ".hidden", "a/b.jpg", "", "x\x00.jpg"])
def test_an_ocr_cache_entry_naming_a_file_outside_its_media_is_not_an_entry(tmp_path, name):
    entry = tmp_path / "cache" / "k"
    (entry / "media").mkdir(parents=True)
    (tmp_path / "cache" / "outside.jpg").write_bytes(b"not ours")
    (entry / "mathpix.md").write_text("![](https://cdn.mathpix.com/a.jpg)\n")
    (entry / "entry.json").write_text(json.dumps({
        "key": "k", "pdf_sha256": "0" * 64, "options": {}, "pdf_id": "p", "pages": 1,
        "images": {"https://cdn.mathpix.com/a.jpg": name}, "created": "2026-12-01T00:00:00+00:00"}))
    assert read_entry(entry) is None


def test_a_reply_of_200_without_usage_is_a_failed_call_not_a_traceback(clean_env, monkeypatch):
    body = fa.message(text="hello")
    del body["usage"]
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    with fa.FakeAnthropic([fa.ok(body)]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        with pytest.raises(BackendError) as e:
            AnthropicBackend("claude-sonnet-5-5", attempts=1, timeout=5).complete(_request())
    assert "no usage" in str(e.value) and "\n" not in str(e.value)


# attack8 break2: another account's .env in a shared 1777 working folder chose OPENAI_BASE_URL
# and a key of its own, and the sheet was posted to its host. A .env that is not this user's
# alone is never read, and the command line refuses it in one line naming the file.

def _untrusted(env_file: Path, how: str, monkeypatch) -> None:
    """Make ``env_file`` another user's (the check sees another uid) or writable by others."""
    import os

    from tasks import dotenv_trust

    if how == "another user's":
        real = os.getuid()
        monkeypatch.setattr(dotenv_trust.os, "getuid", lambda: real + 1)
    else:
        os.chmod(env_file, {"group-writable": 0o620, "world-writable": 0o666}[how])


HOW = ["another user's", "group-writable", "world-writable"]


@pytest.mark.parametrize("how", HOW)
def test_an_untrusted_dotenv_never_chooses_where_a_sheet_goes(clean_env, monkeypatch, how):
    with _Recorder(lambda path: (200, {}, b"{}")) as attacker:
        env_file = clean_env / ".env"
        env_file.write_text(f"OPENAI_BASE_URL={attacker.url}/v1\nOPENAI_API_KEY=sk-attacker-0123456789\n")
        _untrusted(env_file, how, monkeypatch)
        assert dotenv_file() is None and secret("OPENAI_API_KEY") is None
        with pytest.raises((BackendError, ValueError)) as e:  # a setting refused, as a bad one is
            OpenAIBackend("local", attempts=1, timeout=5).complete(_request())
        assert attacker.seen == []
    assert str(env_file) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("how", HOW)
def test_an_untrusted_dotenv_is_one_line_naming_it_before_a_run(clean_env, monkeypatch, capsys, how):
    from commandline.options import precheck

    sheet = clean_env / "cart.md"
    sheet.write_text("## Question 1\n\nFind $x$.\n")
    env_file = clean_env / ".env"
    env_file.write_text("OPENAI_BASE_URL=http://127.0.0.1:9/v1\n")
    _untrusted(env_file, how, monkeypatch)
    with pytest.raises(SystemExit) as e:
        precheck("document", [str(sheet)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 1 and err.startswith(f"{env_file}: refused: this .env ") and "\n" not in err


def test_a_link_named_dotenv_to_another_users_file_is_refused(clean_env, monkeypatch, tmp_path):
    from tasks import dotenv_trust

    target = tmp_path / "theirs.env"
    target.write_text("OPENAI_API_KEY=sk-attacker-0123456789\n")
    (clean_env / ".env").symlink_to(target)
    if os.getuid() == 0:
        os.chown(target, 65534, -1)  # nobody's; the link itself is ours
    else:  # the file the link names looks another user's (the link itself is ours)
        real_stat = os.stat

        class Theirs:
            def __init__(self, st):
                self.st_uid, self.st_mode, self.st_size = st.st_uid + 1, st.st_mode, st.st_size

        def stat(p, *a, **k):
            st = real_stat(p, *a, **k)
            return Theirs(st) if str(p) == str(clean_env / ".env") and k.get("follow_symlinks", True) else st

        monkeypatch.setattr(dotenv_trust.os, "stat", stat)
    assert "belongs to another user" in (dotenv_trust.dotenv_problem() or "")
    assert secret("OPENAI_API_KEY") is None


def test_the_users_own_private_dotenv_is_still_read(clean_env):
    (clean_env / ".env").write_text("OPENAI_API_KEY=sk-mine-0123456789\n")
    (clean_env / ".env").chmod(0o600)
    assert secret("OPENAI_API_KEY") == "sk-mine-0123456789"
    (clean_env / ".env").chmod(0o644)  # readable by others is the user's choice; writable is not
    assert secret("OPENAI_API_KEY") == "sk-mine-0123456789"


@pytest.mark.parametrize("command", ["review", "compare"])
def test_an_untrusted_dotenv_stops_review_and_compare_in_one_line(clean_env, monkeypatch, capsys, command):
    from commandline.cli import main

    env_file = clean_env / ".env"
    env_file.write_text("ANTHROPIC_BASE_URL=http://127.0.0.1:9\n")
    _untrusted(env_file, "world-writable", monkeypatch)
    monkeypatch.setenv("PREFECT_HOME", str(clean_env / "home"))
    assert main([command, str(clean_env)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{env_file}: refused: this .env is writable by other users") and "\n" not in err
