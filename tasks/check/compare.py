"""Stage 10: read a platform export and compare a build with it, field by field."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from schemas.export import Comparison, Difference, ExportedSet
from schemas.sheet import PART_FIELDS, Part, Question, SheetSet, field_key
from schemas.build import BuiltSet
from tasks.write.build import IMAGE_LINK
from tasks.cache import stage
from tasks.errors import InputError
from tasks.settle.fold import fold_quotes
from tasks.convert.bounds import MAX_MEMBER_BYTES, check_zip, json_loads, oversized_set, read_member

_SET_FILE = re.compile(r"^set_.*\.json$")
_QUESTION_FILE = re.compile(r"^question_.*\.json$")
IMAGE_PLACEHOLDER = "![](image)"
"""What every image link becomes before two fields are compared."""


def as_text(value: Any) -> str:
    """An export's JSON value if it is a string, else ``""`` (a missing or malformed field reads empty)."""
    return value if isinstance(value, str) else ""


def as_object(value: Any) -> dict:
    """An export's JSON value if it is an object, else ``{}`` (a missing or malformed object reads empty)."""
    return value if isinstance(value, dict) else {}


def as_array(value: Any) -> list:
    """An export's JSON value if it is an array, else ``[]`` (a missing or malformed list reads empty)."""
    return value if isinstance(value, list) else []


def _order(item: dict, fallback: int) -> tuple[int, int]:
    n = item.get("orderNumber")
    return (n if isinstance(n, int) else fallback, fallback)


def ordered(items: Any) -> list[dict]:
    """The objects of an export's list (questions, parts, answer boxes) in ``orderNumber``
    order, ties and missing numbers in list order; anything but a list of objects reads
    as empty."""
    objects = [x for x in as_array(items) if isinstance(x, dict)]
    return [x for _, x in sorted(((_order(x, i), x) for i, x in enumerate(objects)), key=lambda t: t[0])]


def load_json(members: dict[str, bytes], name: str, where: str) -> dict:
    """File ``name`` of a set's files as a JSON object; ``InputError(where, …)`` when it
    is not UTF-8, not JSON (or holds an integer of more than 4,300 digits), or not an object."""
    try:
        data = json_loads(members[name].decode("utf-8"))
    except ValueError as e:
        raise InputError(where, f"{name} is not JSON that can be read ({str(e).split(';')[0]})") from None
    if not isinstance(data, dict):
        raise InputError(where, f"{name} is not a JSON object")
    return data


def question_files(members: dict[str, bytes], where: str) -> list[dict]:
    """The ``question_*.json`` objects of a set's files, in ``orderNumber`` order."""
    return ordered([load_json(members, n, where) for n in sorted(members) if _QUESTION_FILE.match(n)])


def _branch_text(branch: dict) -> Iterator[str]:
    for child in as_array(branch.get("children")):
        if isinstance(child, dict):
            if as_text(child.get("content")):
                yield child["content"]
            yield from _branch_text(child)


def _part(raw: dict) -> Part:
    solution = as_object(raw.get("workedSolution"))
    worked = "\n\n".join([t for t in [as_text(solution.get("content")), *_branch_text(solution)] if t])
    options: list[str] = []
    for area in ordered(raw.get("responseAreas")):
        response = as_object(as_object(area.get("response")).get("responseInput"))
        if response.get("responseType") == "MULTIPLE_CHOICE":
            options += [o if isinstance(o, str) else str(o) for o in as_array(as_object(response.get("config")).get("options"))]
    return Part(
        content=as_text(raw.get("content")),
        options=options,
        answer=as_text(raw.get("answerContent")),
        worked_solution=worked,
    )


def _question(raw: dict) -> Question:
    parts = ordered(raw.get("parts"))
    return Question(title=as_text(raw.get("title")), main_text=as_text(raw.get("masterContent")), parts=[_part(p) for p in parts])


