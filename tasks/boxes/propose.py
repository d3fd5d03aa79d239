"""The request for one part's answer boxes and the stage around it: one call per part
the sheet does not already answer (:mod:`tasks.boxes.sheet`), the saved replies, the
stage's flags and counts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from schemas.areas import AreasSummary, Box, PartBoxes, Proposal
from schemas.flags import Flag
from schemas.llm import BackendSpec, LLMRequest
from schemas.routes import Usage
from schemas.sheet import Part, SheetSet
from schemas.status import Cause, StageStatus, State
from tasks import prompts
from tasks.convert.bounds import MAX_PARTS, check_count, json_loads
from tasks.boxes.check import check
from tasks.boxes.sheet import from_sheet, unmarked, unmarked_choice
from tasks.cache import stage
from tasks.errors import InputError
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, ask
from tasks.llm.select import backend_for

OUTPUT_LIMIT = 2000
"""Output limit of one part's call in tokens; a part rarely has more than a few boxes."""

REPLY_SCHEMA = Proposal.model_json_schema()
"""Structured output of the call: ``{"boxes": [{kind, label, answer}]}``."""

# --- the request ------------------------------------------------------------------------


def stage_name(qi: int, pi: int) -> str:
    """The stage (reply name) of part ``pi`` of question ``qi`` (0-based): ``areas-q2-p1``."""
    return f"areas-q{qi + 1}-p{pi + 1}"


def part_field(qi: int, pi: int) -> str:
    """The 1-based key of part ``pi`` of question ``qi`` (0-based): ``q2.p1``."""
    return f"q{qi + 1}.p{pi + 1}"


def eligible(part: Part) -> bool:
    """True when the part has something to answer: content, options or a final answer."""
    return bool(part.content.strip() or part.options or part.answer.strip())


def build_request(part: Part, qi: int, pi: int) -> LLMRequest:
    """The request proposing the boxes of part ``pi`` of question ``qi`` (0-based).

    System text: ``tasks/prompts/areas.md``; user text: the part's key (``q2.p1``), its
    content, its options
    numbered from 1, its final answer and its worked solution, each under a heading
    (a field left empty is written ``(none)``). Structured output: :class:`Proposal`.
    """
    version, system = prompts.load("areas")
    options = "\n".join(f"{i}. {o}" for i, o in enumerate(part.options, 1))

    def section(title: str, text: str) -> str:
        return f"# {title}\n\n{text.strip() or '(none)'}"

    user = "\n\n".join(
        [
            f"Part {part_field(qi, pi)} (question {qi + 1}, part {pi + 1})",
            section("Content", part.content),
            section(f"Options ({len(part.options)})", options),
            section("Final answer", part.answer),
            section("Worked solution", part.worked_solution),
        ]
    )
    return LLMRequest(
        stage=stage_name(qi, pi),
        prompt_version=version,
        system=system,
        user=user,
        max_tokens=OUTPUT_LIMIT,
        json_schema=REPLY_SCHEMA,
        schema_name="submit_boxes",
    )


# --- the stage ----------------------------------------------------------------------------

STAGE = "areas"
"""The reply file of the stage: ``replies/areas.json``, one reply per part key."""


