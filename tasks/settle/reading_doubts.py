"""Structure doubts of the audit (:mod:`tasks.settle.audit`) that read the sheet's text beside
the set: what a reading can know of its own misreads with no second route to compare with.
Each is a ``structure`` flag on the question or field it concerns:

- **a heading inside a field** students see (main text, part content), outside code: the sheet
  opens a section there, so what follows may be a question or a part read into this field
  (not a heading deeper than the one opening the question: a section of the question itself);
- **answer blanks on several lines** of a part's content, or of the main text of a question
  with one part or none (each line ending in ``____`` or ``$\\underline{\\qquad}$``): parts
  left in the text, or several parts read as one;
- **a prompt read as a title**: a title that is a sentence (it ends with ``.``, ``?`` or
  ``!`` in the sheet, or holds a sentence break) of several words, or a title over a dozen
  words, or any title of a question holding no words outside code and maths;
- **solution text in no field**: lines of the solutions document (not restating the
  questions) that no field quotes, on the question whose solution marker they sit under
  (matched by number to the sheet's question marker), else on their lines;
- **a solution that restates its question**: :mod:`tasks.settle.restated_doubts`;
- **a shared stem left out**: text in no field under a heading naming a range of questions
  (``## Questions 1-3``), on the first question of the range;
- **one solution for several parts**: a solution heading inside a question of the sheet
  (``### Solution`` after its parts) whose text names no part, read onto one part alone (by
  position, the first): it may answer others, or several;
- **one answer for several parts in place**: a sheet named as its own solutions whose answer
  to a question of several parts comes after the last prompt alone (raised with the run's
  flags, as the next, since the name is no part of a cached stage);
- **a section read as a question**: a titled question with no number, no part and no
  solution, asking nothing, in a set whose other questions are answered
  (:func:`tasks.settle.section_doubts.section_flags`);
- **a solutions file read as the sheet**: the sheet's file name says it holds solutions,
  and no solution was read from it, so its answers may sit in the questions' text (one flag
  on each question).
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet, field_key
from tasks.read.restated import only_grading_note
from tasks.settle.coverage import field_texts, markers_removed, uncovered_runs
from tasks.settle.section_doubts import solved
from tasks.settle.markers import question_markers
from tasks.settle.source_lines import SourceLines, opened_by_marker, question_at, question_starts

KIND = "structure"

_HEADING = re.compile(r"^ {0,3}#{1,6}\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANK_END = re.compile(r"(?:(?:\\_){3,}|_{4,}|\\underline\{\\q?quad\}\s*\$)\s*\**\s*$")
_MATHS = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`", re.S)
_WORD = re.compile(r"[^\W\d_]{2,}")
_SENTENCE_BREAK = re.compile(r"[.?!]\s+[A-Z]")
_FOLD = re.compile(r"[\W_]+")
TITLE_WORDS = 12
"""A title with more words than this is a prompt, not a name."""
SENTENCE_WORDS = 4
"""A title that ends as a sentence ends is a prompt when it has at least this many words."""
KEY = 40
"""Folded characters of a solution's opening compared with its question (as the truth scorer)."""


def _outside_code(text: str) -> list[str]:
    out, fence = [], None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence:
            fence = None if m and m.group(1) == fence else fence
            continue
        if m:
            fence = m.group(1)
            continue
        out.append(line)
    return out


def _fold(text: str) -> str:
    return _FOLD.sub("", text.lower())


def _visible(questions: SheetSet):
    """``(question index, field key, text)`` of the fields students read below the title."""
    for qi, q in enumerate(questions.root):
        yield qi, field_key(qi, "main_text"), q.main_text
        for pi, p in enumerate(q.normalised_parts()):
            yield qi, field_key(qi, "content", pi), p.content


def _level(line: str) -> int:
    return len(line.strip()) - len(line.strip().lstrip("#"))


def own_levels(questions: SheetSet, questions_md: str) -> list[int | None]:
    """Per question, the level of the heading that opens it in the sheet (the last heading,
    outside code, between the previous question's first text and its own), else ``None``."""
    src = SourceLines(questions_md)
    code, fence = set(), None
    for i, line in enumerate(src.written):
        m = _FENCE.match(line)
        if fence:
            code.add(i)
            fence = None if m and m.group(1) == fence else fence
        elif m:
            code.add(i)
            fence = m.group(1)
    out: list[int | None] = []
    prev = -1
    for st in question_starts(questions, src):
        level = None
        if st is not None:
            for i in range(st - 1, prev, -1):
                if i not in code and _HEADING.match(src.written[i]):
                    level = _level(src.written[i])
                    break
            prev = st
        out.append(level)
    return out


