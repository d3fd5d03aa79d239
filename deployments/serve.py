"""Serve sheet2lambda's flows to the Prefect UI from this process (no work pool needed).

    python -m deployments.serve [--base DIR] [--corpus ROOT] [--sweep-out DIR] [--cron "0 3 * * *"]
                                [--sweep-offline] [--sweep-pool NAME] [--baseline FILE] [--paused]
                                [--root DIR] [--dask-address ADDR]

Three deployments, each run in a subprocess of this one when the UI (or the API) asks:

- ``document/served``: one sheet; the UI's form shows each parameter with its description
  (read from the flow's docstring);
- ``folder/served``: a folder of sheets, likewise;
- ``sweep/served``: the sweep of your courses, ``--corpus`` (default ``sheets/`` under
  ``--base``: a folder per course) into ``--sweep-out`` (default ``out/sweep``), on the
  ``--cron`` schedule, at most one run at a time (concurrency limit 1). Its root and out are
  the deployment's parameters and the cron its schedule, all changeable in the UI. Every run
  converts only the sheets new or changed since the last (the others are answered by the
  cache) and says how many were new, changed, unchanged and failed. Live calls as the
  environment allows (``--backend auto``; ``--sweep-offline`` for none), the folders spread
  over a work pool's workers with ``--sweep-pool``, and a gate with ``--baseline``. This is
  the one route that schedules the sweep: ``prefect.yaml``'s ``sweep/pool`` has no schedule.

A run's paths stay inside ``--root`` and its Dask scheduler is ``--dask-address`` (default none:
threads), both fixed here, never by a run's form (:mod:`commandline.confine`,
:mod:`commandline.dask_fixed`).

Each deployment is named ``served`` (this route) where ``prefect.yaml``'s are named ``pool``.

Every deployment's ``base`` parameter is ``--base`` (default: the folder this command was
started in): relative paths typed in the UI resolve against it, never against the
worker's own working folder. Needs a Prefect server: ``PREFECT_API_URL`` (or a server
``sheet2lambda server start`` left running, found as the command lines find it).
Prefect API: ``Flow.to_deployment`` and ``prefect.serve`` (docs.prefect.io, "Run flows in
local processes").
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_CRON = "0 3 * * *"
"""The corpus sweep's schedule by default: every day at 03:00 (UTC)."""

DEFAULT_CORPUS = "sheets"
"""The scheduled sweep's root by default, under ``--base``: a folder per course."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line of ``python -m deployments.serve``."""
    p = argparse.ArgumentParser(prog="python -m deployments.serve", description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default=".", help="the folder relative paths in run parameters resolve against "
                   "(default: this folder)")
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="the scheduled sweep's root: your courses, a folder "
                   f"each, relative to --base (default {DEFAULT_CORPUS})")
    p.add_argument("--sweep-out", default="out/sweep", help="the scheduled sweep's output folder, relative to --base "
                   "(default out/sweep; never inside --corpus)")
    p.add_argument("--cron", default=DEFAULT_CRON, help=f"the sweep's schedule, a cron expression in UTC "
                   f"(default '{DEFAULT_CRON}')")
    p.add_argument("--sweep-offline", action="store_true", help="the scheduled sweep makes no live call (default: "
                   "as the environment allows, --backend auto; the cache keeps unchanged sheets from calling)")
    p.add_argument("--sweep-pool", metavar="NAME", help="spread the scheduled sweep's folders over this work pool's "
                   "workers (prefect.yaml's folder/pool deployed on it)")
    p.add_argument("--baseline", default="", help="a gate for the scheduled sweep: a baseline recorded from your "
                   "corpus (sweep --record-baseline FILE), relative to --base; a sheet doing worse fails the run "
                   "(default: no gate)")
    p.add_argument("--paused", action="store_true", help="create the sweep's schedule paused")
    p.add_argument("--root", default=None, help="the folder every path of a deployed run must stay inside, fixed "
                   "in the deployments (default: --base itself, which must then hold --corpus)")
    p.add_argument("--dask-address", default=None, metavar="ADDR", help="the Dask scheduler the served folder and "
                   "sweep runs hand their sheets to, fixed here (SHEET2LAMBDA_DASK_ADDRESS): a run's dask_address may "
                   "name only this one (default: none, threads)")
    return p.parse_args(argv)


