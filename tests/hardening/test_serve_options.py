"""7. ``python -m deployments.serve`` refuses an option that Prefect would refuse (a bad
``--cron``) in one line naming the option, exit 2, before any server is reached (attacker round
8: ``--cron "61 * * * *"`` ended in a 36-line pydantic traceback)."""

from __future__ import annotations

import pytest

from deployments import serve

CATEGORY = "7 one-line errors"


@pytest.mark.parametrize("cron", ["61 * * * *", "* * *", "not a schedule", "0 3 * * * * * *", "",
                                  # croniter (and so Prefect) took these: a sixth field of seconds, and days
                                  # no such month has (the schedule never fires)
                                  "* * * * * *", "0 3 * * * 0", "0 0 31 2 *", "0 0 30 2 *", "0 12 31 4,6,9,11 *"])
def test_a_bad_cron_is_one_line_naming_the_option(cron, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # never reached: the check comes first
    assert serve.main(["--base", str(tmp_path), "--cron", cron]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("--cron") and "\n" not in err and "Traceback" not in err


def test_a_good_cron_passes_the_check():
    assert serve.check_cron("0 3 * * *") is None and serve.check_cron("*/5 * * * 1-5") is None
    assert serve.check_cron("0 0 31 * *") is None and serve.check_cron("@daily") is None


def test_a_cron_that_never_fires_says_so():
    assert "never fires within a year" in serve.check_cron("0 0 31 2 *")
    assert "6 fields" in serve.check_cron("* * * * * *")


# attack8 unclear case: --sweep-out inside --corpus was accepted, so each scheduled sweep would
# read the last one's outputs as sheets. Decided: refused in one line, before any server.

@pytest.mark.parametrize("sweep_out", ["sheets/out", "sheets", "sheets/./course/../out", "linked/out"],
                         ids=["inside", "same", "dotted", "through-a-link"])
def test_a_sweep_out_inside_the_corpus_is_one_line(sweep_out, tmp_path, capsys, monkeypatch):
    (tmp_path / "sheets" / "course").mkdir(parents=True)
    (tmp_path / "linked").symlink_to(tmp_path / "sheets")
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # never reached: the check comes first
    assert serve.main(["--base", str(tmp_path), "--sweep-out", sweep_out]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"--sweep-out {sweep_out} ") and "inside --corpus sheets" in err and "\n" not in err


def test_a_sweep_out_beside_the_corpus_is_taken(tmp_path):
    (tmp_path / "sheets").mkdir()
    args = serve.parse_args(["--base", str(tmp_path), "--sweep-out", "out/sweep"])
    assert serve.deployment_root(args) == str(tmp_path.resolve())
    args = serve.parse_args(["--base", str(tmp_path), "--sweep-out", "sheets-out"])  # a name that starts alike
    assert serve.deployment_root(args) == str(tmp_path.resolve())


# Attacker round 10, C13: the README's served route (`server start`, PREFECT_API_URL exported,
# `python -m deployments.serve`) ended in a 401 traceback: --cron's check imported Prefect, which read
# its settings then, before connect() had put the kept server's credentials in the environment.
def test_serve_talks_to_the_server_connect_chose_with_its_credentials(tmp_path, monkeypatch):
    import prefect.context
    from prefect.settings import get_current_settings

    import commandline.reach as reach
    import commandline.server as server

    seen = {}

    def connect():
        monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
        monkeypatch.setenv("PREFECT_API_AUTH_STRING", "owner:secret")
        return "server", 0.0

    def fake_serve(*served):
        settings = get_current_settings()
        seen["url"], seen["auth"] = settings.api.url, settings.api.auth_string.get_secret_value()

    (tmp_path / "sheets").mkdir()
    before = prefect.context.GLOBAL_SETTINGS_CONTEXT
    monkeypatch.setattr(server, "connect", connect)
    monkeypatch.setattr(reach, "api_problem", lambda url: None)
    monkeypatch.setattr(serve, "deployments", lambda args: [])
    monkeypatch.setattr("prefect.serve", fake_serve)
    from prefect.settings import PREFECT_API_URL, temporary_settings

    try:  # an entered settings context (as the test harness, or a caller, holds one) with a stale address
        with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:8/api"}):
            assert serve.main(["--base", str(tmp_path), "--cron", "0 3 * * *"]) == 0
    finally:
        prefect.context.GLOBAL_SETTINGS_CONTEXT = before
    assert seen == {"url": "http://127.0.0.1:9/api", "auth": "owner:secret"}