def parse_reply(text: str) -> dict:
    """The reply as ``{"boxes": [...]}`` (boxes unchecked); ``ValueError`` otherwise, so
    that :func:`tasks.llm.ask` asks again once with the reason."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"reply is not JSON ({e.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("boxes"), list):
        raise ValueError('reply is not an object {"boxes": [...]}')
    return data


def propose(backend: Backend, part: Part, qi: int, pi: int, offline: bool = False) -> PartBoxes:
    """The boxes of part ``pi`` of question ``qi`` (0-based): read from the sheet where it
    states them (:func:`tasks.boxes.sheet.from_sheet`: no call, ``source`` ``sheet``), else
    asked of ``backend``, keeping what :func:`check` keeps.

    A reply that is not ``{"boxes": [...]}`` is asked again once; if it still is not, the
    whole reply is refused (one line). No reply to be had gives state ``skipped`` (cause
    ``offline_no_reply`` when ``offline``, else ``no_backend``) and a failed call ``failed``
    (``backend_error``), both with no refusal. Never raises on the reply's content; usage
    counts every reply had.

    A part with options that ends with no multiple-choice box (no reply, a failed call, a
    refused or absent choice in the reply) gets the box of its options with none marked
    (:func:`tasks.boxes.sheet.unmarked_choice`), after the others, so that the set keeps the
    options the sheet typed; :func:`choice_flags` asks a person to mark it.
    """
    got = _proposed(backend, part, qi, pi, offline)
    if part.options and not any(b.kind == "MULTIPLE_CHOICE" for b in got.boxes):
        got = got.model_copy(update={"boxes": [*got.boxes, unmarked_choice(part)]})
    return got


def _proposed(backend: Backend, part: Part, qi: int, pi: int, offline: bool) -> PartBoxes:
    """:func:`propose` before a part's unmarked choice is added."""
    key = part_field(qi, pi)
    sheet = from_sheet(part)
    if sheet is not None:
        kept, refused = check({"boxes": [b.model_dump() for b in sheet.boxes]}, part)
        return PartBoxes(field=key, boxes=kept, refused=refused + [f"from the sheet: {r}" for r in sheet.refused],
                         proposed=len(sheet.boxes) + len(sheet.refused), source="sheet", quote=sheet.quote,
                         status=StageStatus(state=State.ran, reason="read from the sheet, no call"))
    try:
        data, replies = ask(backend, build_request(part, qi, pi), parse_reply)
    except NoReply as e:  # the part's key is named by the summary, not the backend's file name
        cause = Cause.offline_no_reply if offline else Cause.no_backend
        reason = str(e).removesuffix(f" {stage_name(qi, pi)}.json")
        return PartBoxes(field=key, status=StageStatus(state=State.skipped, reason=reason, cause=cause))
    except ReplyInvalid as e:
        live = [r for r in e.replies if not r.replayed]
        return PartBoxes(
            field=key,
            refused=[f"reply: does not validate ({e.reason})"],
            status=StageStatus(state=State.replayed if not live else State.ran, cause=Cause.invalid),
            calls=len(live),
            usage=sum((r.usage for r in e.replies), Usage()),
            raw=e.replies[-1].text,
        )
    except BackendError as e:
        return PartBoxes(field=key, status=StageStatus(state=State.failed, reason=str(e), cause=Cause.backend_error))
    kept, refused = check(data, part)
    last = replies[-1]
    return PartBoxes(
        field=key,
        boxes=kept,
        refused=refused,
        proposed=len(data["boxes"]),
        status=StageStatus(state=State.replayed if last.replayed else State.ran),
        calls=0 if last.replayed else len(replies),
        usage=sum((r.usage for r in replies), Usage()),
        raw=last.text,
    )


def needs_call(part: Part, saved_reply: str | None, backend: BackendSpec | None) -> bool:
    """True when ``part``'s boxes may come from a model's reply: the sheet does not state
    them (:func:`tasks.boxes.sheet.from_sheet`) and a reply may be had (a saved one, or a
    backend to ask). Such a part is a task of its own (:func:`areas_task`: cached, and its
    call made, one part at a time); every other part of a sheet is one task together
    (:func:`unasked_areas_task`), since it makes no call."""
    return (saved_reply is not None or backend is not None) and from_sheet(part) is None


@stage("areas")
def areas_task(part: Part, qi: int, pi: int, saved_reply: str | None, backend: BackendSpec | None,
               offline: bool) -> PartBoxes:
    """:func:`propose` for one part as a cached task, keyed by the part, its place, the
    prompt, the saved reply's text and the backend and model (never a key). Called for every
    answerable part, with or without a backend: a part the sheet answers needs neither."""
    saved = {stage_name(qi, pi): saved_reply} if saved_reply is not None else {}
    return propose(backend_for(backend, saved, offline=offline), part, qi, pi, offline)


@stage("areas (no call)")
def unasked_areas_task(parts: list[tuple[int, int, Part]], offline: bool) -> list[PartBoxes]:
    """:func:`propose` for every part of a sheet that needs no call (``(qi, pi, part)``,
    0-based; see :func:`needs_call`), as one cached task: the boxes the sheet states, or
    none, skipped (``offline_no_reply`` when ``offline``, else ``no_backend``). One task,
    not one per part, because a task run costs Prefect some milliseconds of CPU and these
    parts have no call to cache or retry one by one."""
    backend = backend_for(None, {}, offline=offline)
    return [propose(backend, part, qi, pi, offline) for qi, pi, part in parts]