def check_cron(cron: str) -> str | None:
    """``None`` when ``cron`` is a schedule Prefect accepts, of five fields (or ``@daily`` and kin),
    that fires within a year, else one line naming ``--cron`` and what is wrong (Prefect's
    ``CronSchedule`` validates it; croniter, which Prefect schedules with, also takes a sixth field
    of seconds and ``0 0 31 2 *``, which never fires). Checked before
    any server is reached: a bad schedule never ends in Prefect's validation traceback."""
    from pydantic import ValidationError
    from prefect.client.schemas.schedules import CronSchedule

    try:
        CronSchedule(cron=cron)
    except (ValidationError, ValueError) as e:
        why = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
        return f"--cron {cron!r}: not a cron schedule ({why.removeprefix('Value error, ').splitlines()[0]})"
    if not cron.strip().startswith("@") and len(cron.split()) != 5:  # croniter also takes seconds (6 fields)
        return (f"--cron {cron!r}: not a cron schedule ({len(cron.split())} fields; a schedule has five: minute hour "
                "day month weekday)")
    from datetime import datetime, timezone

    from prefect._vendor.croniter import CroniterBadDateError, croniter

    try:  # the croniter Prefect schedules with: a day no month has (31 February) never comes
        croniter(cron, datetime.now(timezone.utc), max_years_between_matches=1).get_next(datetime)
    except (CroniterBadDateError, ValueError, KeyError):
        return f"--cron {cron!r}: never fires within a year (a day no such month has?): no schedule"
    return None


def deployment_root(args: argparse.Namespace) -> str:
    """The root every path of a served run stays inside: ``--root`` as named, else ``--base``
    itself (the corpus lies inside it; never a folder above the one named). Raises
    ``ValueError`` (one line) when the corpus, or ``--base``, lies outside that root: a root
    wider than asked is never chosen silently (name it with ``--root``), or when ``--sweep-out``
    lies inside ``--corpus`` (or is it): each sweep would read the last one's outputs as sheets."""
    base = Path(args.base).resolve()
    root = Path(args.root).resolve() if args.root else base
    corpus = (base / args.corpus).resolve()
    sweep_out = (base / args.sweep_out).resolve()
    if sweep_out.is_relative_to(corpus):
        raise ValueError(f"--sweep-out {args.sweep_out} ({sweep_out}) is inside --corpus {args.corpus} ({corpus}): "
                         "each sweep would read the last one's outputs as sheets; name an output folder outside it")
    if not base.is_relative_to(root):
        raise ValueError(f"--base {args.base} is outside --root {args.root}: every run's paths resolve against "
                         "--base, so name a --root holding it")
    if not corpus.is_relative_to(root):
        which = f"--root {args.root}" if args.root else f"--base {args.base}"
        raise ValueError(f"--corpus {args.corpus} ({corpus}) is outside {which}: a deployment's root is the folder you "
                         "name; give --root the folder holding both (it is the only one runs may read and write in)")
    return str(root)


