"""The truth score: a built set against a hand-counted ``truth.json``, and the silent misreads.

The matching rules are those of the corpus's own scorer, ``../shared/tools/truthscore.py``
(its docstring is the source; ``tests/test_truth.py`` checks that both give the same
numbers), written here so the project owns the code it gates on:

- **Folding.** Both sides are compared folded: the command names ``\\textbf``,
  ``\\textit``, ``\\textrm``, ``\\emph`` and ``\\text`` (as whole words) are dropped, the
  text is lower-cased and every character but ``a-z`` and ``0-9`` is dropped. So LaTeX
  source in the truth matches its markdown conversion.
- **Questions**, in sheet order. A truth question is found in the first built question
  after the previous match whose folded main text contains the first 40 folded characters
  of ``main_text_starts``; a truth question with an empty ``main_text_starts`` is found
  instead by its first part's ``content_starts`` in the built question's first part. A
  truth question found nowhere is ``question_missing``.
- **Parts**, in order inside the matched question: a truth part is found in the first
  built part after the previous one found whose folded content contains the first 40
  folded characters of its ``content_starts`` (else ``part_missing``). A truth question
  with no separate parts (one part, label and first words empty) is right with one built
  part or none, and ``parts_count`` with more. A question whose number of built parts
  differs from the truth's is ``parts_count``.
- **Solutions.** A found part the sheet answers (``has_answer`` or
  ``has_worked_solution``) is right when its ``answerContent`` or ``workedSolution`` is
  non-empty (else ``solution_missing``); a part the sheet does not answer that has one is
  a ``false_attachment``.
- **Options.** A found multiple-choice part (``multiple_choice_options`` > 0) is right
  when its answer boxes carry as many options (each box's ``config.options``, else its
  ``answer`` when that is a list; summed), else ``options``. A box's ``config`` and
  ``answer`` are read where the platform's export and in2lambda put them,
  ``response.responseInput`` (truthscore reads only the box's top level, where no export
  has them, so it counts no option of a real build: :func:`options_count`).
- A question is **right** when it is found and none of the misses above concerns it.
  A built question no truth question matched is ``spurious``. **Markup**: every line of a
  main text, part content, answer or worked solution that starts (after blanks) with
  ``:::``, ``<!-- -->``, a ``<div``/``</div`` tag, ``<button``, ``{.`` or a
  ``\\begin{…}`` of an environment other than the maths ones KaTeX renders (``aligned``,
  ``array``, ``cases``, ``matrix``, ``pmatrix``, ``bmatrix``, ``vmatrix``,
  ``gathered``, ``split``) is one ``markup`` miss. A set is **exact** when every question
  is right, none is spurious and nothing is falsely attached (markup does not count).

- **Restated solutions.** A solution that opens with the part's own prompt (its first 40
  folded characters, when the prompt folds to 20 or more) is not right:
  ``solution_restated``.

**Silent misreads**: the strict rule of ``../shared/tools/truthscore.py`` (``judge_flags``;
``tests/test_truth.py`` checks both give the same numbers). The run's flags
(``flags.json``, :class:`schemas.flags.Flag`) name fields as ``qN…`` (``q2.p1.answer``,
``q2.p1``: built question N, 1-based), lines of the sheet (``source:LINE``,
``solutions:FIRST-LAST``) or neither (``source:conversion``, ``set``: sheet-wide). Only a flag
of a kind that doubts text or structure (:data:`schemas.flags.POINTING`; not ``katex``, not
``area``) points, and a miss is *pointed at* when:

- it concerns a built question (a part, solution, option or parts-count miss) and such a flag
  names that question (``pointed_by`` ``"question"``);
- it is a ``spurious`` question and such a flag names it (``"question"``) or the built
  question just before or after it (``"neighbour"``);
- it is a ``question_missing`` and such a flag names the built question matched to the truth
  question before it or the built question just after that one (``"neighbour"``), or names
  lines of the sheet (``"lines"``).

A sheet-wide flag points at nothing. ``markup`` is counted but is not a misread. Every other
miss is **silent**: a misread no flag points to, the worst outcome. The flags are counted as
truthscore counts them: ``flags``; ``false_alarms``, the flags (any kind) naming a built
question the truth finds wholly right; ``sheet_flags``, the flags naming no question and no
lines.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any, Iterable

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.flags import POINTING, Flag
from schemas.truth import MissKind, PointedBy, TruthCounts, TruthMiss, TruthScore
from tasks.safe_json import json_loads

KEY_CHARS = 40
"""How many folded characters of a truth's first words must occur in the build."""

