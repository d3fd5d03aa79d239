"""Tiers 1–3: settle each field of the set from the two routes, and raise flags.

- Tier 1: a field both routes filled alike after :func:`tasks.settle.fold.fold` is *agreed*; a
  field only one route filled takes that route's text (*single-route*, not a dispute); a
  question or part only one route found is kept and flagged ``structural``.
- Tier 2: a field the routes fill differently is *disputed*; an adjudication verdict
  settles it: ``A`` or ``B`` takes that route's text, ``same`` takes A's, ``source``
  takes the verdict's passage, which must itself pass the verbatim check (else a flag),
  ``person`` flags it. A dispute with no verdict is flagged "not adjudicated".
- Tier 3: flags a person reads: ``not_verbatim``, ``structural``, ``disputed``,
  ``stray_minus`` (Mathpix only), ``uncovered``, ``conversion_loss`` (the kinds and what a
  person does about each: ``tasks/settle/README.md``). What concerns no field (the preamble,
  packages, page layout, metadata) is no flag: :func:`tasks.settle.conversion_flags.conversion_notes`
  for the report.

A flagged field still carries a text (A's where A has one) so the set is complete; the
flag list says which fields a person must read before publishing.
"""

from __future__ import annotations

import re
from typing import Literal

from schemas.flags import Flag
from schemas.markdown import ConversionWarning
from schemas.markdown import SheetText
from schemas.routes import Adjudication, AdjudicationResult, RouteResult
from schemas.sheet import Part, PartKey, Question, SheetSet, field_key
from schemas.tiers import FieldOutcome, Settled
from tasks.cache import stage
from tasks.settle.conversion_flags import (  # noqa: F401  (re-exported: the tiers' document-level flags)
    SHEET_KINDS,
    conversion_loss_flags,
    conversion_notes,
    sheet_wide,
)
from tasks.settle.fold import fold
from tasks.settle.verbatim import fold_source, missing_paragraphs, title_ok

Side = Literal["A", "B"]


def _quote_ok(text: str, folded_sources: list[str]) -> bool:
    return not missing_paragraphs(text, folded_sources)


class _Settler:
    """Field-by-field settlement state for one document (internal)."""

    def __init__(self, sources: list[str], verdicts: dict[str, Adjudication], adjudication_ran: bool):
        self.folded = [fold_source(s) for s in sources if s]
        self.verdicts = verdicts
        self.adjudication_ran = adjudication_ran
        self.fields: list[FieldOutcome] = []
        self.flags: list[Flag] = []
        self.disputed: list[tuple[str, str, str]] = []

    def flag(self, field: str, kind: str, reason: str, a: str | None = None, b: str | None = None) -> None:
        self.flags.append(Flag(field=field, kind=kind, reason=reason, a=a, b=b))  # type: ignore[arg-type]

    def ok(self, key: str, text: str) -> bool:
        """Is ``text`` verbatim for field ``key`` (a title may also be ``Question N``)?"""
        if key.endswith(".title"):
            return title_ok(text, self.folded)
        return _quote_ok(text, self.folded)

    def settle(self, key: str, a: str | None, b: str | None, *, check_verbatim: bool = True) -> str:
        """Settle one field; returns the text the set carries."""
        a_text, b_text = (a or ""), (b or "")
        has_a, has_b = bool(a_text.strip()), bool(b_text.strip())
        if not has_a and not has_b:
            self.fields.append(FieldOutcome(field=key, tier="empty", a=a, b=b))
            return ""
        if has_a != has_b:
            taken: Side = "A" if has_a else "B"
            text = a_text if has_a else b_text
            return self._accept(key, "single", taken, text, a, b, check_verbatim)
        if fold(a_text) == fold(b_text):
            # Prefer the text that is a quote of the source, A's when both are.
            if check_verbatim and not self.ok(key, a_text) and self.ok(key, b_text):
                return self._accept(key, "agreed", "B", b_text, a, b, check_verbatim)
            return self._accept(key, "agreed", "A", a_text, a, b, check_verbatim)
        return self._dispute(key, a_text, b_text, check_verbatim)

    def _accept(self, key: str, tier: str, taken: str, text: str, a, b, check_verbatim: bool) -> str:
        if check_verbatim and not self.ok(key, text):
            self.flag(key, "not_verbatim", f"route {taken}'s text is not a quote of the sheet", a, b)
            self.fields.append(FieldOutcome(field=key, tier="flagged", taken=taken, a=a, b=b))  # type: ignore[arg-type]
        else:
            self.fields.append(FieldOutcome(field=key, tier=tier, taken=taken, a=a, b=b))  # type: ignore[arg-type]
        return text

    def _dispute(self, key: str, a: str, b: str, check_verbatim: bool) -> str:
        self.disputed.append((key, a, b))
        verdict = self.verdicts.get(key)
        if verdict is None:
            reason = "routes disagree; not adjudicated" + ("" if self.adjudication_ran else " (no adjudication reply)")
            self.flag(key, "disputed", reason, a, b)
            # Until a person reads it, carry the text that is a quote of the sheet (A's if both are).
            take_b = check_verbatim and not self.ok(key, a) and self.ok(key, b)
            self.fields.append(FieldOutcome(field=key, tier="flagged", taken="B" if take_b else "A", a=a, b=b))
            return b if take_b else a
        why = f" ({verdict.reason})" if verdict.reason else ""
        if verdict.verdict in ("A", "B", "same"):
            taken: Side = "B" if verdict.verdict == "B" else "A"
            text = b if taken == "B" else a
            return self._accept(key, "adjudicated", taken, text, a, b, check_verbatim)
        if verdict.verdict == "source":
            passage = verdict.passage or ""
            if passage.strip() and self.ok(key, passage):
                self.fields.append(FieldOutcome(field=key, tier="adjudicated", taken="source", a=a, b=b))
                return passage
            self.flag(key, "not_verbatim", "adjudication's passage is not a quote of the sheet" + why, a, b)
            self.fields.append(FieldOutcome(field=key, tier="flagged", taken="A", a=a, b=b))
            return a
        self.flag(key, "disputed", "adjudication: needs a person" + why, a, b)
        self.fields.append(FieldOutcome(field=key, tier="flagged", taken="A", a=a, b=b))
        return a


