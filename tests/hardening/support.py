"""Small inputs the hardening tests make themselves, and helpers to run the flow on them."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

SHEET_MD = """## Question 1

A cart of mass $m = 2$ kg rolls down a hill of height $h = 5$ m.

(a) Find its speed $v$ at the bottom.

(b) Find its kinetic energy $E$ at the bottom.
"""

SOLUTIONS_MD = """## Question 1

(a) $v = \\sqrt{2gh} = 9.9$ m/s.

(b) $E = mgh = 98$ J.
"""


def route_a_reply() -> str:
    """Route A's scripted reply for :data:`SHEET_MD` (every field a quote of it)."""
    return json.dumps({"questions": [{
        "title": "Question 1",
        "main_text": "A cart of mass $m = 2$ kg rolls down a hill of height $h = 5$ m.",
        "parts": [
            {"content": "Find its speed $v$ at the bottom.", "answer": "$v = \\sqrt{2gh} = 9.9$ m/s."},
            {"content": "Find its kinetic energy $E$ at the bottom.", "answer": "$E = mgh = 98$ J."},
        ],
    }]})


def as_another_users(path: Path, monkeypatch) -> None:
    """``path`` owned by another user: chown'd to uid 1001 when the tests run as root, else this
    process made to look like another user (``os.getuid`` one more) to the ownership checks."""
    import os

    if os.getuid() == 0:
        os.chown(path, 1001, 1001)
    else:
        real = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real + 1)


def write_sheet(folder: Path, stem: str = "cart", solutions: bool = True) -> Path:
    """Write the markdown sheet (and its solutions) into ``folder``; returns the sheet."""
    folder.mkdir(parents=True, exist_ok=True)
    sheet = folder / f"{stem}.md"
    sheet.write_text(SHEET_MD, encoding="utf-8")
    if solutions:
        (folder / f"{stem}_solutions.md").write_text(SOLUTIONS_MD, encoding="utf-8")
    return sheet


def tex(body: str, preamble: str = "") -> str:
    """A LaTeX sheet around ``body``."""
    return "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def tree_text(folder: Path) -> str:
    """Every file's text under ``folder`` (binary decoded with replacement), concatenated."""
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            try:
                out.append(p.read_bytes().decode("utf-8", "replace"))
            except OSError:
                continue
    return "\n".join(out)


def write_outputs_args(tmp: Path, version: str = "new") -> tuple:
    """The arguments after ``out`` of :func:`tasks.write.outputs.write_outputs` for a small
    built set ``cart`` (its zip and one question file) of :data:`SHEET_MD`; the report is
    built with ``model_construct`` (only its JSON is written)."""
    from schemas.build import BuildResult, BuiltSet
    from schemas.markdown import Markdown, SheetText
    from schemas.report import Report
    from schemas.routes import AdjudicationResult, RouteResult
    from schemas.status import StageStatus

    status = StageStatus.model_construct()
    sheet = SheetText(questions=Markdown(name="cart.md", role="questions", suffix=".md", digest="d", text=SHEET_MD))
    route = RouteResult.model_construct(route="A", status=status, raw="", filter_source="")
    adjudication = AdjudicationResult.model_construct(status=status, raw="")
    result = BuildResult.model_construct(zip_path="cart.zip", set_dir="cart", katex_warnings=[])
    built = BuiltSet.model_construct(result=result, files={"cart.zip": f"zip {version} ".encode() * 500,
                                                           "cart/set_cart.json": version.encode()})
    report = Report.model_construct(source="/courses/cart.md", set_name="cart")
    media = tmp / "no-media"
    return (str(media), sheet, route, route, adjudication, None, built, None, report, [])


_CLI_PROBE = """
import sys
from commandline.cli import main
try:
    code = main({argv!r})
except SystemExit as e:
    code = e.code
print("EXIT", code, *[w for m in {modules!r} for w in (m.upper(), m in sys.modules)])
"""


def cli_in_fresh_python(argv: list[str], cwd: Path, modules: tuple[str, ...] = ("prefect",)) -> tuple[list[str], str]:
    """Run ``sheet2lambda ARGV`` through ``commandline.cli.main`` in a new Python in ``cwd`` (no
    ``PREFECT_API_URL``, a temporary server if one is wanted) and return (its stderr lines, the last
    stdout line: ``EXIT <code> PREFECT <imported?>`` and one pair per further name in ``modules``).
    Raises subprocess.TimeoutExpired after 120 s."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update({"PYTHONPATH": str(ROOT), "SHEET2LAMBDA_SERVER": "temporary"})
    code = _CLI_PROBE.format(argv=argv, modules=list(modules))
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
    return proc.stderr.splitlines(), proc.stdout.strip().splitlines()[-1]


class LocalServer:
    """``handler`` (a ``BaseHTTPRequestHandler`` class) served at a free ``port`` of ``host`` (127.0.0.1
    unless given; ``0.0.0.0`` or ``::`` for every address, with ``server_class`` a
    ``ThreadingHTTPServer`` subclass for another address family) by a daemon thread, one thread per
    request: ``url`` is ``http://HOST:PORT`` + ``path``; :meth:`close` (or leaving the ``with``) stops
    it and frees the port."""

    def __init__(self, handler: type, path: str = "", host: str = "127.0.0.1",
                 server_class: type = http.server.ThreadingHTTPServer):
        self.httpd = server_class((host, 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{self.port}{path}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


README_POOL_TEMPLATE = {"job_configuration": {"stream_output": True}}
"""The part of the README's pool template (``deployments/pool-template.json``) a flow start reads."""


def answer_as_deployment(monkeypatch, deployment, run_job_variables=..., pool_template=None) -> None:
    """Make this process's flow run belong to ``deployment`` as Prefect's API would answer it (``None``:
    no deployment, a command line run): ``read_deployment`` gives ``deployment``, ``read_flow_run`` a run
    whose job variables are ``run_job_variables`` (``{}`` when not given; ``None`` stays
    ``None``) and ``read_work_pool`` a pool whose
    base job template is ``pool_template`` (the README's by default). ``deployment`` is any object with
    the attributes ``commandline/confine.py`` and ``commandline/pool_check.py`` read."""
    import prefect.client.orchestration as orchestration

    from commandline import confine, pool_check

    run = type("Run", (), {"job_variables": {} if run_job_variables is ... else run_job_variables})()
    pool = type("Pool", (), {"base_job_template": README_POOL_TEMPLATE if pool_template is None else pool_template})()

    class Client:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read_deployment(self, dep_id):
            return deployment

        def read_flow_run(self, run_id):
            return run

        def read_work_pool(self, name):
            return pool

    ident = "7d0c3e2a-0000-4000-8000-000000000001" if deployment is not None else None
    monkeypatch.setattr(confine, "_deployment_id", lambda: ident)
    monkeypatch.setattr(pool_check, "_flow_run_id", lambda: "7d0c3e2a-0000-4000-8000-000000000002")
    monkeypatch.setattr(orchestration, "get_client", lambda sync_client=True: Client())