def heading_flags(questions: SheetSet, questions_md: str | None = None) -> list[Flag]:
    """A heading of the sheet inside a main text or a part's content (code left alone). With
    the sheet (``questions_md``), a heading deeper than the one that opens the question (its
    ``### Modeling`` under ``## Problem 3``) is a section of that question, not flagged."""
    own = own_levels(questions, questions_md) if questions_md is not None else [None] * len(questions)
    flags = []
    for qi, key, text in _visible(questions):
        heads = [ln.strip() for ln in _outside_code(text) if _HEADING.match(ln)]
        if own[qi] is not None:
            heads = [h for h in heads if _level(h) <= own[qi]]
        if heads:
            shown = ", ".join(repr(h[:40]) for h in heads[:3]) + (" …" if len(heads) > 3 else "")
            flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                f"this field holds the sheet's heading{'s' if len(heads) > 1 else ''} {shown}: a new section of the "
                f"sheet starts there, so a question or part may be read into question {qi + 1}")))
    return flags


def blank_flags(questions: SheetSet) -> list[Flag]:
    """Several lines of one part's content, or of the main text of a question of one part or
    none, ending in an answer blank: answers of their own read as one text."""
    flags = []
    for qi, key, text in _visible(questions):
        if key.endswith(".main_text") and len(questions.root[qi].normalised_parts()) > 1:
            continue
        blanks = [ln for ln in _outside_code(text) if _BLANK_END.search(ln)]
        if len(blanks) >= 2:
            flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                f"{len(blanks)} lines of this field end in a blank to fill in: each may be a part of question "
                f"{qi + 1} with an answer of its own, read as one text")))
    return flags


def _words(text: str) -> int:
    return len(_WORD.findall(_MATHS.sub(" ", _CODE.sub(" ", text))))