_STYLE_COMMANDS = re.compile(r"\\(?:textbf|textit|textrm|emph|text)\b")
_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_KATEX_ENVIRONMENTS = ("aligned", "array", "cases", "matrix", "pmatrix", "bmatrix", "vmatrix", "gathered", "split")
_MARKUP_AT_LINE_START = re.compile(
    r"^\s*(?:"
    + "|".join(
        [
            r":::",  # a pandoc fenced div
            r"<!-- -->",  # pandoc's list separator
            r"</?div\b",  # an HTML div tag
            r"<button\b",
            r"\{\.",  # a pandoc attribute block
            r"\\begin\{(?!" + "|".join(_KATEX_ENVIRONMENTS) + r")[a-z*]+\}",  # a LaTeX environment KaTeX does not render
        ]
    )
    + r")",
    re.MULTILINE,
)
_FLAG_QUESTION = re.compile(r"q(\d+)\b")
_FLAG_LINES = re.compile(r"(?:source|solutions):\d+(?:-\d+)?$")


def fold(text: str | None) -> str:
    """``text`` lower-cased with only ``a-z0-9`` kept, style command names dropped first."""
    return _NOT_ALNUM.sub("", _STYLE_COMMANDS.sub("", text or "").lower())


def _text(value: Any) -> str:
    """A field as in2lambda writes it: a string, or ``{"content": …}`` (``workedSolution``)."""
    if isinstance(value, dict):
        return value.get("content") or ""
    return value or ""


def options_count(part: dict) -> int:
    """The multiple-choice options a built part's answer boxes carry (summed over boxes).

    A box is read where the platform's export puts it (in2lambda 1.1.0 writes the same:
    ``response.responseInput`` holding ``config.options`` and ``answer``, as in the ME2
    export's ``MULTIPLE_CHOICE`` boxes), else at the box's top level, where
    ``../shared/tools/truthscore.py`` looks: its ``config.options``, else its ``answer``
    when that is a list."""
    n = 0
    for area in part.get("responseAreas") or []:
        inner = (area.get("response") or {}).get("responseInput") if isinstance(area.get("response"), dict) else None
        options = None
        for box in ([inner] if isinstance(inner, dict) else []) + [area]:
            options = (box.get("config") or {}).get("options")
            if not options and isinstance(box.get("answer"), list):
                options = box["answer"]
            if options:
                break
        if isinstance(options, list):
            n += len(options)
    return n


def load_built(path: Path | str) -> list[dict]:
    """The questions of a built set, in ``orderNumber`` order.

    ``path``: a set zip, or a folder (an output folder of the document flow, or a set
    folder) under which the folder holding the most ``question_*.json`` files is the set
    (``replies/`` is never looked in). Returns ``[]`` when there is none. Raises
    ``OSError`` when a file cannot be read and ``ValueError`` when one is not JSON.
    """
    path = Path(path)
    blobs: list[tuple[str, bytes]] = []
    if path.is_file() and path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            blobs = [(n, z.read(n)) for n in z.namelist()
                     if Path(n).name.startswith("question_") and n.endswith(".json")]
    elif path.is_dir():
        groups: dict[Path, list[Path]] = {}
        for p in path.rglob("question_*.json"):
            if "replies" not in p.relative_to(path).parts:
                groups.setdefault(p.parent, []).append(p)
        if groups:
            best = max(sorted(groups), key=lambda d: len(groups[d]))
            blobs = [(str(p), p.read_bytes()) for p in groups[best]]
    questions = [json_loads(data) for _, data in sorted(blobs)]
    return sorted(questions, key=lambda q: q.get("orderNumber", 0))


def load_flags(out_dir: Path | str) -> list[Flag]:
    """The flags of a run (``flags.json`` in its output folder); ``[]`` when there is none.
    Raises ``ValueError`` when the file does not validate."""
    p = Path(out_dir) / "flags.json"
    if not p.is_file():
        return []
    return [Flag.model_validate(f) for f in json_loads(p.read_text(encoding="utf-8"))]


