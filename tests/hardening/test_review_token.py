"""14. The review page's token is never on a command line (attack8 break1: ``sheet2lambda review
OUT`` gave the browser the page's address, token included, as an argument; ``ps`` showed it to
every local user, who then drove the page and decided flags). The browser is given a 0600 page of
ours (``file://``, in a 0700 folder) that sends it on; the folder is removed once the review ends."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from tasks.review import page as review_page
from tests.test_review import make_run

CATEGORY = "14 kept server and processes"


@pytest.fixture
def opened(monkeypatch):
    """Every address handed to the browser (``webbrowser.open``), none opened."""
    import webbrowser

    seen: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: seen.append(url) or True)
    return seen


def test_the_browser_gets_a_private_page_of_ours_not_the_token(opened):
    url = "http://127.0.0.1:5555/" + "T0ken_" * 7 + "/"
    path = review_page.open_browser(url)
    try:
        assert opened == [path.as_uri()] and "T0ken_" not in opened[0] and opened[0].startswith("file:///")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.stat().st_uid == os.getuid()
        text = path.read_text()
        assert f'http-equiv="refresh" content="0; url={url}"' in text and f'href="{url}"' in text
    finally:
        review_page.remove_launcher(path)
    assert not path.parent.exists()


def test_an_address_cannot_break_out_of_the_launcher_page():
    path = review_page.launcher('http://127.0.0.1:1/x"><script>alert(1)</script>/')
    try:
        assert "<script>" not in path.read_text()
    finally:
        review_page.remove_launcher(path)


def test_two_reviews_get_two_launcher_folders(opened):
    one, two = review_page.open_browser("http://127.0.0.1:1/a/"), review_page.open_browser("http://127.0.0.1:1/b/")
    try:
        assert one.parent != two.parent
    finally:
        review_page.remove_launcher(one)
        review_page.remove_launcher(two)


def test_remove_launcher_touches_only_a_launcher_folder(tmp_path):
    other = tmp_path / "keep" / "review.html"
    other.parent.mkdir()
    other.write_text("x")
    review_page.remove_launcher(other)
    review_page.remove_launcher(None)
    assert other.is_file()


def test_sheet2lambda_review_opens_the_launcher_and_removes_it_after(tmp_path, opened, monkeypatch, capsys):
    """The command itself (flows.review.main): the browser's argument holds no token, the address
    printed on the terminal (the person's own) does, and the launcher is gone once Finish is pressed."""
    from flows import review

    out = make_run(tmp_path)
    seen_servers: list = []
    real_start = review_page.PageServer.start

    def start(self):
        seen_servers.append(self)
        threading.Timer(0.5, self.finished.set).start()  # the person presses Finish
        return real_start(self)

    monkeypatch.setattr(review_page.PageServer, "start", start)
    assert review.main([str(out), "--backend", "none"]) == 0
    (server,) = seen_servers
    assert len(opened) == 1 and server.token not in opened[0] and opened[0].startswith("file:///")
    assert server.token in capsys.readouterr().out  # --no-open or not, the person may paste it
    assert not Path(opened[0].removeprefix("file://")).parent.exists()


def test_no_open_opens_nothing(tmp_path, opened, monkeypatch):
    from flows import review

    out = make_run(tmp_path)
    real_start = review_page.PageServer.start

    def start(self):
        threading.Timer(0.5, self.finished.set).start()
        return real_start(self)

    monkeypatch.setattr(review_page.PageServer, "start", start)
    assert review.main([str(out), "--backend", "none", "--no-open"]) == 0
    assert opened == []


# attack13 C18: a request naming another host (a DNS-rebinding page's own name) was answered 200
@pytest.mark.parametrize("host,allowed", [("evil.example", False), ("evil.example:80", False), ("127.0.0.1.nip.io", False),
                                          ("127.0.0.1:1", False), ("", False), ("127.0.0.1", True),
                                          ("localhost", True), ("LOCALHOST", True)],
                         ids=["name", "name-port", "lookalike", "other-port", "none", "ip", "localhost", "upper"])
def test_the_page_answers_only_requests_naming_itself(tmp_path, host, allowed):
    from starlette.testclient import TestClient

    from tasks.review.session import ReviewSession

    out = make_run(tmp_path)
    client = TestClient(review_page.make_app(ReviewSession(out), "sesame"), base_url="http://127.0.0.1")
    r = client.get("/sesame/api/overview", headers={"host": host})
    assert (r.status_code == 200) == allowed, (host, r.status_code)
    if not allowed:
        assert "answers only at 127.0.0.1" in r.text and r.headers["referrer-policy"] == "no-referrer"


def test_the_served_page_checks_its_own_port(tmp_path):
    """Through uvicorn on a real port: ``127.0.0.1:PORT`` is answered, the same with a foreign name is not."""
    import http.client

    from tasks.review.session import ReviewSession

    server = review_page.PageServer(ReviewSession(make_run(tmp_path))).start()
    try:
        port = server.socket.getsockname()[1]
        for host, status in ((f"127.0.0.1:{port}", 200), ("evil.example", 403), (f"evil.example:{port}", 403)):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.putrequest("GET", f"/{server.token}/api/overview", skip_host=True)
            conn.putheader("Host", host)
            conn.endheaders()
            assert conn.getresponse().status == status, host
            conn.close()
    finally:
        server.stop()
