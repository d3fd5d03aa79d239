"""Answer boxes (issue 5): the per-part request, the refusals, the in2lambda response
areas, and the boxes of an export.

One call per eligible part proposes its boxes (:class:`schemas.areas.Proposal`);
:func:`check` keeps what the platform can mark and refuses the rest with a reason (the
lead flags each refusal as ``kind: area``); :func:`to_in2lambda` turns a kept box into
in2lambda 1.1.0's response area with its own default evaluation function.

Numbers with units are read with pint, symbolic answers with sympy; both readers are
shared with :mod:`tasks.boxes.score`.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemas.areas import KINDS, AreasSummary, Box, PartBoxes, Proposal
from schemas.flags import Flag
from schemas.llm import BackendSpec, LLMRequest
from schemas.routes import Usage
from schemas.sheet import Part, SheetSet
from tasks import prompts
from tasks.write.build import _in2lambda
from tasks.cache import stage
from tasks.check.compare import _dict, ordered, question_files, read_export_files
from tasks.errors import InputError
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, ask, backend_for
from tasks.convert.bounds import json_loads

OUTPUT_LIMIT = 2000
"""Output limit of one part's call in tokens; a part rarely has more than a few boxes."""

REPLY_SCHEMA = Proposal.model_json_schema()
"""Structured output of the call: ``{"boxes": [{kind, label, answer}]}``."""

