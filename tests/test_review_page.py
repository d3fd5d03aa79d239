"""The review page's parts without a browser: the token gate, the rendering of a field, where a
field sits in the sheet, and a session's decisions and undo on a run's folder.

The run's folder is the one tests/test_review.py builds with the real stages (its
``make_run``); the browser tests are in tests/test_review_browser.py.
"""

from __future__ import annotations

import json

import pytest

from schemas.review import ReviewLog
from tasks.review.form import build_id
from tasks.review.lines import Document, place_flag, place_text
from tasks.review.page import PageServer, make_app
from tasks.review.render import diff_marks, render_field
from tasks.review.session import ReviewSession
from tests.test_review import ACCEL, flag_no, make_run, question


@pytest.fixture
def out(tmp_path):
    return make_run(tmp_path)


def test_every_request_without_the_token_is_refused(out):
    from starlette.testclient import TestClient

    client = TestClient(make_app(ReviewSession(out), "sesame"), base_url="http://127.0.0.1")
    for path in ("/", "/api/overview", "/set.zip", "/static/page.js", "/sesam/", "/sesame", "/x/sesame/",
                 "/SESAME/api/overview", "/favicon.ico"):
        r = client.get(path)
        assert r.status_code == 403, path
        assert "refused" in r.text and "Mechanics" not in r.text
    assert client.post("/api/undo", json={}).status_code == 403
    assert client.post("/sesamex/api/flag/1/decide", json={"choice": "keep"}).status_code == 403
    assert not (out / "review.json").exists()  # nothing decided through a refused request
    ok = client.get("/sesame/api/overview")
    assert ok.status_code == 200 and ok.json()["set_name"] == "mech"
    csp = ok.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert ok.headers["referrer-policy"] == "no-referrer" and ok.headers["cache-control"] == "no-store"
    page = client.get("/sesame/")
    assert page.status_code == 200 and 'src="static/page.js"' in page.text and "<script>" not in page.text
    assert client.get("/sesame/static/page.py").status_code == 404  # only the page's own files
    assert client.get("/sesame/set.zip").content[:2] == b"PK"


def test_the_server_listens_on_localhost_only_with_a_long_random_token(out):
    one, two = PageServer(ReviewSession(out)), PageServer(ReviewSession(out))
    try:
        assert one.socket.getsockname()[0] == "127.0.0.1"
        assert one.token != two.token and len(one.token) >= 40
        assert one.url == f"http://127.0.0.1:{one.socket.getsockname()[1]}/{one.token}/"
    finally:
        one.socket.close()
        two.socket.close()


def test_a_field_is_rendered_as_the_platform_shows_it_and_never_runs_the_sheets_html():
    shown = render_field(r"Find $F = \frac{m}{2}$ <script>alert(1)</script> [x](javascript:alert(2))"
                         "\n\n$$a^2$$ and ![](fig.png) and $\\frac{$")
    assert shown.count("<math") == 2 and 'display="block"' in shown and "<mfrac>" in shown
    assert "<script>" not in shown and "&lt;script&gt;" in shown
    assert 'href="javascript' not in shown
    assert '<img src="fig.png"' in shown  # an image the run did not keep keeps its link (the policy loads nothing)
    with_image = render_field("![](fig.png)", {"fig.png": "image/0"})
    assert '<img src="image/0"' in with_image
    bad = render_field(r"$\nosuchmacro{x}$")
    assert 'class="katex-error"' in bad and r"$\nosuchmacro{x}$" in bad and "<math" not in bad


def test_the_differences_of_the_two_routes_are_marked_words_and_whole_maths():
    a = "1.  The force is $$F = \\frac{mg}{3}$$ along the ramp."
    b = "1.  The force is $$F = \\frac{mg}{2}$$ on the ramp."
    ma, mb = diff_marks(a, b)
    assert [a[s:e] for s, e in ma] == ["$$F = \\frac{mg}{3}$$ along"]
    assert [b[s:e] for s, e in mb] == ["$$F = \\frac{mg}{2}$$ on"]
    shown = render_field(a, marks=ma)
    assert shown.startswith("<ol>") and shown.count("<mark>") == 1  # the list marker is not cut by a mark
    assert diff_marks(a, None) == ([], [])
    assert diff_marks("same words", "same  words") == ([], [])


def test_a_field_is_placed_on_the_lines_of_the_sheet_it_came_from():
    sheet = "# Sheet\n\n1.  A block rests\n    on a ramp.\n\n    Find the force.\n\n2.  A cyclist accelerates from rest.\n"
    sols = "# Solutions\n\n1.  The force is $F$.\n"
    docs = [Document.of("source.md", sheet), Document.of("solutions.md", sols)]
    place = place_text(docs, "A block rests on a ramp.\n\nFind the force.")
    assert (place.document, place.lines, place.whole) == (0, ((3, 6),), True)  # the blank line between is joined
    worked = place_flag(docs, "q1.p1.worked_solution", ["The force is $F$."], [])
    assert (worked.document, worked.lines) == (1, ((3, 3),))
    assert place_flag(docs, "source:7-8", [], []).lines == ((7, 8),)
    near = place_flag(docs, "q2.main_text", ["A cyclist accelerates from a stop."], [])
    assert near.lines == ((8, 8),) and not near.whole  # not a quote: placed by what it shares with the sheet
    assert place_flag(docs, "q3.main_text", ["nothing like it"], []) is None