def disputes(a: SheetSet | None, b: SheetSet | None) -> list[tuple[str, str, str]]:
    """The disputed fields as ``(field, a, b)``: both routes have text that differs after
    folding. These, and only these, go to the tier-2 adjudication call."""
    if a is None or b is None:
        return []
    settler = _Settler([], {}, adjudication_ran=False)
    _walk(settler, a, b)
    return settler.disputed


def _walk(s: _Settler, a: SheetSet | None, b: SheetSet | None) -> list[Question]:
    qa = list(a.root) if a is not None else []
    qb = list(b.root) if b is not None else []
    both = a is not None and b is not None
    out: list[Question] = []
    for qi in range(max(len(qa), len(qb))):
        x = qa[qi] if qi < len(qa) else None
        y = qb[qi] if qi < len(qb) else None
        if both and (x is None or y is None):
            only = "A" if y is None else "B"
            s.flag(str(PartKey(qi)), "structural", f"only route {only} found this question")
        title_key = field_key(qi, "title")
        title = s.settle(title_key, x.title if x else None, y.title if y else None)
        main = s.settle(field_key(qi, "main_text"), x.main_text if x else None, y.main_text if y else None)
        pa = x.normalised_parts() if x else []
        pb = y.normalised_parts() if y else []
        parts: list[Part] = []
        for pi in range(max(len(pa), len(pb))):
            u = pa[pi] if pi < len(pa) else None
            v = pb[pi] if pi < len(pb) else None
            if both and x is not None and y is not None and (u is None or v is None):
                only = "A" if v is None else "B"
                s.flag(str(PartKey(qi, pi)), "structural", f"only route {only} found this part")
            content = s.settle(field_key(qi, "content", pi), u.content if u else None, v.content if v else None)
            options = _settle_options(s, qi, pi, u.options if u else [], v.options if v else [])
            answer = s.settle(field_key(qi, "answer", pi), u.answer if u else None, v.answer if v else None)
            worked = s.settle(
                field_key(qi, "worked_solution", pi), u.worked_solution if u else None, v.worked_solution if v else None
            )
            correct = _settle_correct(s, qi, pi, u, v, options)
            parts.append(Part(content=content, options=options, answer=answer, worked_solution=worked,
                              correct=correct))
        out.append(Question(title=title, main_text=main, parts=parts))
    return out