def read_export_files(path: Path) -> dict[str, bytes]:
    """The JSON files of a set: ``{file name: bytes}``, from a folder or a zip (as
    :func:`read_export` describes); a folder holding no ``set_*.json`` but exactly one
    ``set_*`` folder is read as that folder (the platform's export unpacked). Raises ``InputError`` for a missing path or a zip
    that is corrupt or holds no (or more than one) set."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file or folder")
    if path.is_dir():
        inner = [d for d in sorted(path.iterdir()) if d.is_dir() and d.name.startswith("set_")]
        if not any(_SET_FILE.match(p.name) for p in path.iterdir()) and len(inner) == 1:
            path = inner[0]  # a folder holding the one set the platform exported (export/set_Name/)
        files = [p for p in sorted(path.iterdir()) if p.is_file() and p.suffix == ".json"]
        from tasks.convert.tree import leaves

        out = next((p for p in files if leaves(p, path)), None)
        if out is not None:  # a set's own files only: a link to a file elsewhere is never read
            raise InputError(str(out), "a link leaving the exported set's folder: not read")
        big = next((p for p in files if p.stat().st_size > MAX_MEMBER_BYTES), None)
        if big is not None:
            raise InputError(str(big), f"too large for an exported set's file ({big.stat().st_size >> 20} MiB)")
        from tasks.convert.opener import FileRefused, read_file

        try:  # the set's members are found by listing it: the one opener's rule for found files
            return {p.name: read_file(p, path) for p in files}
        except FileRefused as e:
            raise InputError(e.path, f"not read: {e.why}") from None
    try:
        with zipfile.ZipFile(path) as zf:
            check_zip(zf, str(path))
            names = [n for n in zf.namelist() if n.endswith(".json") and not n.endswith("/")]
            # The set may sit at the zip's root (in2lambda) or in one folder inside it.
            folders = {str(PurePosixPath(n).parent) for n in names if _SET_FILE.match(PurePosixPath(n).name)}
            if len(folders) != 1:
                raise InputError(str(path), "no set_*.json in the zip" if not folders else "more than one set in the zip")
            folder = folders.pop()
            return {
                PurePosixPath(n).name: read_member(zf, n, str(path)) for n in names if str(PurePosixPath(n).parent) == folder
            }
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, KeyError) as e:
        raise InputError(str(path), f"not a readable zip ({e})") from None


def read_export(path: Path) -> ExportedSet:
    """Read an exported set: a ``set_*`` folder (any folder holding one ``set_*.json``)
    or its zip (the files at the zip's root or in one folder inside it).

    The set's name is ``name`` in ``set_<name>.json``; the questions are the
    ``question_*.json`` files ordered by ``orderNumber``: ``title``, ``masterContent`` →
    ``main_text``, parts ordered by ``orderNumber`` with ``content``, ``answerContent`` →
    ``answer``, ``workedSolution.content`` → ``worked_solution`` (the contents of its
    ``children`` branches, depth first, appended after blank lines; branch titles are
    not included), and ``options`` from the part's ``MULTIPLE_CHOICE`` answer boxes
    (``response.responseInput.config.options``, boxes in ``orderNumber`` order). A text
    that is missing, null or not a string reads as ``""``; ``parts`` or
    ``responseAreas`` that are not lists of objects read as empty.

    Raises ``InputError(path, problem)`` for a missing path, a folder or zip with no
    (or more than one) ``set_*.json``, a corrupt zip, and a file that is not JSON or not
    an object.
    """
    return export_of(read_export_files(Path(path)), str(path))


def export_of(members: dict[str, bytes], where: str) -> ExportedSet:
    """:func:`read_export` of a set's files as :func:`read_export_files` returns them;
    ``where`` names the set in an ``InputError``, raised too for a set past the bounds of
    :func:`tasks.convert.bounds.oversized_set` (more questions or parts than a set can have)."""
    set_files = [n for n in members if _SET_FILE.match(n)]
    if len(set_files) != 1:
        raise InputError(where, "no set_*.json in the folder" if not set_files else "more than one set_*.json")
    meta = load_json(members, set_files[0], where)
    name = meta.get("name")
    if not isinstance(name, str):
        name = set_files[0][len("set_") : -len(".json")]
    raws = question_files(members, where)
    if (why := oversized_set(raws)) is not None:  # counted before read (attack16 C27: 200,000 parts, 326 s)
        raise InputError(where, f"an exported set past the bounds: {why}")
    return ExportedSet(name=name, questions=SheetSet([_question(q) for q in raws]))


def _placeholders(text: str | None) -> str | None:
    return None if text is None else IMAGE_LINK.sub(IMAGE_PLACEHOLDER, text)


def _question_fields(q: Question, qi: int) -> Iterator[tuple[str, str]]:
    yield field_key(qi, "title"), q.title
    yield field_key(qi, "main_text"), q.main_text


def _part_fields(p: Part, qi: int, pi: int) -> Iterator[tuple[str, str]]:
    yield field_key(qi, "content", pi), p.content
    for oi, option in enumerate(p.options):
        yield field_key(qi, "options", pi, oi), option
    yield field_key(qi, "answer", pi), p.answer
    yield field_key(qi, "worked_solution", pi), p.worked_solution


def _pairs(built: SheetSet, export: SheetSet) -> Iterator[tuple[str, str | None, str | None]]:
    """Every compared field as ``(key, built text, export text)``, ``None`` where missing."""
    for qi in range(max(len(built), len(export))):
        bq = built[qi] if qi < len(built) else None
        eq = export[qi] if qi < len(export) else None
        if bq is None or eq is None:
            present = bq or eq
            assert present is not None
            side = list(_question_fields(present, qi))
            for pi, p in enumerate(present.normalised_parts()):
                side += list(_part_fields(p, qi, pi))
            for key, text in side:
                yield (key, text, None) if bq is not None else (key, None, text)
            continue
        yield field_key(qi, "title"), bq.title, eq.title
        yield field_key(qi, "main_text"), bq.main_text, eq.main_text
        bparts, eparts = bq.normalised_parts(), eq.normalised_parts()
        for pi in range(max(len(bparts), len(eparts))):
            bp = bparts[pi] if pi < len(bparts) else None
            ep = eparts[pi] if pi < len(eparts) else None
            if bp is None or ep is None:
                for key, text in _part_fields(bp or ep, qi, pi):  # type: ignore[arg-type]
                    yield (key, text, None) if bp is not None else (key, None, text)
                continue
            yield field_key(qi, "content", pi), bp.content, ep.content
            for oi in range(max(len(bp.options), len(ep.options))):
                yield (
                    field_key(qi, "options", pi, oi),
                    bp.options[oi] if oi < len(bp.options) else None,
                    ep.options[oi] if oi < len(ep.options) else None,
                )
            for name in PART_FIELDS[1:]:
                yield field_key(qi, name, pi), getattr(bp, name), getattr(ep, name)


def compare(built: SheetSet, export: ExportedSet) -> Comparison:
    """Compare a built set with an export, question by question and part by part.

    Fields compared: title, main text, and per part the content, each option
    (``q5.p3.options[2]``), the final answer and the worked solution; a question with no
    parts and one with a single empty part are the same (``Question.normalised_parts``).
    Before comparing, every image link on both sides is replaced by the placeholder
    :data:`IMAGE_PLACEHOLDER`: a build names its media files differently from the
    author's, so two image links are equal when both sides have an image at that place
    (file names are not compared). A field is then ``equal`` (same text), a ``notation``
    difference (equal after :func:`tasks.settle.fold.fold_quotes`: the tier-1 folds plus curly
    vs straight quotes and dashes) or a ``content`` difference (both texts kept, images
    as in the originals). A question, part or option missing on one side gives a content
    difference for each of its fields, with ``None`` on the missing side. Empty titles
    are compared as they are: compare the set as written (``BuildResult.written``, or
    ``tasks.write.in2lambda.default_titles``) to match in2lambda's ``Question N``.

    Returns a :class:`Comparison` with the counts (``fields_compared`` = ``equal`` +
    ``notation`` + ``content``) and the differences in field order; never raises.
    """
    result = Comparison(export_name=export.name)
    for key, b, e in _pairs(built, export.questions):
        result.fields_compared += 1
        pb, pe = _placeholders(b), _placeholders(e)
        if pb is not None and pe is not None and pb == pe:
            result.equal += 1
            continue
        if pb is not None and pe is not None and fold_quotes(pb) == fold_quotes(pe):
            result.notation += 1
            result.differences.append(Difference(field=key, kind="notation", built=b, export=e))
            continue
        result.content += 1
        result.differences.append(Difference(field=key, kind="content", built=b, export=e))
    return result


@stage("compare")
def compare_task(built: BuiltSet, export: ExportedSet) -> Comparison:
    """:func:`compare` of the set as written (``built.result.written``) as a cached task."""
    return compare(built.result.written, export)