def test_a_session_applies_each_decision_at_once_and_undoes_it(out):
    session = ReviewSession(out)
    n = flag_no(out, "q1.p1.content")
    view = session.view(n)
    assert view["routes"]["a"] and "<mark>" in view["routes"]["b"]
    assert [c["key"] for c in view["choices"]] == ["A", "B", "keep", "source"]  # no model: no note
    assert view["place"]["lines"] == ((7, 7),)
    assert session.decide(n, "note", note="x")["ok"] is False
    took = session.decide(n, "B")
    assert took["ok"] and "rebuilt" in took["said"]
    assert question(out, 0)["parts"][0]["content"] == "Find the force."
    assert session.decide(n, "A")["ok"]  # a second decision replaces the first
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.flag, d.choice) for d in log.decisions] == [(n, "A")]
    k = flag_no(out, "q2.p1.worked_solution")
    refused = session.decide(k, "source", passage="The acceleration is $a = 2$.")
    assert not refused["ok"] and "not a whole quote" in refused["said"]
    assert session.decide(k, "source", passage=ACCEL)["ok"]
    assert session.undo()["said"].startswith(f"flag {k}:")  # the passage taken back: the flag open again
    assert [d.flag for d in ReviewLog.model_validate_json((out / "review.json").read_text()).decisions] == [n]
    back = session.undo()  # A taken back: the flag has B again, its decision before
    assert back["ok"] and "back to route B" in back["said"]
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.flag, d.choice) for d in log.decisions] == [(n, "B")]
    assert question(out, 0)["parts"][0]["content"] == "Find the force."
    session.undo()
    assert json.loads((out / "review.json").read_text())["decisions"] == []
    assert question(out, 0)["parts"][0]["content"] == "Find the force along the ramp."
    assert session.undo() == {"ok": False, "said": "nothing to undo"}


def test_the_command_opens_the_page_and_ends_with_finish(out, monkeypatch, capsys):
    import threading

    import httpx

    from flows.review import main

    opened: list[str] = []
    acted: dict = {}

    def person(url):
        try:
            acted["refused"] = httpx.get(url + "nothing-here", timeout=30).status_code
            n = flag_no(out, "q1.p1.content")
            acted["took"] = httpx.post(f"{url}api/flag/{n}/decide", json={"choice": "B", "build": build_id(out)}, timeout=60).json()
            httpx.post(f"{url}api/done", json={}, timeout=30)
        except BaseException as e:  # reported by the test
            acted["error"] = e

    def browser_open(launcher):
        # The browser is given our launcher page (never the address with its token: attack8
        # break1), which sends it on to the page, as a browser follows it.
        import html
        import re
        from pathlib import Path

        text = Path(launcher.removeprefix("file://")).read_text()
        url = html.unescape(re.search(r'href="([^"]+)"', text).group(1))
        opened.append((launcher, url))
        threading.Thread(target=person, args=(url,), daemon=True).start()
        return True

    monkeypatch.setattr("webbrowser.open", browser_open)
    assert main([str(out), "--backend", "none"]) == 0
    assert "error" not in acted, acted.get("error")
    ((launcher, url),) = opened
    printed = capsys.readouterr().out
    assert launcher.startswith("file:///") and url.split("/")[-2] not in launcher
    assert url.startswith("http://127.0.0.1:") and url in printed
    assert acted["took"]["ok"] and acted["refused"] == 404  # a wrong path under the token: not found
    assert "1 resolved" in printed and "1 decision in" in printed
    assert question(out, 0)["parts"][0]["content"] == "Find the force."


def test_no_open_prints_the_address_and_opens_nothing(out, monkeypatch, capsys):
    import threading
    import time

    import httpx

    from flows.review import main

    monkeypatch.setattr("webbrowser.open", lambda url: pytest.fail("a browser was opened"))
    code: list[int] = []
    thread = threading.Thread(target=lambda: code.append(main([str(out), "--no-open", "--backend", "none"])),
                              daemon=True)
    thread.start()
    url = None
    for _ in range(200):
        found = [w for w in capsys.readouterr().out.split() if w.startswith("http://127.0.0.1:")]
        if found:
            url = found[0]
            break
        time.sleep(0.1)
    assert url is not None
    assert httpx.get(url + "api/overview", timeout=30).json()["set_name"] == "mech"
    httpx.post(url + "api/done", json={}, timeout=30)
    thread.join(30)
    assert code == [0]