def _settle_correct(s: _Settler, qi: int, pi: int, u: Part | None, v: Part | None, options: list[str]) -> list[int]:
    """The settled part's ``correct`` (the options the sheet marks right), from the route(s)
    that marked some and read as many options as were settled; a route whose options count
    differs says nothing about these options. Both routes marking, differently: flagged
    ``disputed`` and A's kept, as for a text. Indices outside ``options`` never survive."""
    said = [(side, sorted(set(p.correct))) for side, p in (("A", u), ("B", v))
            if p is not None and p.correct and len(p.options) == len(options)]
    said = [(side, c) for side, c in said if all(0 <= i < len(options) for i in c)]
    if not said:
        return []
    if len(said) == 2 and said[0][1] != said[1][1]:
        def named(c: list[int]) -> str:
            return "; ".join(options[i] for i in c)
        s.flag(field_key(qi, "correct", pi), "disputed",
               "the routes mark different options correct; route A's kept until a person reads it",
               named(said[0][1]), named(said[1][1]))
    return said[0][1]


def _settle_options(s: _Settler, qi: int, pi: int, a: list[str], b: list[str]) -> list[str]:
    if a and b and len(a) != len(b):
        s.flag(
            field_key(qi, "options", pi),
            "structural",
            f"route A found {len(a)} options, route B {len(b)}",
            "\n".join(a),
            "\n".join(b),
        )
    return [
        s.settle(field_key(qi, "options", pi, oi), a[oi] if oi < len(a) else None, b[oi] if oi < len(b) else None)
        for oi in range(max(len(a), len(b)))
    ]


def settle(
    a: SheetSet | None,
    b: SheetSet | None,
    sources: list[str],
    verdicts: list[Adjudication] | None = None,
) -> Settled:
    """Settle the set from route A's and route B's readings (either may be ``None``).

    ``sources`` are the markdown texts both routes read (questions, solutions);
    ``verdicts`` the tier-2 adjudication (``None``: no adjudication reply was had).
    Returns the settled set, one :class:`FieldOutcome` per field and the flags.
    """
    s = _Settler(sources, {v.field: v for v in (verdicts or [])}, adjudication_ran=verdicts is not None)
    questions = _walk(s, a, b)
    return Settled(questions=SheetSet(questions), fields=s.fields, flags=s.flags)


_DISPLAY = re.compile(r"\$\$(.*?)\$\$", re.S)
_LONE_MINUS = re.compile(r"^[ \t]*[-−][ \t]*$", re.M)


def stray_minus_flags(questions: SheetSet) -> list[Flag]:
    """``stray_minus`` flags for Mathpix markdown.

    Mathpix sometimes loses a term and leaves a minus sign behind: a display maths whose
    TeX begins or ends with ``-``, or a line holding only a minus (a list bullet with no
    text) beside a display maths. Apply only to Mathpix-converted markdown.
    """
    flags: list[Flag] = []
    for qi, q in enumerate(questions.root):
        fields = [(field_key(qi, "main_text"), q.main_text)]
        for pi, p in enumerate(q.parts):
            fields += [(field_key(qi, name, pi), getattr(p, name)) for name in ("content", "answer", "worked_solution")]
        for key, text in fields:
            if not text:
                continue
            reasons = []
            for m in _DISPLAY.finditer(text):
                tex = m.group(1).strip()
                if tex.startswith(("-", "−")):
                    reasons.append(f"display maths begins with a minus: {tex[:40]}")
                if tex.endswith(("-", "−")):
                    reasons.append(f"display maths ends with a minus: {tex[-40:]}")
            if _DISPLAY.search(text):
                for m in _LONE_MINUS.finditer(text):
                    line_no = text.count("\n", 0, m.start()) + 1
                    reasons.append(f"a line holding only a minus (line {line_no} of the field)")
            if reasons:
                flags.append(Flag(field=key, kind="stray_minus", reason="; ".join(reasons), a=text))
    return flags


