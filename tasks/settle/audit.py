"""The structure audit (issue 10, item 5): does the settled set's structure fit the sheet?

Runs after the tiers in every run, one route or two, and reads only the settled set and
the markdown both routes read, so it catches a misread that no second route cross-checked.
Each doubt is a flag of kind ``structure`` on the question, part or field it concerns
(``q2``, ``q2.p3``, ``q2.p3.content``) or, when it concerns no question of the set, on the
sheet (``set``, ``source:LINE``, ``solutions:LINE``); the doubts on one field are one flag,
their reasons joined:

- **question markers** (the contract's: a heading ``## Question 3`` / ``### 2) Title``, a
  bold ``**Q1.**`` opening a paragraph, else a top-level numbered item ``1.``) that skip,
  repeat or run backwards (a restart at 1 is a new group: topic groups); a number of
  markers different from the number of questions in the set (on ``set``, only when no flag
  below names where they differ); a marker no question of the
  set starts under (its text read into the question before it, or lost); two questions
  starting under one marker (one question read as two); a question starting before the
  first marker (chrome read as a question);
- **an ambiguous layout**: numbered lists restarting at 1 after paragraphs, read as the
  parts of the paragraph before them (they may be questions: the sheet does not say);
- **part labels** (``(a)``, ``b)``, ``c.``, ``(iv)``, ``(2)`` opening the line a part's
  text starts on) that skip, repeat, restart or run backwards inside a question;
- **parts left in the main text**: a question of one part or none whose main text has
  lines opening ``(a)``, ``(b)`` … (or ``**(a)**``, ``1.``, ``(i)``) in order, not after a
  line ending in a colon;
- **empty** parts: a part with no content and no options in a question of several parts,
  a question with no text at all (a field holding only markup is flagged as markup);
- **solution text in a student-visible field** (title, main text, part content, options):
  a line opening ``Solution:``, ``Answer:``, ``Final answer:``, ``**Solution 2**``, a
  ``::: solution`` fence, ``<div class="answer">``, ``\\begin{solution}``;
- **markup in any field** that the platform does not render (``notes/CONTRACT.md``, the
  last paragraph): a ``:::`` fence, an attribute ``{.class}`` / ``{#id}``, ``<!-- -->``, raw
  HTML tags, an internal link ``[…](#label)``, pandoc's ``^sup^`` / ``~sub~``, a LaTeX
  environment other than the maths ones KaTeX renders;
- **a solution block emptied by the conversion** (``::: {.solution}`` holding nothing: a
  drawing or an environment pandoc skips), on the question it follows;
- **parts, options or questions in the wrong place** (:mod:`tasks.settle.doubts`): part labels
  inside a display equation or after a part's first line, check boxes left in the text, a part
  label as a question's title;
- **solutions numbered for no question**: a solutions document whose markers
  (``Solution 4``, ``**Answer 2.**``, ``## Question 3``) name a number the questions
  document does not (left out unless route B's pairing already said so).

Where a question starts is found by quoting: its first text is looked up in the markdown
(markers cut as coverage cuts them, :func:`tasks.settle.coverage.markers_removed`), each
question after the one before it. A question whose text is not found is left out of the
marker checks rather than guessed.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.sheet import SheetSet, field_key
from schemas.tiers import Settled
from tasks.settle.coverage import PIECES, line_content, markers_removed
from tasks.settle.doubts import doubt_flags
from tasks.settle.fold import fold_whitespace
from tasks.settle.markers import (
    LABEL,
    label_form,
    label_index,
    numbers_doubtful,
    question_markers,
    restarting_lists,
)

KIND = "structure"

_SOLUTION_MARK = re.compile(
    r"^\s*(?:(?:\*\*|__)?\s*(?:final\s+answers?|worked\s+solutions?|solutions?|answers?)\s*(?:\d+[a-z]?)?\s*[:.]?\s*(?:\*\*|__)\s*[:.]?"
    r"|(?:final\s+answers?|worked\s+solutions?|solutions?|answers?)\s*(?:\d+[a-z]?)?\s*:"
    r"|:::+\s*\{?\s*\.?(?:solution|answer)s?\b"
    r"|<div[^>]*class\s*=\s*[\"'][^\"']*\b(?:answer|solution)\b"
    r"|\\begin\{(?:solution|answer)\})",
    re.I,
)
_KATEX_ENVIRONMENTS = ("aligned", "array", "cases", "matrix", "pmatrix", "bmatrix", "vmatrix", "Bmatrix", "Vmatrix",
                       "gathered", "split", "align", "align*", "equation", "equation*", "gather", "gather*", "smallmatrix",
                       "darray", "dcases", "rcases", "alignat", "alignat*", "CD", "subarray")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$", re.S)
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]+`", re.S)
_MARKUP = (
    (re.compile(r"^\s*:::", re.M), "a ::: fence"),
    (re.compile(r"\{\s*[.#][A-Za-z][^{}]*\}"), "a {.class} attribute"),
    (re.compile(r"<!--.*?-->", re.S), "an HTML comment"),
    (re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s+[^<>]*)?/?>"), "an HTML tag"),
    (re.compile(r"\]\(#[^)]*\)"), "an internal link"),
    (re.compile(r"(?<![\\\w^])\^[^\s^$]+\^(?!\w)"), "a ^superscript^"),
    (re.compile(r"(?<![\\\w~])~[^\s~$]+~(?!\w)"), "a ~subscript~"),
)
_ENVIRONMENT = re.compile(r"\\begin\{([A-Za-z*]+)\}")
_CODE_FENCE = re.compile(r"^(?:`{3,}|~{3,})\s*\{?[\w.+#-]*\}?$")


class _Source:
    """A document's lines, each as coverage reads it (markers cut, list marker and label
    stripped, whitespace folded), for finding where a field's text starts."""

    def __init__(self, markdown: str):
        self.written = markdown.splitlines()
        cut = markers_removed("\n".join(self.written)).split("\n")
        self.lines = [fold_whitespace(line_content(c).replace(PIECES, " ")) for c in cut]

    def find(self, text: str, start: int = 0) -> int | None:
        """The 0-based index of the first line at or after ``start`` whose content holds
        the first line of ``text`` (a reader cuts fields at line boundaries); ``None`` when
        there is none."""
        first = ""
        for line in markers_removed(text).splitlines():
            first = fold_whitespace(line_content(line).replace(PIECES, " "))
            if first and first != "$$" and not _CODE_FENCE.match(first):
                break
        if not first:
            return None
        key = first[:80]
        for i in range(start, len(self.lines)):
            if self.lines[i] and key in self.lines[i]:
                return i
        return None

    def label(self, i: int) -> str | None:
        """The part label opening line ``i`` as written, or ``None``."""
        m = LABEL.match(self.written[i])
        return (m.group("p") or m.group("c")) if m else None