_NUMBER = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_UNITS = re.compile(
    # Powers first: the repeat is possessive (no backtracking, so no exponential time on
    # a long run of letters), so ``**`` must be tried as a power before as two products.
    r"(?:(?<=[A-Za-z_µμΩÅ)])[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}(?![⁰¹²³⁴⁵⁶⁷⁸⁹])"
    r"|(?<=[A-Za-z_µμΩÅ)])\s*(?:\^|\*\*)\s*(?:\(\s*[-+]?\d{1,2}(?:\.\d{1,3})?\s*\)|[-+]?\d{1,2}(?:\.\d{1,3})?)"
    r"|\s|[*/()·]|[A-Za-z_µμΩÅ]++|%|°)*+"
)
"""What may follow the number of a numeric answer: unit names (ASCII letters, ``_``,
``µ``, ``Ω``, ``Å``; ``%``, ``°``), ``*``, ``/``, ``·``, parentheses, spaces, and after
a unit (or a closing parenthesis) a power of at most two digits (``m^(-3)``, ``s**2``,
``m s⁻¹``). No other number (pint reads ``s⁹⁹⁹`` as a power too), so pint
never evaluates arithmetic or builds a huge power."""
_EXPRESSION_CHARS = re.compile(r"[A-Za-z0-9_+\-*/^().,\s]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECIMAL_POINT = re.compile(r"(?<![A-Za-z0-9_])\d*\.\d+|\d+\.(?!\d)")
MAX_ANSWER = 500
"""Longest answer text read, in characters."""
MAX_POWER = 100
"""Largest number an expression may raise something to (``x**100``); larger integer
powers, and a power of a power of numbers, could take sympy hours to evaluate."""
FUNCTIONS = frozenset(
    "sqrt cbrt exp log ln log10 sin cos tan cot sec csc asin acos atan arcsin arccos arctan atan2 acot "
    "sinh cosh tanh asinh acosh atanh Abs abs sign".split()
)
"""The functions an expression may call (sympy's; ``ln``, ``log10``, ``arcsin``,
``arccos``, ``arctan`` and ``abs`` as their sympy forms); any other name followed by
``(`` is refused, and one of these without ``(`` too (``sqrt x``)."""
MAX_EXPONENT = 300
"""Largest decimal exponent of a number written in an expression (``1e300``)."""
_EXPONENT = re.compile(r"(?<![A-Za-z_])(?:\d+\.?\d*|\.\d+)[eE]([-+]?\d+)")


def _aliases() -> dict[str, Any]:
    import sympy

    return {"ln": sympy.log, "abs": sympy.Abs, "arcsin": sympy.asin, "arccos": sympy.acos, "arctan": sympy.atan,
            "log10": lambda x: sympy.log(x, 10)}


# --- readers shared with tasks.boxes.score ---------------------------------------------------


@lru_cache(maxsize=1)
def units():
    """The one pint ``UnitRegistry`` (pint's default definitions)."""
    import pint

    return pint.UnitRegistry()


def parse_quantity(text: str):
    """``text`` (``0.106 kg``, ``30 kg/s``, ``2.65e25 m^(-3)``, ``12``) as a pint
    ``Quantity``; a bare number is dimensionless.

    Raises ``ValueError`` with a one-line reason when the text does not start with a
    number, has anything but units after it (another number, arithmetic, a power of
    more than two digits), names a unit pint does not know (``kg/zz``), or the number is
    not finite (``1e999``). The number and the units are read apart (pint's
    ``Quantity(number, units)``), so offset units work (``20 degC``). Note pint's own
    conventions: ``kilos`` is kilo-seconds, and a radian is dimensionless (``1 rad/s``
    equals ``1 Hz``).
    """
    if not isinstance(text, str) or len(text) > MAX_ANSWER:
        raise ValueError("not a text of at most 500 characters")
    text = text.replace("\u2212", "-").replace("\u22c5", "·")  # the minus sign, the dot operator
    number = _NUMBER.match(text)
    if not number:
        raise ValueError("no number")
    unit_text = text[number.end() :]
    if not _UNITS.fullmatch(unit_text):
        raise ValueError("not one number followed by units (such as 3e8 m/s)")
    magnitude = float(number.group())
    if not math.isfinite(magnitude):
        raise ValueError("the number is not finite")
    try:
        q = units().Quantity(magnitude, unit_text.strip())
    except Exception as e:  # pint raises UndefinedUnitError, DefinitionSyntaxError, tokenizer errors…
        reason = f"unknown unit {e}" if type(e).__name__ == "UndefinedUnitError" else f"not a quantity ({e})"
        raise ValueError(reason) from None
    if any(abs(power) > MAX_UNIT_POWER for _, power in q.unit_items()):
        raise ValueError(f"a unit to a power above {MAX_UNIT_POWER} (converting it would not end)")
    return q


MAX_UNIT_POWER = 12
"""Largest power of one unit in a numeric answer (``((m^99)^99)`` is refused before any
conversion raises a factor to it)."""


def parse_expression(text: str):
    """``text`` (Python or caret powers: ``(pi/6)*rho*U**2*R^2``) as a sympy expression.

    Every name not followed by ``(`` is a plain symbol (``rho``, ``E``, ``N``), except
    ``pi``; a name followed by ``(`` must be one of :data:`FUNCTIONS`. Juxtaposition
    multiplies (``2x``). As sympy's ``parse_expr`` evaluates the text with Python, only
    letters, digits, ``_ + - * / ^ ( ) . ,`` and spaces are read, a point only in a
    number, no ``__``, no Python builtin is reachable, and powers are bounded
    (:data:`MAX_POWER`).

    Raises ``ValueError`` with a one-line reason when it does not parse as one
    expression, calls another function, or raises to too high a power.
    Source: sympy ``parse_expr`` with ``standard_transformations``,
    ``implicit_multiplication`` and ``convert_xor``.
    """
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication,
        parse_expr,
        standard_transformations,
    )

    if not isinstance(text, str) or len(text) > MAX_ANSWER:
        raise ValueError("not a text of at most 500 characters")
    if not text.strip():
        raise ValueError("empty expression")
    text = text.replace("\u2212", "-")  # the minus sign
    if not _EXPRESSION_CHARS.fullmatch(text) or "__" in text or "." in _DECIMAL_POINT.sub("", text):
        raise ValueError("characters an expression does not use")
    for m in _EXPONENT.finditer(text):  # sympy's Float of 1e9999999 takes minutes
        if abs(int(m.group(1))) > MAX_EXPONENT:
            raise ValueError(f"a number beyond 1e±{MAX_EXPONENT}")
    # ``lambda`` (a wavelength) is a Python keyword: read it under another name.
    text = re.sub(r"(?<![A-Za-z0-9_])lambda(?![A-Za-z0-9_])", "kw_lambda_", text)
    local: dict[str, Any] = {"kw_lambda_": sympy.Symbol("lambda"), **_aliases()}
    for m in _NAME.finditer(text):
        name = m.group()
        if text[m.end() :].lstrip().startswith("("):
            if name not in FUNCTIONS:
                raise ValueError(f"calls {name}(), not one of the functions an answer may use")
            if name not in local:
                local[name] = getattr(sympy, name)
        elif name in FUNCTIONS:
            raise ValueError(f"{name} without parentheses (write {name}(x))")
        elif not name[0].isdigit() and name not in local:
            local[name] = sympy.pi if name == "pi" else sympy.Symbol(name)
    namespace = {n: getattr(sympy, n) for n in ("Add", "Mul", "Pow", "Integer", "Float", "Rational", "Symbol", "Function")}
    namespace["__builtins__"] = {}
    transformations = standard_transformations + (implicit_multiplication, convert_xor)
    try:
        shape = parse_expr(text, local_dict=local, global_dict=namespace, transformations=transformations,
                           evaluate=False)
        _check_powers(shape)
        expr = parse_expr(text, local_dict=local, global_dict=namespace, transformations=transformations)
    except ValueError:
        raise
    except Exception as e:  # SyntaxError, TokenError, TypeError from a bad call…
        raise ValueError(f"does not parse as an expression ({type(e).__name__})") from None
    if not isinstance(expr, sympy.Expr):
        raise ValueError("not a single expression")
    if expr.has(sympy.zoo, sympy.nan, sympy.oo):
        raise ValueError("not finite (a division by zero?)")
    return expr