def uncovered_flags(questions_md: str, settled: SheetSet) -> list[Flag]:
    """``uncovered`` flags: passages of the questions document in no field of the set
    (both routes missed them), sheet chrome and the markers a reader drops excepted, one
    flag per run of such lines (:func:`tasks.settle.coverage.uncovered_runs`): field
    ``source:LINE`` for one line, ``source:FIRST-LAST`` for a run, ``a`` its lines, the reason
    naming the question they sit in (the one whose text starts last before them). The runs
    before the first question, two or more, are one flag (``source:FIRST-LAST`` from the first
    run's first line to the last run's last): whether the set needs the text a sheet sets before
    its questions is one decision."""
    from schemas.sheet import iter_fields
    from tasks.settle.audit import question_at
    from tasks.settle.coverage import uncovered_runs

    texts = [text for _, text in iter_fields(settled) if text]
    flags = []
    runs = uncovered_runs(questions_md, texts)
    ahead = [r for r in runs if question_at(settled, questions_md, r[0]) is None]
    if len(ahead) >= 2:
        # the sheet's text before its first question (a course notebook's lecture sections and
        # worked example): one decision, whether the set needs it, so one flag for all its passages
        first, last = ahead[0][0], ahead[-1][1]
        lines = [line for _, _, ls in ahead for line in ls]
        flags.append(Flag(field=f"source:{first}-{last}", kind="uncovered", a="\n".join(lines), reason=(
            f"{len(ahead)} passages of the sheet before the first question ({len(lines)} lines between lines "
            f"{first} and {last}) are in no field: if the set needs them, add them to the field where they "
            "belong; keep leaves them out")))
        runs = [r for r in runs if r not in ahead]
    for first, last, lines in runs:
        where = f"source:{first}" if first == last else f"source:{first}-{last}"
        qi = question_at(settled, questions_md, first)
        sits = f"inside question {qi + 1}" if qi is not None else "before the first question"
        what = "this line of the sheet" if first == last else f"these {len(lines)} lines of the sheet"
        flags.append(Flag(field=where, kind="uncovered", a="\n".join(lines), reason=(
            f"{what} ({sits}) {'is' if first == last else 'are'} in no field: if the set needs them, add them "
            f"to the field where they belong; keep leaves them out")))
    return flags


def settle_document(
    a: SheetSet | None,
    b: SheetSet | None,
    questions_md: str,
    solutions_md: str | None,
    verdicts: list[Adjudication] | None,
    warnings: dict[str, list[ConversionWarning]],
    mathpix: bool,
) -> Settled:
    """Tiers 1–3 for one document: :func:`settle`, then the document-level flags
    (``conversion_loss`` on the field each content loss of the conversion sits in, ``stray_minus``
    when ``mathpix``, ``uncovered``)."""
    sources = [questions_md] + ([solutions_md] if solutions_md else [])
    settled = settle(a, b, sources, verdicts)
    extra: list[Flag] = []
    for role, ws in warnings.items():
        extra += conversion_loss_flags(role, ws, settled.questions)
    if mathpix:
        extra += stray_minus_flags(settled.questions)
    if len(settled.questions) == 0:
        extra.append(Flag(field="set", kind="structural",
                          reason="neither route read any question from the sheet: the set is empty"))
    else:
        extra += uncovered_flags(questions_md, settled.questions)
    return settled.model_copy(update={"flags": settled.flags + extra})


@stage("tiers", views={"sheet": lambda s: [s.texts(), s.mathpix, [w.model_dump() for ws in s.warnings().values() for w in ws]]})
def settle_task(a: RouteResult, b: RouteResult, sheet: SheetText, adjudication: AdjudicationResult) -> Settled:
    """:func:`settle_document` as a cached task, from both routes' results, the sheet and tier 2's
    verdicts, then the structure audit (:func:`tasks.settle.audit.audited`, one route or two).
    One task, not two: each costs Prefect some milliseconds, more than the audit's own work."""
    from tasks.settle.audit import audited

    settled = settle_document(a.questions, b.questions, sheet.questions.text,
                              sheet.solutions.text if sheet.solutions else None, adjudication.verdicts,
                              sheet.warnings(), sheet.mathpix)
    return audited(settled.model_copy(update={"flags": settled.flags + a.flags + b.flags}), sheet)