def title_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A title that is a prompt (see the module)."""
    src = SourceLines(questions_md)
    flags = []
    for qi, q in enumerate(questions.root):
        title = q.title.strip()
        n = len(title.split())
        if not title:
            continue
        texts = [q.main_text] + [p.content for p in q.normalised_parts()]
        wordless = not any(_words(t) for t in texts)
        at = src.find(title)
        after = src.written[at].split(title[-20:], 1)[-1].lstrip("*_ ") if at is not None and title[-20:] in src.written[at] else ""
        sentence = title[-1:] in ".?!" or after[:1] in (".", "?", "!") or bool(_SENTENCE_BREAK.search(title))
        if wordless or n > TITLE_WORDS or (sentence and n >= SENTENCE_WORDS):
            why = ("the question holds no words outside code and maths" if wordless
                   else "it reads as a sentence, not a name")
            flags.append(Flag(field=field_key(qi, "title"), kind=KIND, a=q.title, reason=(
                f"question {qi + 1}'s title is its prompt? ({why}): a student may not see it as the question's text; "
                "check the title and the main text against the sheet")))
    return flags


def _question_numbered(questions: SheetSet, questions_md: str) -> dict[str, int]:
    """Question number (as the sheet prints it) → the question (0-based) its first marker opens."""
    markers = question_markers(questions_md)
    out: dict[str, int] = {}
    for k, qi in opened_by_marker(questions, questions_md, markers).items():
        if markers[k].number:
            out.setdefault(markers[k].number, qi)
    return out


_LABEL_WORDS = re.compile(r"^\W*(?:final\s+answers?|worked\s+solutions?|solutions?|answers?)\b\W*", re.I)
_IMAGE_ONLY = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?\s*$")
_IMAGE_ANY = re.compile(r"!\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?|`[^`\n]*`\{=html\}")
LOST_CHARS = 10
"""Folded characters a solutions line needs before it counts as lost text (a lone ``$x$`` or
a bare label is not a solution missing)."""


RESTATED_SHARE = 0.75
"""A solutions line whose words are this share or more words of the questions document restates
a prompt (perhaps reworded: ``both`` for ``all``), and is no solution lost."""


def lost_lines(solutions_md: str, questions_md: str, questions: SheetSet) -> list[tuple[int, str]]:
    """The lines of the solutions document that no field quotes (:func:`uncovered_runs`),
    ``(1-based line, line)``, less those that say nothing lost: a restatement of the questions
    document (its words, folded, are there, or most of its words are: :data:`RESTATED_SHARE`),
    text a field holds once a leading ``Answer:`` / ``Solution`` label is cut, a lone picture, a
    line of under :data:`LOST_CHARS` folded characters (pictures on a line left out: a file name
    is no text lost, nor is pandoc's raw HTML such as a key's ``<font>``), a passage that only
    says how answers were marked (a grader's note the reader sets aside:
    :func:`tasks.read.restated.only_grading_note`)."""
    asked = _fold(questions_md)
    asked_words = {w.lower() for w in _WORD.findall(questions_md)}
    held = _fold("\n".join(field_texts(questions)))
    written = solutions_md.splitlines()
    out = []
    for a, b, run in uncovered_runs(solutions_md, field_texts(questions)):
        if only_grading_note("\n\n".join(run)):
            continue
        for n in range(a, b + 1):
            line = written[n - 1]
            prose = _IMAGE_ANY.sub(" ", line)  # a picture's file name, raw HTML (``<font>``) is no text lost
            body = _fold(_LABEL_WORDS.sub("", markers_removed(prose).lstrip("> \t")))
            words = [w.lower() for w in _WORD.findall(prose)]
            again = bool(words) and sum(w in asked_words for w in words) >= RESTATED_SHARE * len(words)
            if len(body) < LOST_CHARS or _IMAGE_ONLY.match(line) or body in asked or body in held or again:
                continue
            out.append((n, line))
    return out


def _spans(numbers: list[int]) -> str:
    """``[3, 4, 5, 9]`` → ``3-5, 9``."""
    out: list[list[int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def solution_text_flags(questions: SheetSet, questions_md: str, solutions_md: str | None) -> list[Flag]:
    """Lines of the solutions document in no field (:func:`lost_lines`): one flag per question
    they answer, by the solution markers' numbers; under no marker, one ``uncovered`` flag on
    the lines (under a marker naming no question, the solution-number check says so)."""
    if not solutions_md:
        return []
    lost = lost_lines(solutions_md, questions_md, questions)
    if not lost:
        return []
    markers = question_markers(solutions_md, solutions=True)
    numbered = _question_numbered(questions, questions_md)
    by_question: dict[int, list[int]] = {}
    loose: list[tuple[int, str]] = []
    for n, line in lost:
        marker = next((m for m in reversed(markers) if m.line <= n), None)
        if marker is None:
            loose.append((n, line))
        elif (qi := numbered.get(marker.number)) is not None:
            by_question.setdefault(qi, []).append(n)
    flags = []
    if loose:
        first, last = loose[0][0], loose[-1][0]
        flags.append(Flag(field=f"solutions:{first}" if first == last else f"solutions:{first}-{last}",
                          kind="uncovered", a="\n".join(line for _, line in loose), reason=(
            f"lines {_spans([n for n, _ in loose])} of the solutions are in no field: a solution not read, or not "
            "paired with its question; keep leaves them out")))
    for qi, numbers in sorted(by_question.items()):
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"the solutions' text for question {qi + 1} (lines {_spans(numbers)} of the solutions) is in no field: "
            "its solution was not read, or not all of it")))
    ahead = [n for n, _ in loose if markers and n < markers[0].line]
    if ahead:
        # text before the solutions' first marker, in no field, while the questions before the one
        # that marker names have no solution: theirs, perhaps, not paired
        upto = numbered.get(markers[0].number)
        upto = 1 if upto is None or upto == 0 else upto
        for qi in range(min(upto, len(questions))):
            if qi not in by_question and not solved(questions.root[qi]):
                flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                    f"question {qi + 1} has no solution, and the solutions' text before their first marker (lines "
                    f"{_spans(ahead)}) is in no field: its solution, not paired?")))
    return flags


def solutions_name_flags(questions: SheetSet, name: str | None, solutions_read: bool) -> list[Flag]:
    """One flag per question when the sheet's file name says it holds solutions and no solution
    was read (no solutions document, no answer or worked solution in the set)."""
    from pathlib import Path

    from tasks.convert.pairing import is_solutions_name

    if not name or solutions_read or not is_solutions_name(Path(name)):
        return []
    if any(p.answer.strip() or p.worked_solution.strip() for q in questions.root for p in q.parts):
        return []
    return [Flag(field=f"q{qi + 1}", kind=KIND, reason=(
        f"the sheet's file name ({name}) says it holds solutions, and none was read: question {qi + 1}'s answers may "
        "sit in its text, where students see them")) for qi in range(len(questions))]


def inline_whole_flags(questions: SheetSet, name: str | None, solutions_read: bool) -> list[Flag]:
    """A sheet that holds its answers in place (its file name says solutions and no other
    solutions document was read), where of a question's two or more parts only the last holds
    an answer: the answer follows the last prompt and names no part, so it may answer several
    (one flag on the question)."""
    from pathlib import Path

    from tasks.convert.pairing import is_solutions_name

    if not name or solutions_read or not is_solutions_name(Path(name)):
        return []
    flags = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        solved = [bool(p.answer.strip() or p.worked_solution.strip()) for p in parts]
        if len(parts) >= 2 and solved[-1] and not any(solved[:-1]):
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the answer after question {qi + 1}'s last part names none of its {len(parts)} parts and is read as "
                "the last one's: it may answer several; a person must say which")))
    return flags


_SOLUTION_HEADING = re.compile(
    r"^ {0,3}#{1,6}\s+(?:(?:worked\s+)?solutions?|answers?)\b(?!\s*\d)|^ {0,3}#{1,6}\s.*\{[^}]*\.(?:solution|answer)\b", re.I)


def whole_solution_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A solution heading inside a question of the sheet (no number after it: the question's
    own), where of the question's two or more parts exactly one holds a solution: one
    solution naming none of its parts was read onto one by position, and may answer others or
    several (one flag on the question)."""
    flags, seen = [], set()
    in_code = False
    for i, line in enumerate(questions_md.splitlines()):
        if _FENCE.match(line):
            in_code = not in_code
        if in_code or not _SOLUTION_HEADING.match(line):
            continue
        qi = question_at(questions, questions_md, i + 1)
        if qi is None or qi in seen:
            continue
        parts = questions.root[qi].normalised_parts()
        solved = [k for k, p in enumerate(parts) if p.answer.strip() or p.worked_solution.strip()]
        if len(parts) >= 2 and len(solved) == 1:
            seen.add(qi)
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the solution under {line.strip()[:40]!r} names none of question {qi + 1}'s {len(parts)} parts and "
                f"is read as part {solved[0] + 1}'s alone: it may answer another, or several; a person must say which")))
    return flags


