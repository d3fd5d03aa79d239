"""The refusals of a proposed box.

:func:`check` keeps what the platform can mark and refuses the rest with a reason (the
lead flags each refusal as ``kind: area``); :func:`tasks.write.in2lambda.to_in2lambda` turns
a kept box into in2lambda's response area.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from schemas.areas import KINDS, Box, Proposal
from schemas.sheet import Part
from tasks.convert.bounds import json_loads
from tasks.boxes.answers import explicit_expression, explicit_quantity

# --- the refusals ------------------------------------------------------------------------


def _describe(n: int, raw: Any) -> str:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    label = raw.get("label") if isinstance(raw, dict) else None
    out = f"box {n}"
    if isinstance(kind, str):
        out += f" {kind}"
    if isinstance(label, str) and label.strip():
        out += f" {label.strip()}"
    return out


MAX_LABEL = 200
"""Longest label kept, in characters: a label is the short text before a box."""

_DOLLAR = re.compile(r"(?<!\\)\$")


def _label_problem(label: str) -> str | None:
    if len(label) > MAX_LABEL:
        return f"a label of {len(label)} characters (at most {MAX_LABEL})"
    if len(_DOLLAR.findall(label)) % 2:
        return f"the label {label!r} has a $ without its pair"
    return None


def part_text(part: Part) -> str:
    """The part's own text, the context in which its answers are read: which names are its
    symbols (``m(g+a)``), whether it works in degrees (``cos(30)``)."""
    return "\n".join([part.content, *part.options, part.answer, part.worked_solution])


def _refusal(box: Box, part: Part) -> tuple[str | None, Box]:
    """The reason ``box`` is refused (``None`` when kept), and the box as it is written:
    its answer in the explicit form the platform reads the same under any setting
    (:func:`tasks.boxes.answers.explicit_expression`, :func:`~tasks.boxes.answers.explicit_quantity`)."""
    if box.kind == "MULTIPLE_CHOICE":
        if not part.options:
            return "a multiple choice on a part with no options", box
        if not isinstance(box.answer, list):
            return "a multiple choice answer must be a list of booleans", box
        if len(box.answer) != len(part.options):
            return f"{len(box.answer)} booleans for {len(part.options)} options", box
        if not any(box.answer):
            return "no option is true", box
        return None, box
    if not isinstance(box.answer, str):
        return "the answer must be a text", box
    try:
        if box.kind == "NUMERIC_UNITS":
            written = explicit_quantity(box.answer)
        else:
            written = explicit_expression(box.answer, part_text(part))
    except ValueError as e:
        return f"{box.answer!r}: {e}", box
    return None, box.model_copy(update={"answer": written})


def check(proposal: Proposal | dict | str, part: Part) -> tuple[list[Box], list[str]]:
    """The boxes of ``proposal`` the platform can mark, and one refusal line per other box.

    ``proposal`` is the reply as a model, its JSON object or its text. Refused (each with
    a reason, the rest of the part kept): a kind that is not ``NUMERIC_UNITS``,
    ``MATH_SINGLE_LINE`` or ``MULTIPLE_CHOICE``; a box that does not validate; a multiple
    choice whose answer is not exactly one boolean per option of ``part`` or has no true;
    a numeric answer with no number, an unknown or ambiguous unit
    (:func:`tasks.boxes.answers.parse_quantity`); a symbolic answer that does not parse as an
    expression, or reads two ways on this part (:func:`tasks.boxes.answers.parse_expression`,
    whose context is the part's text). A kept box's answer is written explicitly (``m(g+a)``
    → ``m*(g+a)``, ``12 Nm`` → ``12 N*m``).
    A reply that is not JSON or not ``{"boxes": [...]}`` is refused whole (no box kept,
    one line). Never raises on the reply's content.
    """
    if isinstance(proposal, Proposal):
        data: Any = proposal.model_dump()
    elif isinstance(proposal, str):
        try:
            data = json_loads(proposal)
        except json.JSONDecodeError as e:
            return [], [f"reply: not JSON ({e.msg})"]
    else:
        data = proposal
    if not isinstance(data, dict) or not isinstance(data.get("boxes"), list):
        return [], ['reply: not an object {"boxes": [...]}']
    kept: list[Box] = []
    refused: list[str] = []
    for n, raw in enumerate(data["boxes"], 1):
        where = _describe(n, raw)
        if isinstance(raw, dict) and raw.get("kind") not in KINDS:
            refused.append(f"{where}: kind {raw.get('kind')!r} is not one of {', '.join(KINDS)}")
            continue
        if isinstance(raw, dict) and raw.get("kind") == "MULTIPLE_CHOICE" and isinstance(raw.get("answer"), list) \
                and not all(isinstance(v, bool) for v in raw["answer"]):
            refused.append(f"{where}: a multiple choice answer must be JSON true/false, one per option "
                           f"(got {json.dumps(raw['answer'])[:80]})")
            continue
        try:
            box = Box.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            refused.append(f"{where}: does not validate ({'.'.join(map(str, first['loc']))}: {first['msg']})")
            continue
        try:
            (box.label + (box.answer if isinstance(box.answer, str) else "")).encode("utf-8")
        except UnicodeEncodeError:
            refused.append(f"{where}: holds a lone surrogate (not text)")
            continue
        reason, box = _refusal(box, part)
        if reason:
            refused.append(f"{where}: {reason}")
            continue
        label_problem = _label_problem(box.label)
        if label_problem:  # the box is sound: keep it, without its label
            refused.append(f"{where}: label refused ({label_problem}); the box is kept without it")
            box = box.model_copy(update={"label": ""})
        kept.append(box)
    return kept, refused
