"""15. Every path of a deployed run stays inside the deployment's root: ``confine`` refuses a
path, a ``base``, or a link whose target lies outside the root, each with one line naming the
parameter; the root comes from the deployment itself (job variables, else its default base),
never from the run's parameters. (The runs through a served deployment are in
``tests/test_deployments.py``.)"""

from __future__ import annotations

import pytest

from commandline import confine as confinement
from commandline.confine import confine
from tasks.errors import InputError
from tests.hardening.support import answer_as_deployment

CATEGORY = "15 deployment roots"


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "courses"
    (r / "week1").mkdir(parents=True)
    (r / "week1" / "sheet.md").write_text("## Question 1\n\nWords.\n")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "notes.md").write_text("not the course's")
    (r / "week1" / "linked.md").symlink_to(tmp_path / "private" / "notes.md")
    (r / "week1" / "linked-folder").symlink_to(tmp_path / "private")
    return r


@pytest.mark.parametrize("name, rel", [
    ("source", "../private/notes.md"), ("source", "week1/linked.md"), ("replies", "week1/linked-folder"),
    ("out", "../elsewhere"), ("out", "week1/linked-folder/out"), ("export", "/etc"),
])
def test_a_path_outside_the_root_is_one_line(root, name, rel):
    path = str(root / rel) if not rel.startswith("/") else rel
    with pytest.raises(InputError) as e:
        confine({name: path}, str(root), roots=[root])
    assert f"{name} is outside this deployment's root" in str(e.value) and "\n" not in str(e.value)


def test_a_base_moved_out_of_the_root_is_refused(root, tmp_path):
    with pytest.raises(InputError) as e:
        confine({"source": str(tmp_path / "private" / "notes.md")}, str(tmp_path), roots=[root])
    assert "source is outside" in str(e.value)


def test_paths_inside_the_root_pass_and_no_root_confines_nothing(root, tmp_path):
    confine({"source": str(root / "week1" / "sheet.md"), "out": str(root / "out" / "sheet"), "filter": None},
            str(root), roots=[root])
    confine({"source": str(tmp_path / "private" / "notes.md")}, None, roots=[])


def test_the_environments_root_confines_a_command_line_run(root, tmp_path, monkeypatch):
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", str(root))
    with pytest.raises(InputError):
        confine({"source": str(tmp_path / "private" / "notes.md")}, None)


class _Deployment:
    def __init__(self, job_variables, parameters, name="document/pool", work_pool_name="sheet2lambda"):
        self.job_variables, self.parameters, self.name = job_variables, parameters, name
        self.work_pool_name = work_pool_name


def _deployed(monkeypatch, deployment: _Deployment) -> None:
    """This flow run belongs to a deployment that the API answers as ``deployment`` (its run's own job
    variables none, its pool the README's: commandline/pool_check.py)."""
    answer_as_deployment(monkeypatch, deployment)


@pytest.mark.parametrize("job_variables, parameters, expected", [
    ({"env": {"SHEET2LAMBDA_ROOT": "/srv/courses"}}, {"base": "/srv/courses/2026"}, "/srv/courses"),
    ({}, {"base": "/srv/courses/2026"}, "/srv/courses/2026"),
])
def test_the_root_is_read_from_the_deployment_not_the_runs_parameters(monkeypatch, job_variables, parameters, expected):
    monkeypatch.delenv("SHEET2LAMBDA_ROOT", raising=False)
    _deployed(monkeypatch, _Deployment(job_variables, parameters))
    assert [str(r) for r in confinement.deployment_roots()] == [expected]


def test_a_deployment_with_no_root_at_all_refuses_to_run(monkeypatch):
    monkeypatch.delenv("SHEET2LAMBDA_ROOT", raising=False)
    _deployed(monkeypatch, _Deployment({}, {}))
    with pytest.raises(InputError) as e:
        confinement.deployment_roots()
    assert "has no root" in str(e.value)


def test_a_pool_runs_own_job_variable_override_never_widens_the_root(monkeypatch):
    """A run of a work pool's deployment may override job variables (env) from the UI: its
    SHEET2LAMBDA_ROOT of "/" still meets the deployment's own root."""
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", "/")
    _deployed(monkeypatch, _Deployment({}, {"base": "/srv/courses"}))
    roots = confinement.deployment_roots()
    assert [str(r) for r in roots] == ["/", "/srv/courses"]
    with pytest.raises(InputError):
        confine({"source": "/etc/passwd"}, None, roots=roots)


# --- a fresh attacker's round (issue 23, fourth round) ----------------------------------------


@pytest.mark.parametrize("name", ["route-a.json", "adjudication.json", "areas.json", "filter.lua", "compare.json"])
def test_a_saved_reply_that_links_out_of_its_folder_is_not_read(root, tmp_path, name):
    """A ``replies`` folder inside the root passes ``confine``, but its ``route-a.json`` was a
    link to a file outside the root: it was read, and its text copied into the set, flags.json
    and settled.json. The files of a folder of saved replies are found by name, so a link among
    them leading out of the folder is one line, never read (a command line run alike)."""
    from tasks.convert.inputs import read_inputs

    (tmp_path / "private" / name).write_text('[{"title": "SECRET", "main_text": "x", "parts": []}]')
    replies = root / "week1" / "replies"
    replies.mkdir()
    (replies / name).symlink_to(tmp_path / "private" / name)
    confine({"replies": str(replies)}, str(root), roots=[root])  # the folder itself is inside
    with pytest.raises(InputError) as e:
        read_inputs(str(root / "week1" / "sheet.md"), replies=str(replies))
    assert "link leading out of the folder of saved replies" in str(e.value) and "\n" not in str(e.value)