_RANGE_HEADING = re.compile(r"^ {0,3}#{1,6}\s+[^\W\d_]+\.?\s+(\d+)\s*[-\u2013\u2014]\s*(\d+)\b")
"""A group heading naming a range of questions (``## Questions 1-3``, ``### Problems 4–6``)."""


def shared_stem_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """Text in no field under a heading that names a range of questions, before the next
    heading: the stem those questions share, left out. One flag on the first question of the
    range (the question its number's marker opens, else the first question starting after it)."""
    written = questions_md.splitlines()
    lost = {a: (a, b) for a, b, _ in uncovered_runs(questions_md, field_texts(questions))}
    starts = question_starts(questions, SourceLines(questions_md))
    numbered = _question_numbered(questions, questions_md)
    flags = []
    for i, line in enumerate(written):
        m = _RANGE_HEADING.match(line)
        if not m:
            continue
        end = next((j for j in range(i + 1, len(written)) if _HEADING.match(written[j])), len(written))
        runs = [(a, b) for a, (_, b) in lost.items() if i + 1 < a <= end]
        if not runs:
            continue
        qi = numbered.get(m.group(1))
        if qi is None:
            qi = next((k for k, s in enumerate(starts) if s is not None and s + 1 > runs[0][1]), None)
        if qi is None:
            continue
        where = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)
        flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
            f"the text under {line.strip().lstrip('#').strip()!r} (lines {where}) is in no field: the stem these "
            f"questions share, left out of question {qi + 1}?")))
    return flags

