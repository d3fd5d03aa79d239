"""Doubts of the audit (:mod:`tasks.settle.audit`) about how the solutions were paired with the
questions, from what the sheet itself says, whatever its layout (issue 21: no misread without a
flag on its question). Each is a ``structure`` flag on the question it concerns:

- **a question left unanswered while solutions sit unpaired**: the set holds solutions the
  reading could not put on a question of their own — a part with no prompt that holds a
  solution (solutions paired by position past the question's own parts), or lines of the
  solutions document that no field quotes (after the solutions' first marker, when they have
  markers: their head answers no question) — and this question has no solution on any part,
  while at least one other question has: its solution may be among those, read onto another
  question or left out. One flag on each such question;
- **solutions numbered short of the questions after text that answers nothing**: the solutions
  document's numbered markers are one list's numbers, 1 to k, for at most half the questions, lines of it are in
  no field, and either some of those come before the first marker or the numbers start again at 1
  (a worked analysis in sections of its own, then a list of its steps or assumptions numbered 1
  to 3): pairing by those numbers may have put the
  list's items on questions they do not answer and left the analysis unread. One flag on every
  question (:func:`short_numbering_flags`);
- **a question answered in part while solutions sit unread**: some of its parts hold a
  solution and some (with a prompt) none, while lines of the solutions document after their
  first marker are in no field (:func:`partly_answered_flags`);
- **a solution of the sheet in no field**: lines of the questions document that open a
  solution (a ``<details>`` block whose summary names a solution, a line opening ``Solution``,
  ``Answer``, ``Lösung`` …, a ``solution`` div) and are in no field, on the question whose text
  they follow, unless each of its parts holds a solution: its solution was not read, or not
  all of it;
- **a solution of the sheet read as the question's text**: the lines after a solution opener of
  the sheet (up to its block's end, the next heading or opener; not a line the sheet holds
  elsewhere too, as a code stub's ``import``) quoted in a field students see
  (main text, a part's content): the solution read where the students see it (on the field);
- **a solution that only points elsewhere**: a short answer or worked solution that sends the
  student to a file or page outside the sheet (``Please refer to `ex2.jl` …``, ``see
  https://…``) and holds no maths: the sheet may give no solution there, so the set holds a
  pointer as one (on the field); so does a short solution that only says how answers were
  marked (``Credit was given as long as …``: a grader's note).
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.settle.reading_doubts import lost_lines
from tasks.settle.coverage import field_texts, uncovered_runs
from tasks.settle.key_doubts import key_list_ended, lead_line
from tasks.settle.markers import question_markers
from tasks.settle.source_lines import question_at
from tasks.settle.section_doubts import solved

KIND = "structure"


def _surplus(questions: SheetSet) -> list[str]:
    """``q2.p6``-style names of the parts with no prompt and no options that hold a solution (a
    question of one part asks in its main text: its part has a prompt when that has words)."""
    out = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        for pi, p in enumerate(parts):
            prompt = p.content.strip() or p.options or (len(parts) == 1 and q.main_text.strip())
            if not prompt and (p.answer.strip() or p.worked_solution.strip()):
                out.append(f"q{qi + 1}.p{pi + 1}")
    return out


def unpaired_flags(questions: SheetSet, questions_md: str, solutions_md: str | None) -> list[Flag]:
    """A question with no solution on any part, in a set where another question has one, while
    solutions sit unpaired (see the module): one flag on each such question; ``[]`` when no
    solution is unpaired. ``solutions_md`` is the solutions document (``None``: the sheet's own
    solutions only). Raises nothing."""
    qs = questions.root
    answered = [solved(q) for q in qs]
    if not any(answered) or all(answered):
        return []
    surplus = _surplus(questions)
    lost = lost_lines(solutions_md, questions_md, questions) if solutions_md else []
    markers = question_markers(solutions_md, solutions=True) if lost else []
    if markers:  # the solutions' own head (before their first marker) answers no question
        lost = [(n, line) for n, line in lost if n >= markers[0].line]
    if not surplus and not lost:
        return []
    where = []
    if surplus:
        shown = ", ".join(surplus[:4]) + (" …" if len(surplus) > 4 else "")
        where.append(f"solutions on parts with no prompt ({shown})")
    if lost:
        where.append(f"{len(lost)} line{'s' if len(lost) > 1 else ''} of the solutions in no field (from line "
                     f"{lost[0][0]})")
    said = " and ".join(where)
    return [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
        f"question {qi + 1} has no solution, while the set holds solutions paired with no question of their own "
        f"({said}): check the solutions for question {qi + 1}'s and put it on its parts, or keep it unanswered "
        "if the sheet gives none"))
        for qi in range(len(qs)) if not answered[qi]]


def short_numbering_flags(questions: SheetSet, questions_md: str, solutions_md: str | None) -> list[Flag]:
    """Every question, when the solutions document's markers number 1 to k for at most half the
    set's questions and lines of it are in no field, before its first marker or with numbers that
    start again at 1 (see the module); ``[]``
    otherwise, and with no solutions document. Raises nothing."""
    qs = questions.root
    if not solutions_md or len(qs) < 2:
        return []
    markers = question_markers(solutions_md, solutions=True)
    numbers = {m.number for m in markers}
    # the numbers one list would print, 1 to k, for at most half the questions
    if not markers or numbers != {str(n) for n in range(1, len(numbers) + 1)} or 2 * len(numbers) > len(qs):
        return []
    lost = lost_lines(solutions_md, questions_md, questions)
    restarts = any(m.number == "1" for m in markers[1:])
    if not lost or not (restarts or lost[0][0] < markers[0].line):
        return []
    said = (f"the solutions number {len(numbers)} answer{'s' if len(numbers) > 1 else ''} (from line "
            f"{markers[0].line}{', starting again at 1' if restarts else ''}) for {len(qs)} questions, and "
            f"{len(lost)} line{'s' if len(lost) > 1 else ''} of them are in no field (from line {lost[0][0]})")
    out = []
    for qi, q in enumerate(qs):
        if solved(q):
            why = (f"question {qi + 1}'s solution was paired by number, but {said}: those numbers may count "
                   "something else (steps, assumptions); check that it answers question " f"{qi + 1}")
        else:
            why = (f"question {qi + 1} has no solution, while {said}: its solution may be among those lines")
        out.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=why))
    return out


def partly_answered_flags(questions: SheetSet, questions_md: str, solutions_md: str | None) -> list[Flag]:
    """A question some of whose parts have a solution and some (with a prompt) none, while lines of
    the solutions document after its first marker are in no field: one flag on each such question
    (the missing parts' solutions among the lines left unread?). ``[]`` with no solutions
    document or no line left unread. Raises nothing."""
    if not solutions_md:
        return []
    partly = []
    for qi, q in enumerate(questions.root):
        parts = [p for p in q.normalised_parts() if p.content.strip()]
        have = [bool(p.answer.strip() or p.worked_solution.strip() or p.correct) for p in parts]
        if len(parts) >= 2 and any(have) and not all(have):
            partly.append((qi, [i + 1 for i, h in enumerate(have) if not h]))
    if not partly:
        return []
    lost = lost_lines(solutions_md, questions_md, questions)
    markers = question_markers(solutions_md, solutions=True) if lost else []
    if markers:
        lost = [(n, line) for n, line in lost if n >= markers[0].line]
    if not lost:
        return []
    return [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
        f"part{'s' if len(none) > 1 else ''} {', '.join(map(str, none))} of question {qi + 1} "
        f"{'have' if len(none) > 1 else 'has'} no solution while its other parts have one, and {len(lost)} "
        f"line{'s' if len(lost) > 1 else ''} of the solutions (from line {lost[0][0]}) are in no field: "
        "a solution left unread? Check the solutions and put it on its part, or keep it unanswered"))
        for qi, none in partly]


_WORDS = r"(?:solutions?|answers?|worked\s+solutions?|lösung(?:en)?|antwort(?:en)?|soluci[oó]n(?:es)?|r[ée]ponses?|corrig[ée]s?)"
_OPENER = re.compile(
    r"<summary\b[^>]*>[^<]*\b" + _WORDS + r"\b"                       # <details><summary>Lösung</summary>
    r"|^\W{0,4}(?!answer\s+[a-z][^:\n]*$)" + _WORDS + r"\s*(?:\*\*|__)?\s*[:.]?(?:\*\*|__)?(?:\s|$)"  # Solution: / **Answer.**
    r"|^\s*:{3,}\s*\{?[^}\n]*\.?(?:solution|answer)\b",                 # ::: {.solution}
    re.I)
"""A line that opens a solution; ``Answer`` running on into words with no colon or bold
(``Answer review questions 7.1 and 7.2``) asks for an answer, it opens none (``Answers to the
questions above:`` opens a key)."""
_TAG = re.compile(r"<[^>]*>|\{[^}]*\}")
LOST_CHARS = 10
"""Letters and digits a run needs besides its opener to be a solution lost."""
BEFORE = 2
"""Lines before a run of lines in no field looked at for its opener (a ``<details>`` line that is
chrome to the coverage count)."""


def _all_answered(q) -> bool:
    parts = q.normalised_parts() or list(q.parts)
    return bool(parts) and all(p.answer.strip() or p.worked_solution.strip() or p.correct for p in parts)


def unread_solution_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """Lines of the questions document in no field that open a solution (see the module), on the
    question whose text starts last before them: one flag per question. Raises nothing."""
    written = questions_md.splitlines()
    flags, seen = [], set()
    for a, b, run in uncovered_runs(questions_md, field_texts(questions)):
        lines = written[max(0, a - 1 - BEFORE):b]
        opener = next((ln.strip() for ln in lines if _OPENER.search(ln)), None)
        # the solution's own text is lost, not only its opener (``Lösung`` in no field, the rest read)
        body = "".join(_TAG.sub(" ", ln) for ln in run if not _OPENER.search(ln))
        if len(re.sub(r"\W+", "", body)) < LOST_CHARS:
            continue
        qi = question_at(questions, questions_md, a) if opener else None
        if qi is None or qi in seen or _all_answered(questions.root[qi]):
            continue  # (an answer read another way, a key's "True" as the option marked right, is read)
        seen.add(qi)
        opener = _TAG.sub(" ", opener).strip() or opener
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"lines {a}-{b} of the sheet, after question {qi + 1}'s text, open a solution ({opener[:50]!r}) and are in "
            f"no field: question {qi + 1}'s solution was not read, or not all of it; check its parts' solutions "
            "against the sheet")))
    return flags


_REFERS = re.compile(r"\b(?:refer\s+to|see|look\s+at|voir|siehe|véase|consult)\b", re.I)
_ELSEWHERE = re.compile(r"https?://|\b[\w-]+\.(?:jl|py|m|ipynb|r|rmd|c|cpp|f90|pdf|txt|csv|mat|nb|xlsx?)\b", re.I)
POINTER_WORDS = 40
"""A solution of more words than this says more than where to look."""


_GRADING = re.compile(r"\b(?:credit (?:was|is|will be) (?:given|awarded)|full (?:credit|marks)|marks? (?:was|were|are|is) "
                      r"(?:given|awarded)|points? (?:was|were|are|is) (?:given|awarded)|graded (?:on|for|as)|"
                      r"grading (?:note|rubric)|rubric)\b", re.I)
"""A grader's note (``Credit was given as long as …``, ``Full marks for …``): how answers were
marked, not an answer."""


def referral_flags(questions: SheetSet) -> list[Flag]:
    """A short solution with no maths that sends the student to a file or a page outside the
    sheet, or that only says how answers were marked (a grader's note: :data:`_GRADING`; see the
    module); one flag on each such field. Raises nothing."""
    flags = []
    for qi, q in enumerate(questions.root):
        for pi, p in enumerate(q.normalised_parts()):
            for name in ("answer", "worked_solution"):
                text = getattr(p, name).strip()
                if not text or "$" in text or len(text.split()) > POINTER_WORDS:
                    continue
                if _REFERS.search(text) and _ELSEWHERE.search(text):
                    flags.append(Flag(field=field_key(qi, name, pi), kind=KIND, a=text, reason=(
                        f"this solution only points to {_ELSEWHERE.search(text).group(0)!r}, outside the sheet: the "
                        "sheet may give no solution here; keep it if the pointer is what students should see, else "
                        "empty the field")))
                elif _GRADING.search(text) and "```" not in text:
                    flags.append(Flag(field=field_key(qi, name, pi), kind=KIND, a=text, reason=(
                        f"this solution says how answers were marked ({_GRADING.search(text).group(0)!r}), not what "
                        "the answer is: the sheet may give no solution here; keep it if students should see it, "
                        "else empty the field")))
    return flags


_CLOSE = re.compile(r"^\s*(?:</details>|:{3,}\s*$|#{1,6}\s)", re.I)
SHOWN_CHARS = 20
"""Folded characters a line after a solution opener needs before its being in a field counts."""


def _fold(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def shown_solution_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A field students see that quotes a line of a solution block of the sheet (see the
    module): one flag per field, naming the opener's line. Raises nothing."""
    written = questions_md.splitlines()
    visible = [(field_key(qi, "main_text"), _fold(q.main_text)) for qi, q in enumerate(questions.root)]
    visible += [(field_key(qi, "content", pi), _fold(p.content)) for qi, q in enumerate(questions.root)
                for pi, p in enumerate(q.normalised_parts())]
    counts: dict[str, int] = {}
    for line in written:
        counts[_fold(_TAG.sub(" ", line))] = counts.get(_fold(_TAG.sub(" ", line)), 0) + 1
    flags, seen = [], set()
    for i, line in enumerate(written):
        if not _OPENER.search(line) or _TAG.sub(" ", line).strip().startswith(("#",)):
            continue
        in_code, keyed, listed = False, lead_line(line), False
        for later in written[i + 1:]:
            if keyed:  # (a key's lead-in heads its list of answers only)
                ended, listed = key_list_ended(later, listed)
                if ended:
                    break
            if re.match(r"^\s*(?:```|~~~)", later):
                in_code = not in_code
            elif not in_code and (_CLOSE.match(later) or _OPENER.search(later)):
                break
            key = _fold(_TAG.sub(" ", re.sub(r"^\d+[.)]\s+", "", later) if keyed else later))  # (an answer's number)
            if len(key) < SHOWN_CHARS or counts.get(key, 0) > 1:
                continue  # (a line the sheet also holds elsewhere, a stub's import, says nothing)
            field = next((f for f, text in visible if key in text), None)
            if field and field not in seen:
                seen.add(field)
                opener = _TAG.sub(" ", line).strip() or line.strip()
                flags.append(Flag(field=field, kind=KIND, reason=(
                    f"this field students see holds the sheet's solution under {opener[:40]!r} (line {i + 1}): the "
                    "solution read into the question's text? move it to the part's solution")))
                break
    return flags