def deployments(args: argparse.Namespace) -> list:
    """The three ``RunnerDeployment`` objects :func:`main` serves."""
    from prefect.deployments.runner import EntrypointType

    from commandline.confine import ROOT_VARIABLE
    from flows.document import document_flow
    from flows.folder import folder_flow
    from flows.sweep import sweep_flow

    base = str(Path(args.base).resolve())
    module = EntrypointType.MODULE_PATH  # found from any working folder: the project is installed
    root = deployment_root(args)
    os.environ[ROOT_VARIABLE] = root  # every run is a subprocess of this one: its root (commandline.confine)
    from commandline.dask_fixed import DASK_VARIABLE

    os.environ.pop(DASK_VARIABLE, None)  # its scheduler too (commandline.dask_fixed): only --dask-address
    if args.dask_address:
        os.environ[DASK_VARIABLE] = args.dask_address
    return [
        document_flow.to_deployment(
            name="served", parameters={"base": base}, entrypoint_type=module, tags=["sheet2lambda"],
            description=f"Convert one sheet into a set. Relative paths resolve against {base}; every path stays "
                        f"inside {root}."),
        folder_flow.to_deployment(
            name="served", parameters={"base": base}, entrypoint_type=module, tags=["sheet2lambda"],
            description=f"Convert every sheet of a folder with one filter. Relative paths resolve against {base}; "
                        f"every path stays inside {root}."),
        sweep_flow.to_deployment(
            name="served", cron=args.cron, paused=args.paused or None, concurrency_limit=1, entrypoint_type=module,
            parameters={"root": args.corpus, "out": args.sweep_out, "base": base,
                        **({"offline": True} if args.sweep_offline else {}),
                        **({"pool": args.sweep_pool} if args.sweep_pool else {}),
                        **({"baseline": args.baseline} if args.baseline else {})},
            tags=["sheet2lambda"],
            description=f"Sweep of {args.corpus} into {args.sweep_out} on '{args.cron}': only new or changed sheets are "
                        f"converted (the cache answers the others), and the summary counts them"
                        + (f"; the gate against {args.baseline}" if args.baseline else "")
                        + f". Relative paths against {base}."),
    ]


def main(argv: list[str] | None = None) -> int:
    """Serve the deployments until interrupted (Ctrl-C); 0 on a clean stop."""
    import commandline.runtime as runtime

    args = parse_args(argv)
    from tasks.dotenv_trust import dotenv_problem

    problem = dotenv_problem()  # the runs it serves read keys and settings from it
    if problem:
        print(problem, file=sys.stderr)
        return 1
    problem = check_cron(args.cron)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if not Path(args.base).is_dir():
        print(f"{args.base}: no such folder", file=sys.stderr)
        return 1
    corpus = Path(args.base) / args.corpus
    if not corpus.is_dir():
        print(f"sweep/served: {corpus}: no such folder yet; its scheduled runs fail until it holds your courses "
              "(--corpus DIR names another)", file=sys.stderr)
    try:
        root = deployment_root(args)
    except ValueError as e:
        print(str(e), file=sys.stderr)
        return 1
    from commandline.reach import api_problem
    from commandline.server import connect

    connect()
    problem = api_problem(os.environ["PREFECT_API_URL"]) if os.environ.get("PREFECT_API_URL") else None
    if problem:  # a server that is not Prefect's, or refuses us: one line, not Prefect's traceback
        print(problem, file=sys.stderr)
        return 1
    print(f"root       {root}: every path of a run from these deployments stays inside it (--root names another)")
    runtime.quiet_environment({"PREFECT_LOGGING_LEVEL": "INFO"})
    from prefect import serve
    from prefect.settings import PREFECT_API_AUTH_STRING, PREFECT_API_URL, temporary_settings
    from pydantic import ValidationError

    # check_cron imported Prefect, whose settings were read then, before connect() put the kept server's
    # address and credentials in the environment: deploy and serve under those, whatever settings
    # context is active (a bare refresh of the global one loses to an entered context)
    chosen = {s: os.environ[s.name] for s in (PREFECT_API_URL, PREFECT_API_AUTH_STRING) if os.environ.get(s.name)}
    with temporary_settings(updates=chosen):
        try:
            served = deployments(args)
        except ValidationError as e:  # an option Prefect's models refuse: one line naming it, not pydantic's report
            first = e.errors()[0]
            print(f"{'.'.join(map(str, first['loc'])) or 'a deployment option'}: {first['msg']}", file=sys.stderr)
            return 2
        serve(*served)
    return 0


if __name__ == "__main__":
    sys.exit(main())