def part_place(key: str) -> tuple[int, int]:
    """The 1-based ``(question, part)`` of a part key (``q2.p1`` → ``(2, 1)``).

    Raises ``ValueError`` for a key that is not ``q<n>.p<m>``."""
    found = re.fullmatch(r"q([1-9]\d*)\.p([1-9]\d*)", key)
    if found is None:
        raise ValueError(f"{key!r} is not a part key like q1.p1")
    return int(found[1]), int(found[2])


def gathered(results: list[PartBoxes | list[PartBoxes]]) -> list[PartBoxes]:
    """The answer-box stage's parts from its tasks' results (a part's own
    :class:`PartBoxes`, or the list of :func:`unasked_areas_task`), in the set's order."""
    flat = [p for r in results for p in (r if isinstance(r, list) else [r])]
    return sorted(flat, key=lambda p: part_place(p.field))


def eligible_parts(questions: SheetSet) -> list[tuple[int, int, Part]]:
    """``(qi, pi, part)`` (0-based) of every part with something to answer, in order; parts
    as the set is written (:meth:`schemas.sheet.Question.normalised_parts`)."""
    return [
        (qi, pi, p)
        for qi, q in enumerate(questions.root)
        for pi, p in enumerate(q.normalised_parts())
        if eligible(p)
    ]


def read_saved(text: str, where: str) -> dict[str, str]:
    """``replies/areas.json`` as one reply text per part key.

    The file is a JSON object ``{"q1.p1": reply, ...}``; a reply is the object the model
    returned (``{"boxes": [...]}``) or its text. Raises ``InputError`` naming ``where``
    when the file is not such an object or a key is not a part key.
    """
    try:
        data = json_loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as e:
        raise InputError(where, f"not JSON ({e.msg} at line {e.lineno})") from None
    except ValueError as e:  # an integer of more than 4,300 digits
        raise InputError(where, f"not JSON that can be read ({str(e).split(';')[0]})") from None
    if not isinstance(data, dict):
        raise InputError(where, 'not a JSON object of replies by part ({"q1.p1": {"boxes": [...]}})')
    check_count(len(data), MAX_PARTS, "parts' replies", where)
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(where, "holds a lone surrogate (a \\ud800-style escape that is not text)") from None
    out = {}
    for key, reply in data.items():
        try:
            part_place(key)
        except ValueError as e:
            raise InputError(where, str(e)) from None
        out[key] = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
    return out