MAX_DIGITS = 1000
"""Most digits a number computed inside an expression may have (``(2**99)**99`` has
2,950: sympy takes seconds for it and would never finish one power further)."""


def _digits(node) -> float:
    """An upper bound of log10 of the size of a subtree's value, counting each symbol as
    1 (a symbol is never evaluated, so only its numeric factors can grow): what sympy's
    automatic evaluation may compute. Unevaluated tree (``evaluate=False``)."""
    import sympy

    if node.is_Rational:
        return max(node.p.bit_length(), node.q.bit_length()) * 0.30103
    if node.is_Float:
        f = abs(float(node))
        return abs(math.log10(f)) if f and math.isfinite(f) else float("inf")
    if node.is_Symbol:
        return 0.0
    if node.is_NumberSymbol:
        return 1.0
    if isinstance(node, sympy.Pow):
        e = _digits(node.exp)
        return _digits(node.base) * (10.0 ** e if e < 300 else float("inf"))
    if isinstance(node, sympy.Mul):
        return sum(_digits(a) for a in node.args)
    return max((_digits(a) for a in node.args), default=0.0) + 1.0  # a sum, a function


def _check_powers(expr) -> None:
    """Refuse, before sympy evaluates it: a power whose exponent is a number above
    :data:`MAX_POWER` in size; a number raised to a power of numbers (``9**9**9``); an
    expression whose evaluation could compute a number of more than :data:`MAX_DIGITS`
    digits (``(2*x)**(10**99)``, ``Abs(9**100)**100``)."""
    import sympy

    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow):
            exponent = node.exp
            if exponent.is_Number and abs(exponent) > MAX_POWER:
                raise ValueError(f"a power above {MAX_POWER}")
            if not exponent.is_Number and exponent.is_number and node.base.is_number:
                raise ValueError("a number raised to a power of numbers")
    if _digits(expr) > MAX_DIGITS:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")


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


