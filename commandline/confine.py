"""Paths of a deployment run stay inside the root fixed when the deployment was made.

A run from the UI or the API takes its paths from a form anyone who can reach the server may
fill in (``source``, ``out``, ``replies``, ``base``...). Each deployment therefore carries a root
of its own, set when it is deployed and not a parameter: for a work pool's deployment,
``SHEET2LAMBDA_ROOT`` in its job variables (``env``), read back from the deployment itself
through the API, so that neither the run's parameters nor its job-variable overrides can move
it; for a served one (``python -m deployments.serve``, whose runs are its subprocesses and take
no job variables), ``SHEET2LAMBDA_ROOT`` of the serving process, set by ``--root``; a deployment
with neither is confined to its default ``base``. Every path a run names, after it is joined
to ``base``, must resolve (every symbolic link followed) inside that root, or the run fails
with one line. ``SHEET2LAMBDA_ROOT`` in the process environment confines any run, a command
line's included. Prefect API: ``prefect.runtime.deployment``, ``read_deployment``.
"""

from __future__ import annotations

import os
from pathlib import Path

from tasks.errors import InputError

ROOT_VARIABLE = "SHEET2LAMBDA_ROOT"


def _deployment_id() -> str | None:
    """The id of the deployment this flow run belongs to, or ``None`` (a command line's run)."""
    from prefect.runtime import deployment

    return deployment.id


def deployment_id() -> str | None:
    """The id of the deployment this flow run belongs to, or ``None`` (a command line's run)."""
    return _deployment_id()


def deployment_roots() -> list[Path]:
    """The roots this run is confined to: the deployment's own (its job variables'
    ``SHEET2LAMBDA_ROOT``, else its default ``base``) when this is a deployment's run, and
    ``SHEET2LAMBDA_ROOT`` of the environment when set. ``[]``: not confined. Raises
    :class:`InputError` for a deployment run whose deployment names no root at all."""
    from commandline.path_names import root_problem

    roots: list[Path] = []
    if (problem := root_problem(os.environ.get(ROOT_VARIABLE))) is not None:  # refused, never unconfined
        raise InputError(ROOT_VARIABLE, problem)
    if os.environ.get(ROOT_VARIABLE):
        roots.append(Path(os.environ[ROOT_VARIABLE]))
    dep_id = _deployment_id()
    if dep_id:
        from uuid import UUID

        from prefect.client.orchestration import get_client

        from commandline.pool_check import run_problem

        with get_client(sync_client=True) as client:
            dep = client.read_deployment(UUID(str(dep_id)))
            served = not getattr(dep, "work_pool_name", None)  # a served run takes no job variables
            if not served and (problem := run_problem(client, dep)) is not None:  # attack20 C43
                raise InputError(f"deployment {dep.name}", problem)
        env = (dep.job_variables or {}).get("env") or {}
        if (problem := root_problem(env.get(ROOT_VARIABLE))) is not None:
            raise InputError(f"deployment {dep.name}", f"{ROOT_VARIABLE} of its job variables {problem}")
        fixed = env.get(ROOT_VARIABLE) or (None if served and roots else (dep.parameters or {}).get("base"))
        if not fixed and roots:  # a served deployment: its root is the serving process's environment
            return roots
        if not fixed:
            raise InputError(f"deployment {dep.name}", f"has no root: deploy it with {ROOT_VARIABLE} in its job "
                                                        "variables' env (or a default base)")
        roots.append(Path(fixed))
    return roots


def confine(paths: dict[str, str | None], base: str | None, roots: list[Path] | None = None) -> list[str]:
    """Refuse a run any of whose ``paths`` (parameter name -> path, already joined to
    ``base``, so a ``base`` moved out shows in them; ``None`` skipped) resolves outside a root of :func:`deployment_roots` (or
    ``roots``): :class:`InputError` naming the parameter and the root. Links are followed.
    Returns the roots (``[]``: not confined), which the run's writes check again as they are
    made (:func:`tasks.write.publish.pinned`: a folder checked here may be a link by then)."""
    if roots is None:
        roots = deployment_roots()
        if roots and _deployment_id():  # a deployment's run says, once, what root it got
            from commandline.logs import say

            say(f"root       {', '.join(str(r) for r in roots)}: every path of this run stays inside it "
                "(fixed when the deployment was made)")
    if not roots:
        return []
    named = dict(paths)  # each already joined to base: a base moved out shows in the paths it resolves
    for root in roots:
        real_root = root.resolve()
        for name, path in named.items():
            if path is None:
                continue
            real = Path(path).resolve()
            if real != real_root and real_root not in real.parents:
                raise InputError(str(path), f"{name} is outside this deployment's root {root} "
                                            "(every path of a deployed run stays inside it)")
            if name.lower().lstrip("-") == "out" and (why := written_problem(real, real_root)) is not None:
                raise InputError(str(path), f"{name} {why}")
    return [str(r) for r in roots]


PROJECT = Path(__file__).resolve().parents[1]
"""sheet2lambda's own folder (its source, filters, tests, ``.venv``)."""

OWN_FOLDERS = ("baselines", "commandline", "deployments", "examples", "filters", "flows", "schemas", "tasks", "tests")
"""The project's own folders under :data:`PROJECT`: a run's outputs never go into them."""


def written_problem(real: Path, root: Path) -> str | None:
    """Why a confined run may not write its outputs at ``real`` (a resolved path inside the
    resolved ``root``), or ``None``: inside a hidden folder below the root (``.venv/``,
    ``.git/``, a ``.config/``), or the project itself or inside one of its own folders
    (:data:`OWN_FOLDERS`) when the root holds it: a deployment rooted at the repository
    otherwise let the UI's ``out`` overwrite the product's source or its environment (attack19)."""
    below = real.relative_to(root).parts if real != root else ()
    if any(part.startswith(".") for part in below):
        return "is inside a hidden folder: a deployed run never writes there"
    project = PROJECT.resolve()
    if real == project or any(real == project / f or (project / f) in real.parents for f in OWN_FOLDERS):
        return f"is sheet2lambda's own folder ({project}): a deployed run never writes into its source"
    return None