class _Pointers:
    """What the run's flags name, as ``judge_flags`` reads them: per built question (1-based)
    the kinds of the flags naming it, how many :data:`POINTING` flags name lines of the sheet,
    how many flags are sheet-wide."""

    def __init__(self, flags: Iterable[Flag | dict]):
        self.kinds: dict[int, list[str]] = {}
        self.line_flags = 0
        self.sheet_flags = 0
        self.count = 0
        for f in flags:
            field = f.field if isinstance(f, Flag) else str(f.get("field") or "")
            kind = f.kind if isinstance(f, Flag) else f.get("kind")
            self.count += 1
            m = _FLAG_QUESTION.match(field)
            if m:
                self.kinds.setdefault(int(m.group(1)), []).append(str(kind))
            elif _FLAG_LINES.match(field):
                self.line_flags += kind in POINTING
            else:
                self.sheet_flags += 1

    def points(self, built: int | None) -> bool:
        return built is not None and any(k in POINTING for k in self.kinds.get(built, []))

    def at(self, built: int | None) -> PointedBy | None:
        return "question" if self.points(built) else None

    def spurious(self, built: int) -> PointedBy | None:
        if self.points(built):
            return "question"
        return "neighbour" if self.points(built - 1) or self.points(built + 1) else None

    def gap(self, before: int, after: int) -> PointedBy | None:
        if self.points(before) or self.points(after):
            return "neighbour"
        return "lines" if self.line_flags else None

    def false_alarms(self, right: set[int]) -> int:
        return sum(len(v) for b, v in self.kinds.items() if b in right)