def _refusal(box: Box, part: Part) -> str | None:
    if box.kind == "MULTIPLE_CHOICE":
        if not part.options:
            return "a multiple choice on a part with no options"
        if not isinstance(box.answer, list):
            return "a multiple choice answer must be a list of booleans"
        if len(box.answer) != len(part.options):
            return f"{len(box.answer)} booleans for {len(part.options)} options"
        if not any(box.answer):
            return "no option is true"
        return None
    if not isinstance(box.answer, str):
        return "the answer must be a text"
    try:
        if box.kind == "NUMERIC_UNITS":
            parse_quantity(box.answer)
        else:
            parse_expression(box.answer)
    except ValueError as e:
        return f"{box.answer!r}: {e}"
    return None


def check(proposal: Proposal | dict | str, part: Part) -> tuple[list[Box], list[str]]:
    """The boxes of ``proposal`` the platform can mark, and one refusal line per other box.

    ``proposal`` is the reply as a model, its JSON object or its text. Refused (each with
    a reason, the rest of the part kept): a kind that is not ``NUMERIC_UNITS``,
    ``MATH_SINGLE_LINE`` or ``MULTIPLE_CHOICE``; a box that does not validate; a multiple
    choice whose answer is not exactly one boolean per option of ``part`` or has no true;
    a numeric answer with no number or an unknown unit (:func:`parse_quantity`); a
    symbolic answer that does not parse as an expression (:func:`parse_expression`).
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
        reason = _refusal(box, part)
        if reason:
            refused.append(f"{where}: {reason}")
            continue
        label_problem = _label_problem(box.label)
        if label_problem:  # the box is sound: keep it, without its label
            refused.append(f"{where}: label refused ({label_problem}); the box is kept without it")
            box = box.model_copy(update={"label": ""})
        kept.append(box)
    return kept, refused


# --- in2lambda ----------------------------------------------------------------------------


def _response_areas():
    _in2lambda()  # imports in2lambda (and with it api.response_area) without its side effects
    return importlib.import_module("in2lambda.api.response_area")


def to_in2lambda(box: Box, options: list[str]):
    """``box`` as in2lambda 1.1.0's response area, with the class's default evaluation
    function and grade parameters: ``NumericUnits``, ``MathSingleLine`` or
    ``MultipleChoice`` (``options`` the part's options; ``single`` when exactly one is
    true). ``label`` becomes ``pre_text``.

    Raises ``ValueError`` for a kind not of the three, or a multiple choice whose answer
    is not one boolean per option (boxes from :func:`check` never do).
    """
    ra = _response_areas()
    if box.kind == "NUMERIC_UNITS" and isinstance(box.answer, str):
        return ra.NumericUnits(answer=box.answer, pre_text=box.label)
    if box.kind == "MATH_SINGLE_LINE" and isinstance(box.answer, str):
        return ra.MathSingleLine(answer=box.answer, pre_text=box.label)
    if box.kind == "MULTIPLE_CHOICE" and isinstance(box.answer, list) and len(box.answer) == len(options):
        return ra.MultipleChoice(
            answer=list(box.answer), options=list(options), single=sum(box.answer) == 1, pre_text=box.label
        )
    raise ValueError(f"cannot write a {box.kind} box with answer {box.answer!r}")


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
                response = _dict(_dict(a.get("response")).get("responseInput"))
                kind = response.get("responseType")
                answer = response.get("answer")
                if not (isinstance(answer, str) or isinstance(answer, list)):
                    answer = "" if answer is None else json.dumps(answer)
                label = a.get("preResponseText") if isinstance(a.get("preResponseText"), str) else ""
                try:
                    box = Box(kind=kind, label=label, answer=answer)
                except ValidationError:
                    box = Box.model_construct(kind=str(kind), label=label, answer=answer)
                rtol = _dict(a.get("gradeParams")).get("rtol")
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


# --- the stage ----------------------------------------------------------------------------

STAGE = "areas"
"""The reply file of the stage: ``replies/areas.json``, one reply per part key."""


def _shape(text: str) -> dict:
    """The reply as ``{"boxes": [...]}`` (boxes unchecked); ``ValueError`` otherwise, so
    that :func:`tasks.llm.ask` asks again once with the reason."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"reply is not JSON ({e.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("boxes"), list):
        raise ValueError('reply is not an object {"boxes": [...]}')
    return data


def propose(backend: Backend, part: Part, qi: int, pi: int) -> PartBoxes:
    """Ask ``backend`` for the boxes of part ``pi`` of question ``qi`` (0-based) and keep
    what :func:`check` keeps.

    A reply that is not ``{"boxes": [...]}`` is asked again once; if it still is not, the
    whole reply is refused (one line). No reply to be had gives status ``skipped: …`` and
    a failed call ``failed: …``, both with no box and no refusal. Never raises on the
    reply's content; usage counts every reply had.
    """
    key = part_field(qi, pi)
    try:
        data, replies = ask(backend, build_request(part, qi, pi), _shape)
    except NoReply as e:  # the part's key is named by the summary, not the backend's file name
        return PartBoxes(field=key, status="skipped: " + str(e).removesuffix(f" {stage_name(qi, pi)}.json"))
    except ReplyInvalid as e:
        live = [r for r in e.replies if not r.replayed]
        return PartBoxes(
            field=key,
            refused=[f"reply: does not validate ({e.reason})"],
            status="replayed" if not live else "ran",
            calls=len(live),
            usage=sum((r.usage for r in e.replies), Usage()),
            raw=e.replies[-1].text,
        )
    except BackendError as e:
        return PartBoxes(field=key, status=f"failed: {e}")
    kept, refused = check(data, part)
    last = replies[-1]
    return PartBoxes(
        field=key,
        boxes=kept,
        refused=refused,
        proposed=len(data["boxes"]),
        status="replayed" if last.replayed else "ran",
        calls=0 if last.replayed else len(replies),
        usage=sum((r.usage for r in replies), Usage()),
        raw=last.text,
    )


@stage("areas")
def areas_task(part: Part, qi: int, pi: int, saved_reply: str | None, backend: BackendSpec | None,
               offline: bool) -> PartBoxes:
    """:func:`propose` for one part as a cached task, keyed by the part, its place, the
    prompt, the saved reply's text and the backend and model (never a key)."""
    saved = {stage_name(qi, pi): saved_reply} if saved_reply is not None else {}
    return propose(backend_for(backend, saved, offline=offline), part, qi, pi)


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
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(where, "holds a lone surrogate (a \\ud800-style escape that is not text)") from None
    out = {}
    for key, reply in data.items():
        if not re.fullmatch(r"q[1-9]\d*\.p[1-9]\d*", key):
            raise InputError(where, f"{key!r} is not a part key like q1.p1")
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


def boxes_of(parts: list[PartBoxes]) -> dict[str, list[Box]]:
    """The kept boxes by part key (parts with none left out)."""
    return {p.field: list(p.boxes) for p in parts if p.boxes}


def summarise(parts: list[PartBoxes], status: str | None = None) -> AreasSummary:
    """The counts of the stage (no score; see :func:`tasks.boxes.score.score`). ``status``
    overrides the one derived from the parts (``ran``/``replayed``/``mixed``, ``failed``
    when every part failed, ``skipped: …`` when none had a reply)."""
    usage = sum((p.usage for p in parts), Usage())
    if status is None:
        had = {p.status for p in parts if p.status in ("ran", "replayed")}
        rest = [p for p in parts if p.status not in ("ran", "replayed")]
        if rest:
            keys = ", ".join(p.field for p in rest[:6]) + (", …" if len(rest) > 6 else "")
            what, _, why = rest[0].status.partition(": ")
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
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
    )
