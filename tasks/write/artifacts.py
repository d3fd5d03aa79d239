"""What a person reads of a document run in the Prefect UI: its artifacts.

Called inside the document flow once its outputs are written. Four artifacts, keyed by
the set's name (Prefect keys: lowercase letters, digits and dashes) so that the UI's
Artifacts page keeps each set's history:

- ``<set>-summary`` (markdown): the lines the command line printed;
- ``<set>-flags`` (table): one row per flag, ``field, kind, reason, a, b`` (both routes'
  texts, cut to :data:`CELL` characters; ``flags.json`` holds them whole);
- ``<set>-report`` (table): ``report.json``'s counts as ``measure, value`` rows;
- ``<set>-set`` (link): the set's zip, as a ``file://`` link (it is on the machine that
  ran the flow);
- ``<set>-review`` (markdown), when the run paused for a person's review: what it did
  (:func:`publish_review`).

Prefect's API: ``prefect.artifacts.create_markdown_artifact``, ``create_table_artifact``,
``create_link_artifact`` (docs.prefect.io, "Artifacts").
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from schemas.flags import Flag
from schemas.report import Report

CELL = 400
"""Characters of a route's text shown in one cell of the flags table."""


def artifact_key(name: str, what: str) -> str:
    """A Prefect artifact key for set ``name``: lowercase letters, digits and dashes (Prefect
    accepts no other). A name with other characters (``問題 2``, ``Übung``) gets the first 8
    hex digits of its sha256 too, so two such sets never share a key."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not slug or not name.isascii():
        slug = "-".join(p for p in (slug or "set", hashlib.sha256(name.encode()).hexdigest()[:8]) if p)
    return f"{slug}-{what}"


def _cut(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def flag_rows(flags: list[Flag]) -> list[dict[str, str]]:
    """The flags table: ``field, kind, reason, a, b`` per flag (texts cut to :data:`CELL`)."""
    return [{"field": f.field, "kind": f.kind, "reason": f.reason, "a": _cut(f.a), "b": _cut(f.b)} for f in flags]


def report_rows(report: Report) -> list[dict[str, str]]:
    """``report.json``'s scalar counts as ``measure, value`` rows."""
    data = report.model_dump(exclude={"route_a", "route_b", "areas", "warnings", "flags_by_kind", "comparison",
                                      "conversion", "metadata"})
    rows = [{"measure": k, "value": str(v)} for k, v in data.items()]
    rows += [{"measure": k, "value": v} for k, v in report.metadata.items()]
    rows += [{"measure": "conversion notes (no field: preamble, packages, layout, metadata)",
              "value": str(len(report.conversion))}]
    rows += [{"measure": f"flagged {k}", "value": str(v)} for k, v in report.flags_by_kind.items()]
    rows += [{"measure": "route A", "value": report.route_a.status}, {"measure": "route B", "value": report.route_b.status},
             {"measure": "answer boxes", "value": f"{report.areas.status}: {report.areas.proposed} proposed, "
                                                    f"{report.areas.refused} refused, {report.areas.written} written"}]
    return rows


def publish_document(set_name: str, out: Path, report: Report | None, flags: list[Flag], lines: list[str]) -> list[str]:
    """Create the run's artifacts (see the module docstring); returns their keys. Call in
    a flow run. ``lines`` is the printed summary; ``report`` ``None`` (not built) publishes
    the summary alone."""
    from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

    keys = [artifact_key(set_name, "summary")]
    create_markdown_artifact(key=keys[0], markdown=f"# {set_name}\n\n```\n" + "\n".join(lines) + "\n```\n",
                             description=f"summary of the run of {set_name}")
    if report is None:
        return keys
    keys.append(artifact_key(set_name, "flags"))
    rows = flag_rows(flags) or [{"field": "", "kind": "", "reason": "no flags: nothing to read", "a": "", "b": ""}]
    create_table_artifact(key=keys[-1], table=rows, description=f"{len(flags)} flags of {set_name}: field, kind, "
                                                                  "reason, route A's and route B's texts")
    keys.append(artifact_key(set_name, "report"))
    create_table_artifact(key=keys[-1], table=report_rows(report), description=f"report of {set_name}")
    zip_path = (out / f"{set_name}.zip").resolve()
    if zip_path.is_file():
        keys.append(artifact_key(set_name, "set"))
        create_link_artifact(key=keys[-1], link=zip_path.as_uri(), link_text=f"{set_name}.zip",
                             description=f"the set {set_name} to import on Lambda Feedback")
    return keys


def publish_review(set_name: str, lines: list[str]) -> str:
    """Create the ``<set>-review`` markdown artifact: the lines saying what a person's review
    in the run did (decisions, flags resolved and open). Call in a flow run; returns its key."""
    from prefect.artifacts import create_markdown_artifact

    key = artifact_key(set_name, "review")
    create_markdown_artifact(key=key, markdown=f"# Review of {set_name}\n\n```\n" + "\n".join(lines) + "\n```\n",
                             description=f"a person's review of the flags of {set_name}")
    return key
