"""Solutions documents that restate each question before solving it (very common): the
restated text is no part of the worked solution.

A paragraph of a solution part is *restated* when its text, folded (lower case, letters and
digits only), is

- at least :data:`MIN_FOLDED` characters long and found inside the folded text of the
  question it answers (main text and parts);
- the whole of one paragraph of that question (at least :data:`MIN_SLOT` characters): an
  answer slot the solutions keep (``_Write your answer here._``), a closing line;
- or nearly one paragraph of that question (:data:`NEAR` of it alike, both at least
  :data:`MIN_FOLDED` characters): the question restated with a word or a link changed —
  never a fenced code block, which is one paragraph whole: a code block nearly the
  question's is its code cell with the slots filled in (a solution notebook that fills the
  student's cells), or a key's corrected chunk beside the sheet's wrong one, where the
  changed word is the fix: the answer itself.

A solution read as one piece for a question of several parts, whose worked solution restates
two or more of the parts' prompts in order (``#### Assign names to each variable.`` over
each answer), is first split at those restatements, one piece per part
(:func:`split_at_prompts`): it answers the parts one by one, in the question's words. So is a
solution read as fewer pieces than the question's parts (it labels some parts and restates the
others' prompts as headings), when the split answers more parts. A footnote's mark in a prompt
(``$^{1}$``) is not looked for in its restatement.

Such paragraphs are cut from the part's worked solution and final answer; a solution part
left with nothing (the prompt of a part the solutions do not answer) is no solution. Nor is
a solution that only points elsewhere (:func:`only_points_elsewhere`: ``See the solution in
the notebook.``), nor one that only says how it was graded (:func:`only_grading_note`:
``Credit was given as long as a sentence was written.``): what a student would be shown is no
answer. Which question a solution
answers is found by number when both documents number their questions, else by position, as
route B pairs them (:func:`tasks.read.route_b.merge_solutions`).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from schemas.flags import Flag
from schemas.sheet import Part, Question, SheetSet

MIN_FOLDED = 20
"""Folded characters a paragraph needs before it can count as restated by being found inside
the question (shorter ones, such as ``x = 2``, may be in a question by chance)."""

MIN_SLOT = 8
"""Folded characters a paragraph needs before it can count as restated by being a whole
paragraph of the question (``_Insert image here_`` is 15)."""

NEAR = 0.9
"""How alike (difflib's ratio of the folded texts) a paragraph must be to a paragraph of the
question to be that paragraph restated with small changes."""

POINTER_WORDS = 12
"""At most this many words in a solution that only points elsewhere."""

_POINTER = re.compile(r"^(?:see|refer to|please refer)\b|\bsolutions?\b.*\b(?:available|can be found|is in|are in)\b"
                      r"|\bsolutions?\s+(?:in|on|of|at)\b", re.I)


def fold(text: str) -> str:
    """``text`` lower-cased with only letters and digits kept, the targets of its links left
    out (a restatement may link elsewhere: only the words a student reads are compared)."""
    return re.sub(r"[\W_]+", "", re.sub(r"\]\([^)]*\)", "]", text).lower())


_FOOTNOTE_MARK = re.compile(r"\$\^\{?\d{1,2}\}?\$|\[\^[^\]]+\]|\^\d{1,2}\^")
"""A footnote's mark in a prompt (``$^{1}$`` as pandoc writes a LaTeX footnote, ``[^1]``,
``^1^``): a restatement leaves it out."""


_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


def paragraphs(text: str) -> list[str]:
    """``text``'s paragraphs (split at blank lines), a fenced code block one paragraph whole
    even when it holds blank lines (a notebook's code cell is one piece of the sheet)."""
    out: list[str] = []
    buf: list[str] = []
    fence = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence:
            buf.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
                fence = ""
        elif m:
            fence = m.group(1)
            buf.append(line)
        elif not line.strip():
            if buf:
                out.append("\n".join(buf))
            buf = []
        else:
            buf.append(line)
    if buf:
        out.append("\n".join(buf))
    return [p for p in out if p.strip()]


def _code(paragraph: str) -> bool:
    return bool(_FENCE.match(paragraph.lstrip("\n")))


_RUN_IN_HEADING = re.compile(r"\\#{1,6}\s+(?:\(?[a-z]\)?\s+(?=\S))?")
"""A heading run into a paragraph, its ``#`` escaped (``… market. \\#### a What is …``: a
restated heading and its part label, as an R notebook the conversion joined writes it)."""


def _restates(paragraph: str, question_text: str, question_paragraphs: list[str], code: bool = False) -> bool:
    folded = fold(_RUN_IN_HEADING.sub(" ", paragraph))
    if len(folded) >= MIN_FOLDED and folded in question_text:
        return True
    if len(folded) >= MIN_SLOT and folded in question_paragraphs:
        return True
    if len(folded) >= MIN_FOLDED and not _code(paragraph):
        # a code block nearly the question's is its slots filled in: the answer itself
        for q in question_paragraphs:
            if len(q) >= MIN_FOLDED and abs(len(q) - len(folded)) <= (1 - NEAR) * max(len(q), len(folded)) \
                    and SequenceMatcher(None, folded, q, autojunk=False).ratio() >= NEAR:
                return True
    return False


def cut_restated(text: str, question_text: str, question_paragraphs: list[str] | None = None) -> str:
    """``text`` without its paragraphs that restate the question (folded, see the module):
    ``question_text`` is the question's folded text, ``question_paragraphs`` its paragraphs,
    each folded. The rest is joined by blank lines as it was."""
    if not text.strip():
        return text
    asked = question_paragraphs or []
    kept = [p for p in paragraphs(text) if not _restates(p, question_text, asked)]
    return "\n\n".join(kept)


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)


