"""15. A deployment's root set to no fixed folder (attack17 C23): ``SHEET2LAMBDA_ROOT`` empty or
blank (what ``prefect.yaml``'s ``"{{ $PWD }}"`` gives with the variable unset) turned confinement
off with no line, and a relative one confined to whatever folder the worker ran in. Each is now
one line and no run, on the command line, in a flow, and in a deployment's job variables."""

from __future__ import annotations

import pytest

import commandline.confine as confinement
from tasks.errors import InputError
from tests.hardening.support import write_sheet
from tests.hardening.test_deployment_root import _Deployment, _deployed

CATEGORY = "15 deployment roots"

VALUES = ["", "   ", "root", ".", "~", "root/."]


@pytest.mark.parametrize("value", VALUES)
def test_a_root_of_no_fixed_folder_refuses_the_flows_paths(value, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", value)
    with pytest.raises(InputError) as e:
        confinement.confine({"solutions": str(tmp_path / "outside" / "sol.md")}, None)
    assert str(e.value).startswith("SHEET2LAMBDA_ROOT: is ") and "absolute folder" in str(e.value)


@pytest.mark.parametrize("value", ["", "root"])
def test_the_command_line_says_it_in_one_line_before_reading(value, tmp_path, monkeypatch, capsys):
    from flows.document import main

    sheet = write_sheet(tmp_path / "root")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "sol.md").write_text("## Question 1\n\nOUTSIDE-SOLUTIONS-31c\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", value)
    code = main([str(sheet), "--solutions", "outside/sol.md", "--backend", "none", "--out", "root/o"])
    printed = capsys.readouterr()
    said = [line for line in (printed.out + printed.err).splitlines() if "SHEET2LAMBDA_ROOT" in line]
    assert code == 1 and len(said) == 1 and "absolute folder" in said[0]
    assert not (tmp_path / "root" / "o").exists()


@pytest.mark.parametrize("value", ["", "courses"])
def test_a_deployments_job_variable_root_of_no_fixed_folder_refuses_to_run(value, monkeypatch):
    monkeypatch.delenv("SHEET2LAMBDA_ROOT", raising=False)
    _deployed(monkeypatch, _Deployment({"env": {"SHEET2LAMBDA_ROOT": value}}, {"base": "/srv/courses"}))
    with pytest.raises(InputError) as e:
        confinement.deployment_roots()
    assert "SHEET2LAMBDA_ROOT of its job variables is" in str(e.value)


def test_an_absolute_root_and_no_root_still_run(tmp_path, monkeypatch):
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", str(tmp_path))
    assert confinement.confine({"source": str(tmp_path / "s.md")}, None) == [str(tmp_path)]
    monkeypatch.delenv("SHEET2LAMBDA_ROOT")
    assert confinement.confine({"source": "/elsewhere/s.md"}, None) == []
