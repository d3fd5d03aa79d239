"""A work pool run starts only as its deployment was made (attack20 C43).

Prefect lets a flow run of a work pool's deployment override the pool's job variables (the UI's
Custom run → Job Variables, ``job_variables`` of the API): with Prefect's default template for a
``process`` pool that is the worker's ``command``, the flow's ``env`` (``PYTHONPATH`` to a
``sitecustomize.py``) and its ``working_dir``, so a run executed code of its own choosing before
any path was checked. The pool the README creates takes ``deployments/pool-template.json``: its
``variables`` schema (what the server lets a deployment or a run set; any other key is refused
with 422) allows only the deployment's root and Dask address in ``env``, and its
``job_configuration`` (what the worker starts the run with) takes no value from the variables at
all. As a second line, :func:`run_problem` fails, at the flow's start, a run whose job variables
differ from its deployment's, or whose pool still exposes a field that runs code or moves the run
(:func:`exposed`). Prefect: "Work pools" → base job template (``job_configuration``,
``variables``); ``prefect.workers.base.BaseJobConfiguration.from_template_and_values``.
"""

from __future__ import annotations

TEMPLATE = "deployments/pool-template.json"
"""The base job template of the pool the README creates (relative to the project)."""

RUNNING = ("command", "env", "working_dir")
"""Fields of a process worker's job configuration that run code or move the run."""


def exposed(template: dict | None) -> list[str]:
    """The fields of :data:`RUNNING` a run's job variables can set under the base job
    ``template`` (a work pool's ``base_job_template``): ``command`` and ``working_dir`` when their
    value in ``job_configuration`` holds a ``{{ placeholder }}``; ``env`` whenever
    ``job_configuration`` has it at all (a placeholder is replaced by the variables' ``env``, and a
    fixed mapping is merged with it: ``from_template_and_values``). Empty: none."""
    config = (template or {}).get("job_configuration") or {}
    found = []
    for field in RUNNING:
        if field not in config:
            continue
        if field == "env" or "{{" in str(config[field]):
            found.append(field)
    return found


def overridden(run: dict | None, deployment: dict | None) -> list[str]:
    """The keys of a run's job variables ``run`` whose value is not its deployment's (in
    ``deployment``); an ``env`` that only repeats some of the deployment's variables is not one."""
    own = deployment or {}
    found = []
    for key, value in (run or {}).items():
        mine = own.get(key)
        if key == "env" and isinstance(value, dict) and isinstance(mine, dict):
            if any(mine.get(name) != v or name not in mine for name, v in value.items()):
                found.append(key)
        elif key not in own or mine != value:
            found.append(key)
    return sorted(found)


def _flow_run_id() -> str | None:
    from prefect.runtime import flow_run

    return flow_run.id


def run_problem(client, dep) -> str | None:
    """One line when this flow run of the pool deployment ``dep`` (read through ``client``, a
    synchronous Prefect client) has job variables other than its deployment's, or runs on a pool
    whose template exposes :data:`RUNNING` (:func:`exposed`); else ``None``."""
    from uuid import UUID

    run_id = _flow_run_id()
    if run_id:
        run = client.read_flow_run(UUID(str(run_id)))
        if changed := overridden(getattr(run, "job_variables", None), dep.job_variables):
            return (f"this run's job variables override {', '.join(changed)[:200]}, which the deployment fixed: a "
                    "deployed run starts only as it was deployed (run it without job variables)")
    pool = client.read_work_pool(dep.work_pool_name)
    if found := exposed(getattr(pool, "base_job_template", None)):
        return (f"its work pool {dep.work_pool_name} lets a run's job variables set {', '.join(found)}, which runs "
                f"code outside the root: update the pool with `prefect work-pool update --base-job-template {TEMPLATE} "
                f"{dep.work_pool_name}`")
    return None