def _starts(questions: SheetSet, src: _Source) -> list[int | None]:
    """Where each question's first text starts in the source (0-based line), in order."""
    out: list[int | None] = []
    at = 0
    for q in questions.root:
        texts = [q.main_text] + [t for p in q.parts for t in (p.content, *p.options)]
        pos = None
        for t in texts:
            if t.strip():
                pos = src.find(t, at)
                if pos is not None:
                    break
        out.append(pos)
        if pos is not None:
            at = pos + 1  # the next question starts further on (two may open alike)
    return out


def question_at(questions: SheetSet, questions_md: str, line: int) -> int | None:
    """The question (0-based) whose text starts last at or before 1-based ``line`` of the
    questions document, ``None`` when the line comes before every question's text."""
    best = None
    for qi, st in enumerate(_starts(questions, _Source(questions_md))):
        if st is not None and st + 1 <= line:
            best = qi
    return best


def _at_markers(starts: list[int | None], markers: list, questions: SheetSet, src: _Source) -> list[int | None]:
    """``starts`` (0-based lines, :func:`_starts`) moved, for the marker checks, to the first
    question marker inside a question's text when the question starts with the set-up before
    its marker (a scenario, a group's stem under ``## Questions 1-3``): its text starts before
    any marker, or under a marker the question before it opened, and goes on past a marker
    before the next question starts (it quotes a line at or after the marker); that marker
    is where it opens. Any other question keeps its start (chrome read as a question, one
    question read as two)."""
    out = list(starts)
    known = [(qi, st) for qi, st in enumerate(starts) if st is not None]
    previous = None
    for k, (qi, st) in enumerate(known):
        end = known[k + 1][1] if k + 1 < len(known) else len(src.lines)
        before = [m.line - 1 for m in markers if m.line - 1 <= st]
        taken = not before or (previous is not None and previous >= before[-1])
        if taken:
            text = _folded(questions.root[qi])
            # a marker the question's text reaches: a line of it at or after the marker
            inside = [m.line - 1 for m in markers if st < m.line - 1 < end
                      and any(src.lines[i] and src.lines[i] in text for i in range(m.line - 1, end))]
            if inside:
                out[qi] = inside[0]
        previous = out[qi]
    return out