def only_points_elsewhere(text: str) -> bool:
    """Is ``text`` (a solution, restatements cut) only a pointer to a solution somewhere else:
    one paragraph of at most :data:`POINTER_WORDS` words that opens ``See`` / ``Refer to`` or
    says where a solution is (``Solution available on this page.``, ``See the solution of
    Task 3.1``)? Such a line gives the student no answer."""
    pieces = paragraphs(text)
    if len(pieces) != 1:
        return False
    words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", pieces[0]).strip().strip("_*").strip()
    return len(words.split()) <= POINTER_WORDS and bool(_POINTER.search(words))


_GRADING = re.compile(r"^(?:(?:full\s+)?(?:credit|marks?)|points?)\s+(?:was|were|is|are|will\s+be)\s+"
                      r"(?:given|awarded|granted)\b", re.I)
_RAW_HTML = re.compile(r"`<[^`]*>`\{=html\}|</?[a-z][^<>]*>", re.I)


def only_grading_note(text: str) -> bool:
    """Is ``text`` (a solution, restatements cut) only a note on how the answer was graded
    (``Credit was given as long as a sentence or more was written.``, ``Full marks were
    awarded for any reasonable attempt.``): one paragraph of at most 40 words opening with how
    credit, marks or points were given (``The answer is 3; credit is given for either sign.``
    answers), after raw HTML (a key's ``<font>`` colour) and a
    short emphasised heading paragraph of three words or fewer (``*Q1 answer*.``) are set
    aside? Such a note tells the grader, and gives the student no answer."""
    pieces = [q for q in (_RAW_HTML.sub(" ", p).strip() for p in paragraphs(text)) if q]
    pieces = [q for q in pieces if not (re.fullmatch(r"[*_]+[^*_]+[*_]+[.:]?", q) and len(q.split()) <= 3)]
    return len(pieces) == 1 and len(pieces[0].split()) <= 40 and bool(_GRADING.match(pieces[0]))


def _question_text(q: Question) -> str:
    return fold(q.main_text + "\n" + "\n".join(p.content for p in q.parts))


def _question_paragraphs(q: Question) -> list[str]:
    return [f for t in [q.main_text, *(p.content for p in q.parts)] for p in paragraphs(t) if (f := fold(p))]


def _prompt_at(paragraph: str, prompts: list[str], start: int) -> int | None:
    """The first part from ``start`` whose folded prompt ``paragraph`` restates (a heading's
    ``#`` marks aside): the same, or one holding the other, at least :data:`MIN_FOLDED`
    characters, or :data:`NEAR` alike."""
    folded = fold(re.sub(r"^\s*#+\s*", "", paragraph))
    if len(folded) < MIN_FOLDED:
        return None
    for j in range(start, len(prompts)):
        q = prompts[j]
        if len(q) >= MIN_FOLDED and (folded == q or folded in q or q in folded
                                     or SequenceMatcher(None, folded, q, autojunk=False).ratio() >= NEAR):
            return j
    return None