def test_a_saved_reply_linked_within_its_folder_is_read(root):
    from tasks.convert.inputs import read_inputs

    replies = root / "week1" / "replies"
    replies.mkdir()
    (replies / "kept.json").write_text('[{"title": "T", "main_text": "Words.", "parts": []}]')
    (replies / "route-a.json").symlink_to(replies / "kept.json")
    assert "route-a" in read_inputs(str(root / "week1" / "sheet.md"), replies=str(replies)).replies


def _serve_args(*argv):
    from deployments.serve import parse_args

    return parse_args(list(argv))


def test_a_served_deployments_root_is_the_base_never_a_folder_above_it(tmp_path, monkeypatch):
    """``serve --base .`` gets the base as its root (it was the folder holding base and corpus:
    a corpus named outside the base widened the root to their common parent, even ``/``)."""
    from deployments.serve import deployment_root

    (tmp_path / "repo" / "sheets").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")
    assert deployment_root(_serve_args("--base", ".")) == str(tmp_path / "repo")
    (tmp_path / "courses").mkdir()
    with pytest.raises(ValueError) as e:
        deployment_root(_serve_args("--base", ".", "--corpus", "../courses"))
    assert "is outside --base ." in str(e.value) and "--root" in str(e.value) and "\n" not in str(e.value)
    assert deployment_root(_serve_args("--base", ".", "--corpus", "../courses", "--root", "..")) == str(tmp_path)
    with pytest.raises(ValueError):  # a --root that does not hold --base: every run would fail
        deployment_root(_serve_args("--base", ".", "--root", "../courses"))


def test_serve_says_its_root_in_one_line_and_refuses_a_wider_one(tmp_path, monkeypatch, capsys):
    from deployments import serve

    (tmp_path / "repo" / "sheets").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    assert serve.main(["--base", str(tmp_path / "repo"), "--corpus", str(tmp_path / "elsewhere")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is outside --base" in err[0]
    served = []
    monkeypatch.setattr("commandline.server.connect", lambda: ("url", 0.0))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setattr("prefect.serve", lambda *deps: served.extend(deps))
    monkeypatch.setattr(serve, "deployments", lambda args: ["d"])
    assert serve.main(["--base", str(tmp_path / "repo")]) == 0 and served == ["d"]
    out = capsys.readouterr().out
    assert f"root       {tmp_path / 'repo'}: every path" in out


def test_the_work_pools_root_is_the_folder_deployed_from():
    """prefect.yaml's root was ``{{ $PWD }}/..``: the repository's parent, wider than asked."""
    from pathlib import Path

    yaml = (Path(__file__).resolve().parents[2] / "deployments" / "prefect.yaml").read_text(encoding="utf-8")
    roots = [line.split(":", 1)[1].strip() for line in yaml.splitlines() if line.strip().startswith("SHEET2LAMBDA_ROOT:")]
    assert roots == ['"{{ $PWD }}"']


@pytest.mark.parametrize("where", ["out outside", "decisions outside", "out through a link out"])
def test_review_on_a_command_line_with_a_root_stays_inside_it(root, tmp_path, monkeypatch, capsys, where):
    """attack16 C33: with SHEET2LAMBDA_ROOT set, review rebuilt and republished an OUT outside
    the root, read a --decisions file outside it, and followed a link in the root leading out."""
    from flows.review import main

    outside = tmp_path / "elsewhere"
    (outside / "out").mkdir(parents=True)
    (outside / "dec.json").write_text("[]")
    (root / "out").mkdir()
    (root / "dec.json").write_text("[]")
    (root / "lnk").symlink_to(outside / "out")
    out, dec = {"out outside": (outside / "out", root / "dec.json"),
                "decisions outside": (root / "out", outside / "dec.json"),
                "out through a link out": (root / "lnk", root / "dec.json")}[where]
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", str(root))
    assert main([str(out), "--decisions", str(dec)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is outside this deployment's root" in err[0], err
    assert sorted(p.name for p in (outside / "out").iterdir()) == []


@pytest.mark.parametrize("exists", [True, False])
def test_a_path_outside_the_root_says_so_whether_or_not_it_exists(root, tmp_path, monkeypatch, capsys, exists):
    """attack16 C12: a --baseline outside the root that did not exist said 'no such baseline' and
    one that did said 'outside the root': the answer told which files exist outside it."""
    from commandline.options import precheck

    outside = tmp_path / "elsewhere" / "baseline.json"
    if exists:
        outside.parent.mkdir()
        outside.write_text("{}")
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", str(root))
    lines = []
    for command, argv in (("sweep", [str(root), "--baseline", str(outside), "--out", str(tmp_path / "o")]),
                          ("document", [str(outside.with_suffix(".md")), "--out", str(root / "o")])):
        with pytest.raises(SystemExit):
            precheck(command, argv)
        lines.append(capsys.readouterr().err.strip())
    assert all(len(x.splitlines()) == 1 and "is outside this deployment's root" in x for x in lines), lines
    assert not any("no such" in x for x in lines)