def _folded(q) -> str:
    """A question's texts read as :class:`_Source` reads the sheet's lines, one per line."""
    texts = [q.title, q.main_text] + [t for p in q.parts for t in (p.content, *p.options)]
    cut = markers_removed("\n".join(t for t in texts if t)).split("\n")
    return "\n".join(fold_whitespace(line_content(c).replace(PIECES, " ")) for c in cut)


def marker_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """The question-marker checks of the module (numbers, count, questions per marker)."""
    flags: list[Flag] = []
    markers = question_markers(questions_md)
    if not markers:
        return flags
    src = _Source(questions_md)
    starts = _at_markers(_starts(questions, src), markers, questions, src)

    def owner(line: int) -> int | None:
        """The question (0-based) whose text starts last at or before 1-based ``line``."""
        best = None
        for qi, s in enumerate(starts):
            if s is not None and s + 1 <= line:
                best = qi
        return best

    under: dict[int, list[int]] = {}
    for qi, s in enumerate(starts):
        if s is None:
            continue
        before = [k for k, m in enumerate(markers) if m.line <= s + 1]
        if not before:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"question {qi + 1} starts (line {s + 1}) before the sheet's first question marker "
                f"({markers[0].text!r}, line {markers[0].line}): chrome read as a question?")))
            continue
        under.setdefault(before[-1], []).append(qi)
    for k, qis in under.items():
        for qi in qis[1:]:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"questions {qis[0] + 1} and {qi + 1} both start under the marker {markers[k].text!r} "
                f"(line {markers[k].line}): one question read as two?")))
    if any(s is not None for s in starts):
        for k, m in enumerate(markers):
            if k in under:
                continue
            qi = owner(m.line)
            where = f"q{qi + 1}" if qi is not None else f"source:{m.line}"
            into = f"it was read into question {qi + 1}, or lost" if qi is not None else "its text is in no question"
            flags.append(Flag(field=where, kind=KIND, reason=(
                f"the sheet's question marker {m.text!r} (line {m.line}) opens no question of the set: {into}")))
    for m, why in numbers_doubtful(markers):
        qi = owner(m.line)
        flags.append(Flag(field=f"q{qi + 1}" if qi is not None else f"source:{m.line}", kind=KIND, reason=(
            f"the sheet's question numbering {why} at {m.text!r} (line {m.line}): a question lost or misnumbered?")))
    if len(markers) != len(questions) and not flags:  # else the flags above name where they differ
        flags.append(Flag(field="set", kind=KIND, reason=(
            f"the sheet has {len(markers)} question markers and the set {len(questions)} questions")))
    return flags


def layout_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """In the paragraph layout (:func:`restarting_lists`), each question whose parts came
    from a numbered list restarting at 1 (its first part the list's first item): whether
    those items are its parts or questions of their own, the sheet does not say, so a
    person reads it."""
    lists = restarting_lists(questions_md)
    if not lists:
        return []
    src = _Source(questions_md)
    starts = _starts(questions, src)
    flags = []
    for items in lists:
        owner = None
        for qi, st in enumerate(starts):
            if st is not None and st + 1 <= items[0].line:
                owner = qi
        if owner is None or len(questions.root[owner].normalised_parts()) < 2:
            continue
        # read as parts only when the question's first part is the list's first item (a
        # reading that took each item as a question of its own has other parts, if any)
        first = next((p.content for p in questions.root[owner].normalised_parts() if p.content.strip()), "")
        if src.find(first, starts[owner] or 0) != items[0].line - 1:
            continue
        flags.append(Flag(field=f"q{owner + 1}", kind=KIND, reason=(
            f"the numbered list at line {items[0].line} ({len(items)} items) restarts at 1 after a paragraph and was "
            f"read as the parts of question {owner + 1}: the sheet does not say whether its items are parts or "
            f"questions")))
    return flags