def saved_file(parts: list[PartBoxes]) -> str:
    """The replies of ``parts`` as ``replies/areas.json`` (readable by :func:`read_saved`;
    a reply that is JSON is stored as the object, other text as a string)."""
    out: dict[str, Any] = {}
    for p in parts:
        if not p.raw:
            continue
        try:
            out[p.field] = json_loads(p.raw)
        except ValueError:
            out[p.field] = p.raw
    text = json.dumps(out, indent=1, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a reply escaped a lone surrogate: keep it escaped
        text = json.dumps(out, indent=1)
    return text


def flags_of(parts: list[PartBoxes]) -> list[Flag]:
    """One ``area`` flag per refusal, on its part (``q2.p1``), the reason as written."""
    return [Flag(field=p.field, kind="area", reason=f"answer box refused: {line}") for p in parts for line in p.refused]


def choice_flags(questions: SheetSet, parts: list[PartBoxes]) -> list[Flag]:
    """``area`` flags on the parts of ``questions`` with multiple-choice options whose correct
    option a person must give (``q2.p1``):

    - its box marks no option (:func:`tasks.boxes.sheet.unmarked`: neither the sheet nor a
      model said which is right, most often offline): the set holds the options, the flag asks
      a person to mark the correct one before students answer (until then no choice is marked
      right); the parts unmarked for one cause (their status reason) share one flag, on the
      first, naming the others (:func:`_unmarked_flag`);
    - no multiple-choice box holds its options (``parts`` empty with ``--no-areas``) and no
      box of the part was refused (that part has its refusal's flag, :func:`flags_of`): the
      platform shows options only in such a box, so a person must add it.

    ``parts`` are the answer-box stage's outcomes; a part's status reason (why no model chose)
    is added in brackets."""
    boxes = {p.field: p.boxes for p in parts}
    refused = {p.field for p in parts if p.refused}
    why = {p.field: p.status.reason for p in parts if p.status.reason}
    flags: list[Flag | str] = []  # a str: where the unmarked parts of that note get their one flag
    unmarked_by_note: dict[str, list[tuple[str, int]]] = {}
    for qi, q in enumerate(questions.root):
        for pi, part in enumerate(q.normalised_parts()):
            key = part_field(qi, pi)
            if not part.options:
                continue
            note = f" ({why[key]})" if key in why else ""
            choices = [b for b in boxes.get(key, []) if b.kind == "MULTIPLE_CHOICE"]
            if any(unmarked(b) for b in choices):
                if note not in unmarked_by_note:
                    flags.append(note)
                unmarked_by_note.setdefault(note, []).append((key, len(part.options)))
            elif not choices and key not in refused:
                flags.append(Flag(field=key, kind="area", reason=(
                    f"{len(part.options)} multiple-choice options were read but no answer box holds them{note}: "
                    "the platform shows options only in a multiple-choice box, so this part has none to choose "
                    "from; add the box by hand")))
    return [f if isinstance(f, Flag) else _unmarked_flag(unmarked_by_note[f], f) for f in flags]


def _unmarked_flag(parts: list[tuple[str, int]], note: str) -> Flag:
    """The one ``area`` flag of the multiple-choice parts (``(key, options)`` in the set's order)
    whose box marks no option for one cause (``note``, the parts' status reason: most often
    offline, no saved reply), on the first part, naming the others: one cause, one decision to
    take (run again with a model, or mark each on the platform), so one flag, not one per part
    (issue 20: a quiz bank of 26 questions read right carried 26 such flags)."""
    (key, n), rest = parts[0], parts[1:]
    others = "so does 1 other part" if len(rest) == 1 else f"so do {len(rest)} other parts"
    also = (f"; {others} for the same cause ({', '.join(k for k, _ in rest)}): one cause, one flag: run again "
            "with a model, or mark the correct option of each") if rest else ""
    return Flag(field=key, kind="area", reason=(
        f"the sheet marks none of the {n} options correct and no model's choice was kept{note}: "
        f"the answer box holds the options with none marked correct; mark the correct option{also}"))


def boxes_of(parts: list[PartBoxes]) -> dict[str, list[Box]]:
    """The kept boxes by part key (parts with none left out)."""
    return {p.field: list(p.boxes) for p in parts if p.boxes}


def summarise(parts: list[PartBoxes], status: str | None = None) -> AreasSummary:
    """The counts of the stage (no score; see :func:`tasks.boxes.score.score`). ``status``
    overrides the one derived from the parts: ``ran``/``replayed``/``mixed`` (parts each
    way), then ``; N of M parts skipped (keys): reason`` for the rest; ``failed: …`` or
    ``skipped: …`` when no part had boxes; ``no part to answer``. Parts read from the sheet
    count as ``ran`` and in ``from_sheet``."""
    usage = sum((p.usage for p in parts), Usage())
    if status is None:
        had = {p.status.state.value for p in parts if p.status.usable}
        rest = [p for p in parts if not p.status.usable]
        if rest:
            keys = ", ".join(p.field for p in rest[:6]) + (", …" if len(rest) > 6 else "")
            what, why = rest[0].status.state.value, rest[0].status.reason
            missed = f"{len(rest)} of {len(parts)} parts {what} ({keys}): {why}"
        if had:
            status = (had.pop() if len(had) == 1 else "mixed") + (f"; {missed}" if rest else "")
        elif rest:
            status = f"{what}: {'the part' if len(rest) == 1 else f'all {len(rest)} parts'} ({keys}): {why}"
        else:
            status = "no part to answer"
    return AreasSummary(
        status=status,
        parts=len(parts),
        calls=sum(p.calls for p in parts),
        proposed=sum(p.proposed for p in parts),
        refused=sum(len(p.refused) for p in parts),
        written=sum(len(p.boxes) for p in parts),
        from_sheet=sum(len(p.boxes) for p in parts if p.source == "sheet"),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
    )
