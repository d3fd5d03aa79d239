"""15. Every flow ends a refused run alike: a Failed state whose message is the one line
(attack4 D11/D13: ``folder/served`` and ``sweep/served`` refused a path outside the root by
raising ``InputError`` — "Encountered exception during execution" in the UI — where
``document/served`` ended with the plain line)."""

from __future__ import annotations

import pytest

from commandline.ends import RunFailed
from tests.hardening.support import write_sheet

CATEGORY = "15 deployment roots"


def _ended_with_one_line(state, *words):
    assert state.is_failed()
    data = state.result(raise_on_failure=False)
    assert isinstance(data, RunFailed), type(data)
    assert "\n" not in state.message and all(w in state.message for w in words), state.message


@pytest.mark.parametrize("case", ["missing", "out-inside"])
def test_the_folder_flow_ends_with_the_line(tmp_path, prefect_server, case):
    from flows.folder import folder_flow

    if case == "missing":
        state = folder_flow(str(tmp_path / "nowhere"), offline=True, return_state=True)
        _ended_with_one_line(state, "no such folder")
    else:
        write_sheet(tmp_path / "course")
        state = folder_flow(str(tmp_path / "course"), out=str(tmp_path / "course" / "out"), offline=True,
                            root=str(tmp_path / "elsewhere"), return_state=True)
        assert state.is_failed() and "\n" not in (state.message or "")


@pytest.mark.parametrize("case", ["missing", "out-inside", "bad-baseline"])
def test_the_sweep_flow_ends_with_the_line(tmp_path, prefect_server, case):
    from flows.sweep import sweep_flow

    write_sheet(tmp_path / "root" / "week1")
    kwargs = {"missing": {"root": str(tmp_path / "nowhere")},
              "out-inside": {"root": str(tmp_path / "root"), "out": str(tmp_path / "root" / "out")},
              "bad-baseline": {"root": str(tmp_path / "root"), "baseline": str(tmp_path / "baseline.json")}}[case]
    if case == "bad-baseline":
        (tmp_path / "baseline.json").write_text("[" * 10_000)
    state = sweep_flow(offline=True, return_state=True, **kwargs)
    _ended_with_one_line(state, {"missing": "no such folder", "out-inside": "inside",
                                 "bad-baseline": "cannot read the baseline"}[case])