def part_label_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """Part labels that skip, repeat, restart or run backwards inside a question (the label
    opening the first source line of each part's text that opens with one)."""
    flags: list[Flag] = []
    src = _Source(questions_md)
    starts = _starts(questions, src)
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        if len(parts) < 2:
            continue
        at = starts[qi] or 0
        labels: list[str] = []
        for p in parts:
            label = None
            for line in (p.content or "").splitlines():
                if not line.strip():
                    continue
                i = src.find(line, at)
                if i is None:
                    continue
                at = i
                label = src.label(i)
                if label:
                    break
            if label is None:
                break
            labels.append(label)
        if len(labels) < len(parts):
            continue
        form = label_form(labels)
        if form is None:
            continue
        idx = [label_index(lb, form) for lb in labels]
        if None in idx:
            continue
        for pi in range(1, len(idx)):
            a, b = idx[pi - 1], idx[pi]
            if b == a + 1:
                continue
            if b == a:
                why = f"repeats ({labels[pi]})"
            elif b == 1:
                why = f"restarts at ({labels[pi]})"
            elif b > a:
                why = f"skips from ({labels[pi - 1]}) to ({labels[pi]})"
            else:
                why = f"runs back from ({labels[pi - 1]}) to ({labels[pi]})"
            flags.append(Flag(field=f"q{qi + 1}.p{pi + 1}", kind=KIND, reason=(
                f"part labels of question {qi + 1} {why}: a part lost, split or taken from elsewhere?")))
    return flags


_TEXT_LABEL = re.compile(r"^\s*(?:\*\*|__)?\s*(?:\\?\((?P<p>[a-z]{1,4}|\d{1,2})\\?\)|(?P<c>[a-z]{1,4}|\d{1,2})[.)])\s*(?:\*\*|__)?(?=[\s\u00a0]|$)")
_LINE_END_TAGS = re.compile(r"(?:\s*<[^>$]*>)+\s*$")


def labels_in_text(text: str) -> list[str]:
    """The part labels opening paragraphs or lines of ``text`` (``(a)``, ``**(b)**``, ``c)``,
    ``1.``, ``(iv)``) that run in order from the first (``a``, ``i`` or ``1``), outside
    display maths; a run after a line ending in a colon (conditions, cases) is not counted.
    ``[]`` when fewer than two such labels run."""
    found: list[str] = []
    previous = ""
    display = False
    for line in text.splitlines():
        if line.count("$$") % 2 == 1:
            display = not display
        m = None if display else _TEXT_LABEL.match(line)
        if m:
            label = m.group("p") or m.group("c")
            if not found and _LINE_END_TAGS.sub("", previous).rstrip().endswith(":"):
                return []
            found.append(label)
        if line.strip():
            previous = line
    form = label_form(found) if len(found) >= 2 else None
    if form is None:
        return []
    idx = [label_index(lb, form) for lb in found]
    if idx[0] != 1 or any(b != a + 1 for a, b in zip(idx, idx[1:])):
        return []
    return found


def _stripped(text: str) -> str:
    """``text`` without maths and code spans (where markup-like text is maths or code)."""
    return _MATH.sub(" ", _CODE.sub(" ", text))


def _markup(text: str) -> str | None:
    """What markup the platform does not render ``text`` holds, or ``None``."""
    plain = _stripped(text)
    for pattern, what in _MARKUP:
        if pattern.search(plain):
            return what
    for env in _ENVIRONMENT.findall(plain):
        if env not in _KATEX_ENVIRONMENTS:
            return f"a LaTeX environment {env}"
    return None


def field_flags(questions: SheetSet) -> list[Flag]:
    """Empty parts and questions, solution text in student-visible fields, markup in any
    field (see the module)."""
    flags: list[Flag] = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        visible = [(field_key(qi, "title"), q.title), (field_key(qi, "main_text"), q.main_text)]
        for pi, p in enumerate(parts):
            visible.append((field_key(qi, "content", pi), p.content))
            visible += [(field_key(qi, "options", pi, oi), o) for oi, o in enumerate(p.options)]
        hidden = [(field_key(qi, name, pi), getattr(p, name)) for pi, p in enumerate(parts)
                  for name in ("answer", "worked_solution")]
        if not q.main_text.strip() and not any(p.content.strip() or p.options for p in parts):
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=f"question {qi + 1} has no text a student reads"))
        if len(parts) > 1:
            for pi, p in enumerate(parts):
                if not p.content.strip() and not p.options:
                    flags.append(Flag(field=field_key(qi, "content", pi), kind=KIND, reason=(
                        f"part {pi + 1} of question {qi + 1} has no content"
                        + (" but a solution: a solution paired with a part the sheet does not have?"
                           if (p.answer.strip() or p.worked_solution.strip()) else ""))))
        labels = labels_in_text(q.main_text) if len(parts) <= 1 else []
        if labels:
            flags.append(Flag(field=field_key(qi, "main_text"), kind=KIND, a=q.main_text, reason=(
                f"the main text of question {qi + 1} holds part labels "
                f"{', '.join('(' + lb + ')' for lb in labels)}: parts not read as parts?")))
        for key, text in visible:
            if not text:
                continue
            for line in text.splitlines():
                if _SOLUTION_MARK.match(line):
                    flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                        f"solution text in a field students see: {line.strip()[:60]!r}")))
                    break
        for key, text in visible + hidden:
            if not text:
                continue
            what = _markup(text)
            if what:
                flags.append(Flag(field=key, kind=KIND, a=text, reason=(
                    f"{what} left in the field: the platform shows it as text")))
    return flags


