"""14. A paused run's review-page token never reaches the Prefect server (attack 11, C46: the
run's log line held ``http://127.0.0.1:PORT/<TOKEN>/``, which every reader of a shared server's
logs could use to decide the owner's flags). The log and the description name the page without
its token and say how the owner opens it (``sheet2lambda review OUT``, which finds the address in
a 0600 file of ``PREFECT_HOME`` and opens that page, whose Finish resumes the run)."""

from __future__ import annotations

import contextvars
import os
import socket
import stat
import threading

import pytest

from commandline import review_pages
from tests.test_review_pause import outcome_of, paused_run, sheet  # noqa: F401  (a fixture)

CATEGORY = "14 kept server and processes"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def listening():
    """A port something listens on, as the page's server does."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


def test_the_address_is_kept_for_its_owner_alone(home, tmp_path, listening):
    url = f"http://127.0.0.1:{listening}/S3cretToken_abc/"
    path = review_pages.note(tmp_path / "out", url)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert review_pages.noted(tmp_path / "out") == url
    assert review_pages.noted(tmp_path / "other") is None
    assert review_pages.without_token(url) == f"http://127.0.0.1:{listening}/"
    review_pages.forget(path)
    assert review_pages.noted(tmp_path / "out") is None


@pytest.mark.parametrize("how", ["readable by others", "a link", "page gone"])
def test_an_address_file_not_ours_alone_or_stale_is_not_used(how, home, tmp_path, listening):
    url = f"http://127.0.0.1:{listening}/S3cretToken_abc/"
    path = review_pages.note(tmp_path / "out", url)
    if how == "readable by others":
        os.chmod(path, 0o644)
    elif how == "a link":
        real = tmp_path / "elsewhere.json"
        real.write_bytes(path.read_bytes())
        os.chmod(real, 0o600)
        path.unlink()
        path.symlink_to(real)
    else:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there any more
        review_pages.note(tmp_path / "out", f"http://127.0.0.1:{port}/S3cretToken_abc/")
    assert review_pages.noted(tmp_path / "out") is None


def test_the_paused_runs_log_and_description_hold_no_token(sheet, tmp_path, prefect_server, capsys):  # noqa: F811
    import httpx
    from prefect.input.actions import read_flow_run_input
    from prefect.input.run_input import keyset_from_paused_state

    from flows import review
    from flows.document import document_flow

    out = tmp_path / "out"
    seen: dict = {}

    def owner():
        try:
            run = paused_run(out)
            seen["description"] = read_flow_run_input(keyset_from_paused_state(run.state)["description"],
                                                      flow_run_id=run.id)
            seen["code"] = review.main([str(out), "--no-open"])  # the owner's command: this run's page
            url = review_pages.noted(out)
            seen["url"] = url
            seen["bare"] = httpx.get(review_pages.without_token(url), timeout=30).status_code
            httpx.post(f"{url}api/done", json={}, timeout=30)  # Finish resumes the run
        except BaseException as e:  # reported by the test, not lost in the thread
            seen["error"] = e

    thread = threading.Thread(target=contextvars.copy_context().run, args=(owner,), daemon=True)
    thread.start()
    state = document_flow(out=str(out), backend="none", review=True, review_timeout=300, return_state=True, **sheet)
    thread.join(timeout=60)
    assert "error" not in seen, seen.get("error")
    assert state.is_completed(), state
    token = seen["url"].rstrip("/").rsplit("/", 1)[1]
    printed = capsys.readouterr().out.splitlines()
    assert len(token) >= 32 and seen["code"] == 0 and any(token in line for line in printed)  # the owner's terminal
    # the run's log line (commandline.logs.say: the same text in the flow run's log) and its description
    (logged,) = [line for line in printed if "paused for a person's review" in line]
    assert token not in logged and f"sheet2lambda review {out}" in logged and "127.0.0.1" in logged
    assert token not in seen["description"] and f"sheet2lambda review {out}" in seen["description"]
    assert review_pages.without_token(seen["url"]) in seen["description"]  # issue 21: the page is linked
    assert seen["bare"] == 403 and review_pages.noted(out) is None  # the file went with the page
