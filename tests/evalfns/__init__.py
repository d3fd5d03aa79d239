"""The platform's own evaluation functions, run on the boxes we write (issue 26).

Their code is not ours and is never committed: ``pins.tsv`` beside this file names each
function's repository, the commit the tests were run at and its licence. Their sources are
looked for in ``$SHEET2LAMBDA_EVALFN_SRC/<name>/`` (one folder per function, each the
repository's tree at its pin, with a ``.pin`` file holding the commit), as
``python -m tests.evalfns.fetch`` lays them out; the folder is absent on CI (it cannot reach
the functions' repositories), and the tests that need it skip, saying so (:func:`missing`).

Each function runs in an environment of its own (their pins conflict: sympy 1.14, 1.10.1),
made once with ``uv venv`` in ``$SHEET2LAMBDA_EVALFN_CACHE`` (default
``~/.cache/sheet2lambda/evalfns``) from the function's ``app/requirements.txt``, installed
from PyPI, with two substitutions: latex2sympy, which the requirements take from its
repository's branch, is installed from its pinned source beside the functions; arrayEqual's
``numpy==1.21.2`` (no wheel for Python 3.11) is ``numpy<2``. Each call goes through
``runner.py`` in a subprocess, as the platform calls the function: ``evaluation_function(
response, answer, params)``, ``params`` being the box's ``gradeParams`` plus its input symbols
as ``symbols`` (the platform's user documentation, ``docs/advanced/evaluation_functions/
specification.md``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINS = HERE / "pins.tsv"
FETCH = "`uv run python -m tests.evalfns.fetch --git CLONES OUT` and set SHEET2LAMBDA_EVALFN_SRC=OUT"
DEPENDENCY = "latex2sympy"
NUMPY_PIN = re.compile(r"^numpy==1\.21\.2\s*$")


@dataclass(frozen=True)
class Pin:
    """One row of ``pins.tsv``: ``name`` as the platform names the function
    (``evaluationFunctionName``), ``repository`` owner/name, ``commit``, ``licence``."""

    name: str
    repository: str
    commit: str
    licence: str


def pins() -> dict[str, Pin]:
    """The rows of ``pins.tsv`` by name (the functions and their one dependency)."""
    with PINS.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {r["name"]: Pin(r["name"], r["repository"], r["commit"], r["licence"]) for r in rows}


def source_root() -> Path | None:
    """``$SHEET2LAMBDA_EVALFN_SRC`` as a path, or ``None`` when unset."""
    value = os.environ.get("SHEET2LAMBDA_EVALFN_SRC", "").strip()
    return Path(value).expanduser() if value else None


def missing() -> str | None:
    """Why the functions cannot be run here (the skip reason), or ``None`` when every pinned
    source is in place: ``$SHEET2LAMBDA_EVALFN_SRC/<name>/.pin`` holding the pinned commit."""
    root = source_root()
    how = (f"the evaluation functions' source is not here: CI cannot reach their repositories and their code "
           f"may not be committed; run {FETCH} (tests/evalfns/README.md)")
    if root is None:
        return how
    for pin in pins().values():
        stamp = root / pin.name / ".pin"
        if not stamp.is_file() or stamp.read_text(encoding="utf-8").strip() != pin.commit:
            return f"{how} ({root / pin.name} is not {pin.repository} at {pin.commit[:12]})"
    if shutil.which("uv") is None:
        return "uv is not on PATH: the functions' environments cannot be made"
    return None


def cache_root() -> Path:
    """Where the functions' environments are made (``$SHEET2LAMBDA_EVALFN_CACHE``)."""
    value = os.environ.get("SHEET2LAMBDA_EVALFN_CACHE", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".cache" / "sheet2lambda" / "evalfns"


def requirements(name: str) -> list[str]:
    """The function's ``app/requirements.txt`` lines as installed here (see the module doc)."""
    root = source_root()
    assert root is not None
    out = []
    for line in (root / name / "app" / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("git+") and DEPENDENCY in line:
            line = str(root / DEPENDENCY)
        elif NUMPY_PIN.match(line):
            line = "numpy<2"
        out.append(line)
    return out


def environment(name: str) -> Path:
    """The Python of the function's own environment, made on first use (``uv venv`` and
    ``uv pip install`` of :func:`requirements`; a few minutes the first time, then kept).
    Raises ``RuntimeError`` with uv's last lines when it cannot be made."""
    reqs = requirements(name)
    key = hashlib.sha256("\n".join([pins()[name].commit, sys.version, *reqs]).encode()).hexdigest()[:12]
    venv = cache_root() / f"{name}-{key}"
    python = venv / "bin" / "python"
    if (venv / ".ready").is_file():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    listed = venv.parent / f"{name}-{key}.txt"
    listed.write_text("\n".join(reqs) + "\n", encoding="utf-8")
    env = {**os.environ, "VIRTUAL_ENV": str(venv)}
    for cmd in (["uv", "venv", "-q", "-p", sys.executable, str(venv)],
                ["uv", "pip", "install", "-q", "-r", str(listed)]):
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        if done.returncode:
            raise RuntimeError(f"{name}: {' '.join(cmd[:3])} failed: {done.stderr.strip()[-600:]}")
    (venv / ".ready").write_text(key, encoding="utf-8")
    return python


def evaluate(name: str, calls: list[dict]) -> list[dict]:
    """Each call ``{"response", "answer", "params"}`` as function ``name`` marks it, in one
    subprocess of its environment: ``{"is_correct": bool}`` or ``{"error": "…"}``."""
    root = source_root()
    assert root is not None
    done = subprocess.run([str(environment(name)), str(HERE / "runner.py"), str(root / name)],
                          input=json.dumps(calls), capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise RuntimeError(f"{name}: the runner failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout)


def area_params(area: dict) -> dict:
    """What the platform passes a response area's evaluation function as ``params``: its
    ``gradeParams`` and its ``inputSymbols`` as ``symbols`` (``{code: {"latex", "aliases"}}``,
    the display symbol's delimiters removed)."""
    params = dict(area.get("gradeParams") or {})
    params["symbols"] = {
        s["code"]: {"latex": re.sub(r"^(?:\$|\\\()|(?:\$|\\\))$", "", s.get("symbol", "")),
                    "aliases": s.get("aliases", [])}
        for s in area.get("inputSymbols") or []
    }
    return params
