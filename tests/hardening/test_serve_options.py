"""7. ``python -m deployments.serve`` refuses an option that Prefect would refuse (a bad
``--cron``) in one line naming the option, exit 2, before any server is reached (attacker round
8: ``--cron "61 * * * *"`` ended in a 36-line pydantic traceback)."""

from __future__ import annotations

import pytest

from deployments import serve

CATEGORY = "7 one-line errors"


@pytest.mark.parametrize("cron", ["61 * * * *", "* * *", "not a schedule", "0 3 * * * * * *", ""])
def test_a_bad_cron_is_one_line_naming_the_option(cron, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # never reached: the check comes first
    assert serve.main(["--base", str(tmp_path), "--cron", cron]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("--cron") and "\n" not in err and "Traceback" not in err


def test_a_good_cron_passes_the_check():
    assert serve.check_cron("0 3 * * *") is None and serve.check_cron("*/5 * * * 1-5") is None
