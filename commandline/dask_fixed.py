"""A deployment run's Dask scheduler is the one fixed when the deployment was made.

``dask_address`` is a parameter of the folder and sweep flows, so a run from the UI's form (or
the API) could name any ``host:port`` as its scheduler: the run would send it the sheets, take
its replies as results (a hostile one answered a reply that was a ``MemoryError``) and let it
run code. A deployment's scheduler is therefore fixed like its root
(:mod:`commandline.confine`): ``SHEET2LAMBDA_DASK_ADDRESS`` in a work pool deployment's job
variables (``env``), read back from the deployment through the API, so a run's own job-variable
override cannot change it; for a served deployment (``python -m deployments.serve
--dask-address ADDR``, whose runs are its subprocesses and take no job variables), that variable
of the serving process. A deployment run whose form names another address (or any, when none is
fixed) is refused with one line before anything connects; with the form empty it uses the fixed
one. A command line's run (``--dask-address``, no deployment) is not a form: its address is the
user's. Prefect API: ``prefect.runtime.deployment``, ``read_deployment``.
"""

from __future__ import annotations

import os

from tasks.errors import InputError

DASK_VARIABLE = "SHEET2LAMBDA_DASK_ADDRESS"


def _fixed(dep_id: str) -> tuple[str, str | None]:
    """(the deployment's name, the Dask address fixed in it or ``None``)."""
    from uuid import UUID

    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        dep = client.read_deployment(UUID(str(dep_id)))
    if getattr(dep, "work_pool_name", None):  # a pool's run: the deployment's own env, never the run's override
        env = (dep.job_variables or {}).get("env") or {}
        return dep.name, env.get(DASK_VARIABLE) or None
    return dep.name, os.environ.get(DASK_VARIABLE) or None  # served: the serving process's


def run_dask_address(asked: str | None) -> str | None:
    """The Dask scheduler address this run may use: ``asked`` for a command line's run; for a
    deployment's run, the address fixed in the deployment (``asked`` empty, or equal to it).
    ``None``: threads. Raises :class:`InputError` (one line naming the deployment) when a
    deployment run asks for an address other than its fixed one."""
    from commandline.confine import deployment_id

    dep_id = deployment_id()
    if not dep_id:
        return asked or None
    name, fixed = _fixed(dep_id)
    if not asked or asked == fixed:
        return fixed
    why = f"its fixed one is {fixed}" if fixed else "none was fixed"
    raise InputError(f"deployment {name}", f"dask_address {asked[:200]!r} refused: a deployed run uses only the Dask "
                                           f"scheduler fixed when it was deployed ({DASK_VARIABLE}; {why})")