def score_truth(built: list[dict], truth: dict, flags: Iterable[Flag | dict] = (), set_name: str = "") -> TruthScore:
    """Score ``built`` (question dicts as in2lambda writes them, in order: :func:`load_built`)
    against ``truth`` (a parsed ``truth.json``), with the run's ``flags`` deciding which
    misses are silent. The rules are in this module's docstring.

    Returns a :class:`schemas.truth.TruthScore` (``counts.sets`` 1). Raises ``KeyError``
    when ``truth`` has no ``questions``.
    """
    truth_qs = truth["questions"]
    ptr = _Pointers(flags)
    c = TruthCounts(sets=1, questions=len(truth_qs))
    right_built: set[int] = set()
    misses: list[TruthMiss] = []

    def miss(kind: MissKind, question: str | None, part: str | None, built_no: int | None, detail: str,
             pointed: PointedBy | None) -> None:
        misses.append(TruthMiss(kind=kind, question=question, part=part, built=built_no, detail=detail,
                                pointed_by=pointed))

    for q in truth_qs:
        for p in q["parts"]:
            c.parts += 1
            c.solutions += bool(p.get("has_answer") or p.get("has_worked_solution"))
            c.mc += bool(p.get("multiple_choice_options"))

    # Questions, in sheet order.
    matched: list[int | None] = []
    start = 0
    for q in truth_qs:
        key = fold(q.get("main_text_starts", ""))[:KEY_CHARS]
        first = fold(q["parts"][0].get("content_starts", ""))[:KEY_CHARS] if q["parts"] else ""
        found = None
        for i in range(start, len(built)):
            b = built[i]
            if key:
                hit = key in fold(b.get("masterContent", ""))
            else:
                hit = bool(first and b.get("parts") and first in fold(b["parts"][0].get("content", "")))
            if hit:
                found = i
                break
        matched.append(found)
        if found is not None:
            start = found + 1

    for t, (q, found) in enumerate(zip(truth_qs, matched)):
        number = str(q.get("number", t + 1))
        if found is None:
            # truthscore's neighbours: the built question matched to the truth question before
            # this one, and the built question just after it (1-based: prev + 1, prev + 2)
            prev = next((m for m in reversed(matched[:t]) if m is not None), -1)
            miss("question_missing", number, None, None,
                 f"not found: {q.get('main_text_starts', '')[:50]!r}", ptr.gap(prev + 1, prev + 2))
            continue
        c.questions_found += 1
        b_no = found + 1
        on_q = ptr.at(b_no)
        b_parts = built[found].get("parts") or []
        right = True
        single = len(q["parts"]) == 1 and not q["parts"][0].get("content_starts")
        next_part = 0
        for p in q["parts"]:
            label = p.get("label", "")
            bp: dict | None = None
            if single:
                if len(b_parts) > 1:
                    miss("parts_count", number, None, b_no,
                         f"no separate parts in the sheet, {len(b_parts)} built", on_q)
                else:
                    bp = b_parts[0] if b_parts else {}
            else:
                key = fold(p.get("content_starts", ""))[:KEY_CHARS]
                for k in range(next_part, len(b_parts)):
                    if key and key in fold(b_parts[k].get("content", "")):
                        bp, next_part = b_parts[k], k + 1
                        break
                if bp is None:
                    miss("part_missing", number, label, b_no,
                         f"not found: {p.get('content_starts', '')[:50]!r}", on_q)
            if bp is None:
                right = False
                continue
            c.parts_right += 1
            wanted = bool(p.get("has_answer") or p.get("has_worked_solution"))
            has = bool(_text(bp.get("answerContent")).strip() or _text(bp.get("workedSolution")).strip())
            solution = _text(bp.get("answerContent")).strip() + _text(bp.get("workedSolution")).strip()
            prompt = fold(bp.get("content", ""))[:KEY_CHARS]
            restated = has and len(prompt) >= 20 and fold(solution).startswith(prompt)
            if wanted and restated:
                right = False
                miss("solution_restated", number, label, b_no,
                     "the solution opens with the part's own prompt (the question restated)", on_q)
            elif wanted and has:
                c.solutions_right += 1
            elif wanted:
                right = False
                miss("solution_missing", number, label, b_no, "the sheet gives a solution, the part has none", on_q)
            elif has:
                right = False
                c.false_attachments += 1
                miss("false_attachment", number, label, b_no, "a solution the sheet does not give", on_q)
            want_options = p.get("multiple_choice_options") or 0
            if want_options:
                made = options_count(bp)
                if made == want_options:
                    c.mc_right += 1
                else:
                    right = False
                    miss("options", number, label, b_no, f"{made} options built, {want_options} in the sheet", on_q)
        if not single and len(b_parts) != len(q["parts"]):
            right = False
            miss("parts_count", number, None, b_no, f"{len(b_parts)} parts built, {len(q['parts'])} in the sheet", on_q)
        c.questions_right += right
        if right:
            right_built.add(b_no)

    used = {m for m in matched if m is not None}
    truth_of = {m: str(q.get("number", t + 1)) for t, (q, m) in enumerate(zip(truth_qs, matched)) if m is not None}
    for i, b in enumerate(built):
        if i not in used:
            c.spurious_questions += 1
            miss("spurious", None, None, i + 1, f"matches no question of the sheet ({b.get('title', '')!r})",
                 ptr.spurious(i + 1))
    for i, b in enumerate(built):
        fields = [("main text", b.get("masterContent", ""))]
        for n, p in enumerate(b.get("parts") or [], 1):
            fields += [(f"p{n} content", p.get("content", "")), (f"p{n} answer", _text(p.get("answerContent"))),
                       (f"p{n} worked solution", _text(p.get("workedSolution")))]
        for where, text in fields:
            for m in _MARKUP_AT_LINE_START.finditer(text or ""):
                c.markup_leaks += 1
                miss("markup", truth_of.get(i), None, i + 1, f"{where}: {m.group(0).strip()!r}", ptr.at(i + 1))

    c.flags, c.sheet_flags, c.false_alarms = ptr.count, ptr.sheet_flags, ptr.false_alarms(right_built)
    c.exact = int(c.questions_right == len(truth_qs) and not c.spurious_questions and not c.false_attachments)
    silent = [m for m in misses if m.silent]
    c.silent_misreads = len(silent)
    kinds: dict[str, int] = {}
    for m in silent:
        kinds[m.kind] = kinds.get(m.kind, 0) + 1
    c.silent_by_kind = dict(sorted(kinds.items()))
    return TruthScore(set=set_name, counts=c, misses=misses)


def score_output(out_dir: Path | str, truth: dict, set_name: str = "") -> TruthScore:
    """Score a document flow's output folder: its set (:func:`load_built`) and its flags
    (``flags.json``) against ``truth``; ``counts.fields`` is ``report.json``'s ``fields`` (0
    when there is none). Raises as :func:`load_built` and :func:`load_flags`."""
    scored = score_truth(load_built(out_dir), truth, load_flags(out_dir), set_name)
    report = Path(out_dir) / "report.json"
    if report.is_file():
        scored.counts.fields = int(json_loads(report.read_text(encoding="utf-8")).get("fields", 0))
    return scored


def score_failed(truth: dict, reason: str, set_name: str = "") -> TruthScore:
    """A set that was not built: every truth question is a silent ``question_missing``
    (the same score as an empty build with no flags), ``counts.failed`` 1 and ``error``
    the one-line ``reason``."""
    s = score_truth([], truth, (), set_name)
    s.counts.failed = 1
    for m in s.misses:
        m.detail = f"not built: {reason}"
    s.error = reason
    return s


truth_task = task(name="truth score", cache_policy=NO_CACHE)(score_truth)
""":func:`score_truth` as a Prefect task (cheap: never cached)."""
