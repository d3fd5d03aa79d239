"""The answer boxes of an exported set, and their tolerances."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemas.areas import Box
from tasks.boxes.propose import part_field
from tasks.check.compare import as_object, ordered, question_files, read_export_files

# --- the export's boxes -----------------------------------------------------------------


def read_export_areas(path: Path) -> tuple[dict[str, list[Box]], dict[str, list[float | None]]]:
    """The answer boxes of an exported set (a ``set_*`` folder or its zip, as
    :func:`tasks.check.compare.read_export` reads it) and their tolerances.

    Returns ``(boxes, rtol)``, both keyed by part (``q2.p1``; questions and parts in
    ``orderNumber`` order, boxes in ``orderNumber`` order): per box ``kind`` =
    ``response.responseInput.responseType``, ``answer`` = its ``answer`` (a list for
    multiple choice, else a text), ``label`` = ``preResponseText``; and per box
    ``gradeParams.rtol`` (``None`` when absent). A box of a kind other than the three is
    kept as read (built without validation) so that it counts in a score. Parts with no
    box are left out.

    Raises ``InputError`` as :func:`tasks.check.compare.read_export` does.
    """
    path = Path(path)
    return areas_of_members(read_export_files(path), str(path))


def areas_of_members(
    members: dict[str, bytes], where: str
) -> tuple[dict[str, list[Box]], dict[str, list[float | None]]]:
    """:func:`read_export_areas` of a set's JSON files (``{file name: bytes}``, as in a
    ``set_*`` folder); ``where`` names the set in an ``InputError``."""
    boxes: dict[str, list[Box]] = {}
    tolerances: dict[str, list[float | None]] = {}
    for qi, q in enumerate(question_files(members, where)):
        for pi, p in enumerate(ordered(q.get("parts"))):
            part_boxes: list[Box] = []
            part_rtol: list[float | None] = []
            for a in ordered(p.get("responseAreas")):
                response = as_object(as_object(a.get("response")).get("responseInput"))
                kind = response.get("responseType")
                answer = response.get("answer")
                if not (isinstance(answer, str) or isinstance(answer, list)):
                    answer = "" if answer is None else json.dumps(answer)
                label = a.get("preResponseText") if isinstance(a.get("preResponseText"), str) else ""
                try:
                    box = Box(kind=kind, label=label, answer=answer)
                except ValidationError:
                    box = Box.model_construct(kind=str(kind), label=label, answer=answer)
                rtol = as_object(a.get("gradeParams")).get("rtol")
                part_boxes.append(box)
                part_rtol.append(_tolerance(rtol))
            if part_boxes:
                key = part_field(qi, pi)
                boxes[key] = part_boxes
                tolerances[key] = part_rtol
    return boxes, tolerances


def _tolerance(value: Any) -> float | None:
    """An export's ``rtol`` as a float, or ``None`` (the default applies) when it is not a
    finite number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) and 0 <= f <= 1 else None


def read_export_boxes(path: Path) -> dict[str, list[Box]]:
    """The answer boxes of an exported set, keyed by part (``q2.p1``); see
    :func:`read_export_areas`."""
    return read_export_areas(path)[0]




def part_texts_of_members(members: dict[str, bytes], where: str) -> dict[str, str]:
    """Each part's text (its ``content``; the question's ``masterContent`` before it), keyed
    by part (``q2.p1``), from a set's JSON files as :func:`areas_of_members` reads them: the
    context in which a score reads a temperature as a difference."""
    out: dict[str, str] = {}
    for qi, q in enumerate(question_files(members, where)):
        main = q.get("masterContent") if isinstance(q.get("masterContent"), str) else ""
        for pi, p in enumerate(ordered(q.get("parts"))):
            content = p.get("content") if isinstance(p.get("content"), str) else ""
            out[part_field(qi, pi)] = f"{main}\n{content}"
    return out