def split_at_prompts(text: str, question: Question) -> list[str] | None:
    """``text`` (one solution of ``question``, which has two parts or more) split before each
    paragraph restating a part's prompt (its first paragraph), the parts found in order: one
    text per part of the question (text before the first restatement goes with that part;
    a part not restated gets ``""``); ``None`` when fewer than two parts are restated."""
    prompts = [fold(_FOOTNOTE_MARK.sub("", paragraphs(p.content)[0])) if p.content.strip() else ""
               for p in question.parts]
    if len(prompts) < 2:
        return None
    pieces: dict[int, list[str]] = {}
    at, first = None, []
    for paragraph in paragraphs(text):
        j = _prompt_at(paragraph, prompts, 0 if at is None else at + 1)
        if j is not None:
            at = j
        (pieces.setdefault(at, []) if at is not None else first).append(paragraph)
    if len(pieces) < 2:
        return None
    pieces[min(pieces)] = first + pieces[min(pieces)]
    return ["\n\n".join(pieces.get(j, [])) for j in range(len(prompts))]


def _resplit(parts: list[Part], question: Question) -> list[Part] | None:
    """Solution pieces fewer than the question's parts (a solution that labels some parts and
    restates the others' prompts as headings: ``#### Part b`` over a piece that goes on with
    ``#### Why are they different?``): their worked solutions joined and split at the
    restated prompts (:func:`split_at_prompts`), one per part, when that answers more parts
    than the pieces did; else ``None``."""
    joined = "\n\n".join(p.worked_solution for p in parts if p.worked_solution.strip())
    split = split_at_prompts(joined, question)
    if not split or sum(1 for w in split if w.strip()) <= sum(1 for p in parts if p.worked_solution.strip()):
        return None
    return [Part(worked_solution=w) for w in split]


def without_restatements(solutions: SheetSet, questions: SheetSet,
                         s_numbers: list | None = None, q_numbers: list | None = None) -> SheetSet:
    """A copy of ``solutions`` with every paragraph that restates its question cut from worked
    solutions and final answers, and solutions that only point elsewhere emptied (see the
    module). ``s_numbers`` / ``q_numbers``: the two readings' numberings
    (:data:`tasks.read.route_b.Numbers`); by number when both give every question a distinct
    number, else by position."""
    out = solutions.model_copy(deep=True)
    by_number: dict[str, int] = {}
    if q_numbers and s_numbers:
        nums = [n for n, _ in q_numbers]
        if all(nums) and len(set(nums)) == len(nums):
            by_number = {n: i for i, n in enumerate(nums)}
    for si, sq in enumerate(out.root):
        if by_number:
            qi = by_number.get(s_numbers[si][0] if si < len(s_numbers) else "")
        else:
            qi = si if si < len(questions.root) else None
        if qi is None or qi >= len(questions.root):
            continue
        question = questions.root[qi]
        text = _question_text(question)
        if not text:
            continue
        asked = _question_paragraphs(question)
        if len(sq.parts) == 1 and len(question.parts) > 1 and (split := split_at_prompts(sq.parts[0].worked_solution, question)):
            answer = sq.parts[0].answer
            sq.parts = [p.model_copy(update={"worked_solution": w, "answer": ""}) for p, w in
                        zip([sq.parts[0]] * len(split), split)]
            sq.parts[0].answer = answer
        elif 1 < len(sq.parts) < len(question.parts) and not any(p.answer for p in sq.parts):
            sq.parts = _resplit(sq.parts, question) or sq.parts
        for p in sq.parts:
            p.worked_solution = cut_restated(p.worked_solution, text, asked)
            p.answer = cut_restated(p.answer, text, asked)
            given = p.worked_solution + "\n\n" + p.answer if p.answer else p.worked_solution
            if only_points_elsewhere(given) or only_grading_note(given):
                p.worked_solution = p.answer = ""
    return out


def answered_together(solutions: SheetSet, cut: SheetSet, s_numbers: list | None,
                      q_numbers: list | None) -> list[Flag]:
    """``structure`` flags on the questions whose solution restates each of their parts and
    answers them once, after the last (``solutions`` before and ``cut`` after
    :func:`without_restatements`): the parts may be the steps of one task
    the sheet asks as a whole. Solutions are matched to questions by number."""
    index = {n: i for i, (n, _) in enumerate(q_numbers or []) if n}
    flags = []
    for si, (before, after) in enumerate(zip(solutions.root, cut.root)):
        qi = index.get(s_numbers[si][0]) if s_numbers and si < len(s_numbers) else None
        parts = list(zip(before.parts, after.parts))
        if qi is None or len(parts) < 2:
            continue
        restated = all((b.answer or b.worked_solution) and not (a.answer or a.worked_solution) for b, a in parts[:-1])
        if restated and (parts[-1][1].answer or parts[-1][1].worked_solution):
            flags.append(Flag(field=f"q{qi + 1}", kind="structure", reason=(
                f"the solutions restate the {len(parts)} parts of question {qi + 1} and answer them once, after "
                "the last: the steps of one task read as parts?")))
    return flags