_SOLUTION_FENCE = re.compile(r"^\s*:::+\s*\{?\s*\.?(?:solution|answer)s?\b[^\n]*$", re.I)
_FENCE_CLOSE = re.compile(r"^\s*:::+\s*$")


def empty_solution_flags(questions: SheetSet, questions_md: str) -> list[Flag]:
    """A solution block of the sheet (``::: {.solution}``) that holds nothing once
    converted: what it held (a drawing, an environment pandoc skips) was lost, so the
    question it belongs to has a solution the set cannot give. One flag on that question
    (the one whose text starts last before the block), else on the block's line."""
    lines = questions_md.splitlines()
    empty: list[int] = []
    for i, line in enumerate(lines):
        if not _SOLUTION_FENCE.match(line):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and _FENCE_CLOSE.match(lines[j]):
            empty.append(i + 1)
    if not empty:
        return []
    starts = _starts(questions, _Source(questions_md))
    flags: list[Flag] = []
    for line in empty:
        qi = max((k for k, st in enumerate(starts) if st is not None and st + 1 <= line), default=None)
        flags.append(Flag(field=f"q{qi + 1}" if qi is not None else f"source:{line}", kind=KIND, reason=(
            f"the sheet's solution block at line {line} is empty once converted (its content was lost): "
            "a solution the set does not give")))
    return flags


def solution_number_flags(questions_md: str, solutions_md: str | None, known: list[Flag]) -> list[Flag]:
    """A solutions document's numbers that name no question marker of the questions
    document (both numbered), unless a flag in ``known`` already names that solution."""
    if not solutions_md:
        return []
    q_numbers = {m.number for m in question_markers(questions_md)}
    s_markers = question_markers(solutions_md, solutions=True)
    if not q_numbers or not s_markers:
        return []
    said = " ".join(f.reason for f in known if f.field == "solutions")
    return [Flag(field=f"solutions:{m.line}", kind=KIND, a=m.text, reason=(
                f"solution {m.number} (line {m.line} of the solutions) matches no question number of the sheet"))
            for m in s_markers if m.number not in q_numbers and f"solution {m.number} " not in said]


def audit(questions: SheetSet, questions_md: str, solutions_md: str | None = None,
          known: list[Flag] | None = None) -> list[Flag]:
    """Every ``structure`` flag of the settled set ``questions`` against the markdown both
    routes read (``questions_md``; ``solutions_md`` or ``None``): see the module. ``known``
    are the flags already raised (a doubt route B's pairing raised is not raised twice).
    Returns the flags in the order of the checks; raises nothing."""
    if len(questions) == 0:
        return []  # the tiers flag an empty set already
    return merged(marker_flags(questions, questions_md) + layout_flags(questions, questions_md)
                  + part_label_flags(questions, questions_md)
                  + field_flags(questions) + doubt_flags(questions) + empty_solution_flags(questions, questions_md)
                  + solution_number_flags(questions_md, solutions_md, known or []))


def merged(flags: list[Flag]) -> list[Flag]:
    """One flag per field, in the order fields were first flagged: the reasons of the
    flags on one field joined with ``; `` (a person reads a field once), ``a`` the first given."""
    by_field: dict[str, list[Flag]] = {}
    for f in flags:
        by_field.setdefault(f.field, []).append(f)
    return [fs[0] if len(fs) == 1 else fs[0].model_copy(update={
                "reason": "; ".join(dict.fromkeys(f.reason for f in fs)),
                "a": next((f.a for f in fs if f.a), None)})
            for fs in by_field.values()]


def audited(settled: Settled, sheet: SheetText) -> Settled:
    """``settled`` with the :func:`audit` flags added after its own."""
    flags = audit(settled.questions, sheet.questions.text, sheet.solutions.text if sheet.solutions else None,
                  settled.flags)
    return settled.model_copy(update={"flags": settled.flags + flags})

