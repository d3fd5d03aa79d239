"""What a person reads of a document run in the Prefect UI: its artifacts.

Called inside the document flow once its outputs are written. Four artifacts, keyed by
the set's name (Prefect keys: lowercase letters, digits and dashes) so that the UI's
Artifacts page keeps each set's history:

- ``<set>-summary`` (markdown): the lines the command line printed;
- ``<set>-flags`` (markdown): one entry per flag, its field, kind and whole reason, and both
  routes' texts (cut to :data:`CELL` characters; ``flags.json`` holds them whole). Markdown,
  not a table: the UI's table cuts a long cell to its column, and a reason is read whole;
- ``<set>-report`` (table): ``report.json``'s counts as ``measure, value`` rows, the paths
  (relative to the working folder) last;
- ``<set>-set`` (markdown): where the set's zip is, on the machine that ran the flow, and
  what to do with it (a ``file://`` link is one a browser will not open from the UI);
- ``<set>-review`` (markdown), when the run paused for a person's review: what it did
  (:func:`publish_review`).

Prefect's API: ``prefect.artifacts.create_markdown_artifact``, ``create_table_artifact``,
(docs.prefect.io, "Artifacts").
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from schemas.flags import ROUTE_TEXT_KINDS, Flag
from schemas.report import Report
from tasks.write.fence import fenced

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


FLAG_COLUMNS = {"field": "field", "kind": "kind", "reason": "reason", "a": "route A's text", "b": "route B's text"}
"""The flags' columns as a person reads them (``flags.json``'s names → words)."""


def flag_rows(flags: list[Flag]) -> list[dict[str, str]]:
    """One row per flag: field, kind, reason (whole), route A's and route B's texts (cut to
    :data:`CELL`), keyed by :data:`FLAG_COLUMNS`' words."""
    return [{FLAG_COLUMNS["field"]: f.field, FLAG_COLUMNS["kind"]: f.kind, FLAG_COLUMNS["reason"]: f.reason,
             FLAG_COLUMNS["a"]: _cut(f.a), FLAG_COLUMNS["b"]: _cut(f.b)} for f in flags]


def as_written(text: str) -> str:
    """``text`` for a markdown paragraph shown as written: every ASCII punctuation character
    backslash-escaped (CommonMark 0.31, "Backslash escapes"), so a reason quoting LaTeX
    (``'-\\dot{m}_{a d}=\\dot{m}_{a b}'``) keeps its backslashes and underscores instead of
    turning into italics in the UI."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def flags_markdown(set_name: str, flags: list[Flag]) -> str:
    """The ``<set>-flags`` artifact: a heading per flag (:func:`flag_sections`)."""
    if not flags:
        return f"# Flags of {as_written(set_name)}\n\nNo flags: nothing to read.\n"
    out = [f"# Flags of {as_written(set_name)}\n", f"{len(flags)} to read (`sheet2lambda review OUT` decides them).\n"]
    return "\n".join(out + flag_sections(flags))


def flag_sections(flags: list[Flag], level: int = 2) -> list[str]:
    """Markdown per flag: a heading of ``level`` (number, field, kind), its reason whole (as
    written: :func:`as_written`), then each route's text where it has one, fenced
    (:func:`tasks.write.fence.fenced`: a sheet's image or HTML shows as text, never loads)."""
    out = []
    for i, (flag, row) in enumerate(zip(flags, flag_rows(flags)), start=1):
        out.append(f"{'#' * level} {i}. {row['field']} — {row['kind']}\n\n{as_written(row['reason'])}\n")
        texts = ((FLAG_COLUMNS["a"], FLAG_COLUMNS["b"]) if flag.kind in ROUTE_TEXT_KINDS
                 else (FLAG_COLUMNS["a"],))
        for who in texts:
            if row[who]:  # as written (a code block: the UI's markdown would eat a backslash)
                what = who if flag.kind in ROUTE_TEXT_KINDS else "the passage"
                out.append(f"**{what}**\n\n{fenced(row[who])}\n")
    return out


def _flags(n: int) -> str:
    return f"{n} flag" if n == 1 else f"{n} flags"


def _relative(path: str | None) -> str | None:
    if not path:
        return path
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def report_rows(report: Report) -> list[dict[str, str]]:
    """``report.json``'s scalar counts as ``measure, value`` rows; the sheet's and the
    solutions' paths last, relative to the working folder where they lie inside it."""
    paths = {"source", "solutions"}
    data = report.model_dump(exclude={"route_a", "route_b", "areas", "warnings", "flags_by_kind", "comparison",
                                      "conversion", "metadata"})
    rows = [{"measure": k, "value": str(v)} for k, v in data.items() if k not in paths]
    rows += [{"measure": k, "value": v} for k, v in report.metadata.items()]
    rows += [{"measure": "conversion notes (no field: preamble, packages, layout, metadata)",
              "value": str(len(report.conversion))}]
    rows += [{"measure": f"flagged {k}", "value": str(v)} for k, v in report.flags_by_kind.items()]
    rows += [{"measure": "route A", "value": report.route_a.status}, {"measure": "route B", "value": report.route_b.status},
             {"measure": "answer boxes", "value": f"{report.areas.status}: {report.areas.proposed} proposed, "
                                                    f"{report.areas.refused} refused, {report.areas.written} written"}]
    rows += [{"measure": k, "value": str(_relative(data[k]))} for k in ("source", "solutions") if k in data]
    return rows


def publish_document(set_name: str, out: Path, report: Report | None, flags: list[Flag], lines: list[str]) -> list[str]:
    """Create the run's artifacts (see the module docstring); returns their keys. Call in
    a flow run. ``lines`` is the printed summary; ``report`` ``None`` (not built) publishes
    the summary alone."""
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    keys = [artifact_key(set_name, "summary")]
    said = fenced("\n".join(lines), "")  # the printed lines quote the sheet (the first few flags)
    create_markdown_artifact(key=keys[0], markdown=f"# {as_written(set_name)}\n\n{said}\n",
                             description=f"summary of the run of {set_name}")
    if report is None:
        return keys
    keys.append(artifact_key(set_name, "flags"))
    create_markdown_artifact(key=keys[-1], markdown=flags_markdown(set_name, flags),
                             description=f"{_flags(len(flags))} of {set_name}: field, kind, reason, both routes' texts")
    keys.append(artifact_key(set_name, "report"))
    create_table_artifact(key=keys[-1], table=report_rows(report), description=f"report of {set_name}")
    zip_path = (out / f"{set_name}.zip").resolve()
    if zip_path.is_file():
        import socket

        keys.append(artifact_key(set_name, "set"))
        create_markdown_artifact(
            key=keys[-1], description=f"the set {set_name} to import on Lambda Feedback",
            markdown=(f"# The set {set_name}\n\n`{zip_path}`\n\non `{socket.gethostname()}`, the machine that ran "
                      f"this flow. Import that zip on Lambda Feedback" + (f", once its {_flags(len(flags))} are read"
                                                                          if flags else "") + ".\n"))
    return keys


def publish_review(set_name: str, lines: list[str]) -> str:
    """Create the ``<set>-review`` markdown artifact: the lines saying what a person's review
    in the run did (decisions, flags resolved and open). Call in a flow run; returns its key."""
    from prefect.artifacts import create_markdown_artifact

    key = artifact_key(set_name, "review")
    said = fenced("\n".join(lines), "")
    create_markdown_artifact(key=key, markdown=f"# Review of {as_written(set_name)}\n\n{said}\n",
                             description=f"a person's review of the flags of {set_name}")
    return key
