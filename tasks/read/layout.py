"""The offline reader's layout: candidate markers found in the sheet, readings scored by how
well they explain it, the runner-up kept for confidence.

The general library reader (``filters/library/general.lua``) can read a sheet in several
layouts; which one a sheet is written in is decided here, from the sheet, rather than by the
first rule that matches:

1. **Discovery** (:func:`discover`): pandoc's AST of the markdown is walked for what repeats —
   heading levels, headings and bold paragraph openings of the form *word number*
   (``Ejercicio 2``, ``Übung 3``: any word that opens two or more of them with numbers, not only
   the words the reader knows), top-level numbered lists, numbered lists restarting after
   paragraphs, headings that ask (text ending in ``?``), part labels at line starts.
2. **Readings** (:class:`Layout`): each candidate is a reading of the whole sheet
   by the general reader with that layout forced (``SHEET2LAMBDA_LAYOUT`` set before the
   filter), plus the reader's own choice (``auto``) and the sheet as one question (``whole``);
   with a paragraph that closes item after item (a quiz bank's ``Feedback``), a reading closing
   an item at each (``closing``), weighed by score whatever it quotes (:func:`eligible`).
3. **Scoring** (:func:`tasks.read.layout_score.score`): how well a reading explains the sheet — the lines it quotes
   (:func:`tasks.read.route_b.score_reading`), the markers it uses to open questions and parts,
   question numbers and part labels in sequence (numbers stepping over other blocks numbered on
   one counter with them, as lecture notes number definitions and exercises, count as in
   sequence), questions with no text (a penalty), the share of the sheet's own question
   markers — numbered openings of a question word, repeated callouts — at which the reading
   opens no question (a penalty, :data:`tasks.read.layout_score.UNUSED`) and, with a solutions document, the share of
   solution numbers that name a question. ``auto`` keeps a
   small head start (:data:`tasks.read.layout_score.AUTO_PRIOR`): another reading is chosen only when it explains the
   sheet clearly better.
4. **Confidence** (:func:`runner_up_flags`): when the runner-up scores within
   :data:`CLOSE` of the chosen reading and reads a question differently (another part count,
   another opening), that question gets a ``structure`` flag naming both readings; and a run of
   questions numbered from 1 again inside the sheet's numbering, which resumes after it, is
   doubted (:func:`interrupted_flags`).
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import SheetSet
from tasks.errors import FilterError
from tasks.read.discovery import (QUESTION_WORDS, TYPED, Found, ast, discover, heading_texts, mixed_levels,
                                  one_task_list, repeated_words)
from tasks.read.closing_chrome import without_back_matter, without_closing_chrome
from tasks.read.bare_groups import with_bare_groups
from tasks.read.callouts import solution_callouts
from tasks.read.choice_options import as_options
from tasks.read.competing_lists import without_instruction_runs
from tasks.read.joined_parts import with_joined_parts
from tasks.read.labelled_pieces import split_solutions, split_whole_solutions
from tasks.read.lecture import lead_into_next, lecture_sections
from tasks.read.layout_score import AUTO_PRIOR, Layout, Reading, leading_int, lines_quoted, score
from tasks.read.named_sections import named_sections, unread
from tasks.read.part_headings import at_part_headings
from tasks.read.restated import answered_together, without_restatements
from tasks.read.retitled import retitled, retitled_flags
from tasks.read.run_in_markers import split_at_run_in_markers
from tasks.read.route_b import Numbers, Pairing, merge_solutions, numbering
from tasks.read.sandbox import run_filter
from tasks.settle.markers import label_form, label_index

LINES_MARGIN = 0.1
"""How much more of the sheet (share of its lines) another reading must quote to be weighed
against the reader's own choice."""

CLOSE = 0.03
"""A runner-up within this of the chosen reading's score is nearly as good (its disagreements
are flagged)."""



def _forms(found: Found, words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` as the sheet prints them (the reader lower-cases them its own way)."""
    return tuple(sorted({f for w in words for f in found.forms.get(w, {w})} | set(words)))


def candidates(found: Found) -> list[Layout]:
    """The readings worth trying for a document with ``found`` in it: always the reader's own
    (``auto``) and the whole sheet as one question; then one per kind of marker it has."""
    out = [Layout("auto")]
    words = tuple(repeated_words(found))
    if any(w in QUESTION_WORDS for w in words):
        # the sheet names its questions with a word the reader knows: the other words it
        # numbers (Definition 9, Example 10 on one counter) are other blocks, no questions
        words = tuple(w for w in words if w in QUESTION_WORDS)
    if words:
        out.append(Layout("markers " + "/".join(words), "markers", words=_forms(found, words)))
    plain = tuple(repeated_words(found, plain=True))
    if plain:
        # typed numbers (`1. …`) and words (`Exercise 2. …`) are two kinds of opening, two readings
        for kind in [w for w in plain if w != TYPED], [w for w in plain if w == TYPED]:
            if kind:
                named = "/".join("typed numbers" if w == TYPED else w for w in kind)
                out.append(Layout("paragraphs opening " + named, "markers", words=_forms(found, tuple(kind)), plain=True))
    levels = sorted(level for level, n in found.levels.items() if n >= 2)
    for level in levels:
        out.append(Layout(f"headings of level {level}", "headings", level=level))
    for upper, lower in zip(levels, levels[1:]):
        if not repeated_label(found, lower):
            out.append(Layout(f"sections with parts at headings of level {lower}", "sections", level=lower))
    if found.asking >= 2:
        out.append(Layout("headings that ask as parts", "asking"))
    if found.items:
        out.append(Layout("numbered list items", "list"))
    if found.restarts >= 2:
        out.append(Layout("paragraphs with numbered parts", "paragraphs"))
    for level in mixed_levels(found):
        out.append(Layout(f"innermost sections (headings of level {level} and the sections without them)", "leaves",
                          level=level))
    if found.closers and not any(w in QUESTION_WORDS for w in found.words):
        # (a sheet that names its questions with a question word reads them at those markers)
        out.append(Layout(f"items each closed by a '{found.closers[0]}' paragraph", "closing", closing=tuple(found.closers)))
    out.append(Layout("one question", "whole"))
    return out


def repeated_label(found: Found, level: int) -> bool:
    """Do the headings of ``level`` all say one thing (``### Hint:`` under several tasks,
    ``## Solution``)? Then they label a block each, and are no parts."""
    texts = {re.sub(r"\W+", "", t.lower()) for lv, t in found.headings if lv == level}
    return len(texts) == 1


def read_with(filter_source: str, layout: Layout, markdown: str, role: str, numbered: bool = True,
              **limits) -> Reading:
    """The reading of ``markdown`` with ``layout`` forced on the general reader: fields and,
    with ``numbered``, numbering (the reader run twice). Raises :class:`FilterError`."""
    source = layout.prelude() + filter_source
    questions = run_filter(source, markdown, role, **limits)
    numbers = numbering(source, markdown, role, **limits) if numbered and len(questions) else []
    return Reading(layout, questions, numbers)


def disagreements(best: Reading, other: Reading) -> list[int]:
    """The 0-based questions of ``best`` that ``other`` reads differently: no question of
    ``other`` opens with the same text, or that question has another number of parts."""
    def key(q) -> str:
        text = q.main_text.strip() or (q.parts[0].content.strip() if q.parts else "")
        return re.sub(r"\W+", "", text.lower())[:40]

    theirs = {}
    for q in other.questions.root:
        theirs.setdefault(key(q), q)
    out = []
    for i, q in enumerate(best.questions.root):
        t = theirs.get(key(q))
        if t is None or len(t.parts) != len(q.parts):
            out.append(i)
    return out


def runner_up_flags(ranked: list[Reading]) -> list[Flag]:
    """``structure`` flags (field ``q<n>``) on the questions the runner-up reads otherwise, when
    it scores within :data:`CLOSE` of the chosen reading (``ranked``: best first)."""
    if len(ranked) < 2 or ranked[0].score - ranked[1].score > CLOSE:
        return []
    best, second = ranked[0], ranked[1]
    return [Flag(field=f"q{i + 1}", kind="structure", reason=(
        f"the sheet reads almost as well as {second.layout.name} (score {second.score:.2f}) as "
        f"{best.layout.name} (score {best.score:.2f}), and the two read this question differently: "
        "a person must check where it begins and ends and what its parts are"))
        for i in disagreements(best, second)]


def interrupted_flags(numbers: Numbers) -> list[Flag]:
    """``structure`` flags (field ``q<n>``) on the questions of a run numbered from 1 again
    inside the sheet's own numbering, which resumes after it (questions 1-6, then 1-5, then 7-9:
    a numbered list inside a question read as questions): each of the run's questions after its
    first (the first may hold the lead-in the list belongs to). ``numbers``: the chosen reading's
    numbering (:data:`tasks.read.route_b.Numbers`)."""
    ns = [leading_int(n) for n, _ in numbers]
    flags = []
    i = 1
    while i < len(ns):
        if ns[i] == 1 and ns[i - 1] is not None and ns[i - 1] >= 1:
            j = i
            while j + 1 < len(ns) and ns[j + 1] is not None and ns[j] is not None and ns[j + 1] == ns[j] + 1:
                j += 1
            if j + 1 < len(ns) and ns[j + 1] == ns[i - 1] + 1 and j > i:
                flags += [Flag(field=f"q{k + 1}", kind="structure", reason=(
                    f"questions {i + 1}-{j + 1} are numbered 1-{ns[j]} inside the sheet's own numbering, which runs "
                    f"on from {ns[i - 1]} to {ns[j + 1]} after them: a numbered list inside question {i + 1} read as "
                    "questions?")) for k in range(i + 1, j + 1)]
            i = j + 1
        else:
            i += 1
    return flags


def choose(filter_source: str, markdown: str, role: str = "questions",
           solution_numbers: list[str] | None = None, found: Found | None = None, **limits) -> list[Reading]:
    """Every candidate reading of ``markdown`` (:func:`candidates` of what :func:`discover`
    finds in it, or ``found`` when given), scored (:func:`score`), best first; a layout whose
    run fails is left out. Raises :class:`FilterError` when even the reader's own choice fails."""
    found = found or discover(ast(markdown))
    readings: list[Reading] = []
    seen: dict[str, Reading] = {}
    fell_back = False
    for layout in candidates(found):
        try:
            reading = read_with(filter_source, layout, markdown, role, numbered=False, **limits)
        except FilterError:
            if layout.mode is None:
                raise
            continue
        same = reading.questions.model_dump_json()
        if same in seen:
            fell_back = fell_back or (layout.mode == "whole" and seen[same].layout.mode is None)
            continue
        seen[same] = reading
        reading.terms["lines"] = lines_quoted(markdown, reading.questions)
        readings.append(reading)
    auto = readings[0]
    auto.no_marker = fell_back
    # sections whose headings name tasks, one left unread by the reader's own reading: weigh all
    named = named_sections(markdown)
    named = named if unread(named, auto.questions) else []
    open_choice = fell_back or len(auto.questions) == 1 or one_task_list(found) or bool(named)
    if len(auto.questions):
        auto.numbers = numbering(filter_source, markdown, role, **limits)
    ranked = []
    for r in readings:
        if r is not auto and len(r.questions) and (open_choice or eligible(r, auto) or may_regroup(r, auto)):
            r.numbers = numbering(r.layout.prelude() + filter_source, markdown, role, **limits)
        if r is auto or open_choice or eligible(r, auto) or regroups(r, auto):
            score(r, markdown, found, solution_numbers, named)
            if r is not auto and r.layout.mode == "headings" and regroups(r, auto):
                # the numbers ``auto`` starts again under each heading are the headings' parts:
                # this reading numbers them once each, ``auto`` twice (its prior does not stand)
                r.terms["regroup"] = REGROUP_GAIN
                r.score += REGROUP_GAIN
            ranked.append(r)
    ranked.sort(key=lambda r: -r.score)
    return ranked


def eligible(reading: Reading, auto: Reading) -> bool:
    """May ``reading`` replace the reader's own choice ``auto``? Only when it quotes clearly more
    of the sheet (:data:`LINES_MARGIN`): where the reader's own layout accounts for the sheet, it
    stands. (When the reader read the sheet as one question — no marker at all, or one lone
    marker such as a dated title — every reading may, by score: :func:`choose`.) A reading of
    items each closed by a paragraph the sheet repeats (a quiz bank's ``Feedback``), a layout
    the reader has no own choice for, is weighed by score."""
    return reading.layout.mode == "closing" or reading.terms.get("lines", 0.0) >= auto.terms.get("lines", 0.0) + LINES_MARGIN


def may_regroup(reading: Reading, auto: Reading) -> bool:
    """Could ``reading`` be :func:`regroups` of ``auto`` (checked before its numbering is read):
    a markers or headings reading with fewer questions that quotes about as much of the sheet."""
    return (reading.layout.mode in ("markers", "headings") and 2 <= len(reading.questions) < len(auto.questions)
            and reading.terms.get("lines", 0.0) >= auto.terms.get("lines", 0.0) - REGROUP_SLACK)


def regroups(reading: Reading, auto: Reading) -> bool:
    """Does ``reading`` keep every question the reader's own choice ``auto`` opened, as its
    parts, under markers of the sheet that group them? Then it may replace ``auto`` by score
    though it quotes no more of the sheet: it explains one level of the sheet's numbering more.
    Two kinds: numbered markers over them (``Section 1`` over bold ``1.1)`` … ``1.3)``), or
    headings of one level under which ``auto``'s numbers start again (``## Title`` over tasks
    ``1.``-``3.``, the next over ``1.``-``2.``: a set cannot hold two questions 1, a heading's
    parts can)."""
    if not may_regroup(reading, auto) or not reading.numbers or not auto.numbers:
        return False
    theirs = [n for n, _ in auto.numbers]
    labels = [lab for _, labs in reading.numbers for lab in labs]
    if not all(theirs) or labels != theirs:
        return False
    if reading.layout.mode == "headings":
        # each heading sets a stem over its tasks (a heading straight over its numbered list is a
        # group title over questions)
        return len(set(theirs)) < len(theirs) and all(q.main_text.strip() for q in reading.questions.root if q.parts)
    return all(n for n, _ in reading.numbers)


def numbered_parts(numbers: Numbers) -> bool:
    """Does a one-question reading hold the sheet's markers as its parts, labelled in sequence
    from the first (``1``-``8``, ``a``-``d``)? Then the sheet had markers and the reading
    explains them: the "no question marker found" doubt is not true of it (whether the items
    are questions instead is the runner-up's to say, :func:`runner_up_flags`)."""
    if len(numbers) != 1:
        return False
    labels = numbers[0][1]
    form = label_form(labels) if len(labels) >= 2 and all(labels) else None
    if form is None:
        return False
    return [label_index(lb, form) for lb in labels] == list(range(1, len(labels) + 1))


INLINE_SWITCH = "SHEET2LAMBDA_INLINE = true\n"
"""Set before the general reader: what follows each prompt is its solution (a sheet named as
its own solutions: :func:`tasks.read.choose.solutions_inline`)."""

REGROUP_GAIN = 2 * AUTO_PRIOR
"""What a headings reading that :func:`regroups` the reader's own questions gains: more than the
reader's head start, so that a sheet whose numbered tasks start again under each heading reads
them as that heading's parts."""

REGROUP_SLACK = 0.02
"""How much less of the sheet (share of its lines) a regrouping reading may quote (:func:`regroups`)."""


def solutions_layout(questions: Found, solutions: Found) -> Layout:
    """The layout a solutions document is read in: the reader's own choice, knowing the marker
    words either document repeats (a course numbers its solutions as it numbers its questions),
    and, when the questions open with bold markers only and the solutions have bold markers
    too, in that kind alone: a heading marker of the solutions (``## Task 1: …`` over the
    restated ``**Question 1**``) is then their section, not a solution of question 1."""
    # a word only the solutions repeat (their `Step 1`, `Step 2`) names no question when the
    # questions have marker words of their own
    own = repeated_words(questions)
    words = tuple(dict.fromkeys(own + [w for w in repeated_words(solutions) if not own or w in QUESTION_WORDS]))
    bold = questions.bolded > 0 and not questions.headed and solutions.bolded > 0 and solutions.headed > 0
    # a key with no heading or bold marker that opens plain paragraphs with the questions'
    # word and number (`Exercise 2. Fibonacci.`, a Word key): those paragraphs open its answers
    said = [w for w in repeated_words(solutions, plain=True) if w != TYPED and (w in QUESTION_WORDS or w in own)]
    plain = bool(said) and not solutions.headed and not solutions.bolded
    if plain:
        words = tuple(dict.fromkeys(words + tuple(said)))
    return Layout("auto", None, words=_forms(questions, words) + _forms(solutions, words) if words else (),
                  bold=bold, plain=plain)


def mirrored(layout: Layout, questions_md: str, solutions_md: str) -> bool:
    """Does the solutions document copy the questions' sections — the questions read at the
    headings of one level (``layout``), and the solutions holding the same headings of that
    level, word for word and in order (a solution notebook that is the exercise notebook
    with its cells filled in)? Then the solutions are read at those headings too, one
    section a question, paired by position (their headings carry no numbers)."""
    if layout.mode != "headings" or not layout.level:
        return False
    mine = heading_texts(ast(questions_md), layout.level)
    return len(mine) >= 2 and heading_texts(ast(solutions_md), layout.level) == mine


def read_and_pair_inferred(filter_source: str, questions_md: str, solutions_md: str | None, *,
                           timeout: float = 20.0, memory_bytes: int = 1 << 30,
                           name: str = "general", inline: bool = False) -> tuple[SheetSet, Pairing]:
    """Route B's reading of a sheet with the general reader ``filter_source``, the questions'
    layout inferred (:func:`choose`, the runner-up's disagreements flagged:
    :func:`runner_up_flags`), and how its solutions were paired: the solutions document is read
    knowing the marker words either document repeats (:func:`solutions_layout`), restatements of
    the questions are cut from it (:func:`tasks.read.restated.without_restatements`), and it is
    merged as :func:`tasks.read.route_b.merge_solutions` merges. ``Pairing.layout`` names the
    layout chosen. ``inline``: with no solutions document, the sheet holds its solutions in
    place (:data:`INLINE_SWITCH`). ``timeout`` (seconds) and ``memory_bytes`` bound each filter run (a run
    past the limit runs once more with a longer one, and a layout past that too is recorded:
    :func:`tasks.read.sandbox.time_limited`). Raises
    :class:`FilterError` when the reader's own reading fails."""
    limits = dict(timeout=timeout, memory_bytes=memory_bytes, name=name, patient=True)
    # `**\#4**` after a hard break opens a paragraph; a callout titled Solution is a solution div
    questions_md = solution_callouts(split_at_run_in_markers(questions_md))
    solutions_md = None if solutions_md is None else solution_callouts(split_at_run_in_markers(solutions_md))
    if inline and solutions_md is None:
        filter_source = INLINE_SWITCH + filter_source
    found = discover(ast(questions_md))
    solutions = s_numbers = None
    if solutions_md is not None:
        source = solutions_layout(found, discover(ast(solutions_md))).prelude() + filter_source
        solutions = without_closing_chrome(run_filter(source, solutions_md, "solutions", **limits), solutions_md)
        s_numbers = numbering(source, solutions_md, "solutions", **limits)
        solutions, s_numbers = without_back_matter(solutions, s_numbers, solutions=True)
    ranked = choose(filter_source, questions_md, "questions",
                    [n for n, _ in s_numbers or [] if n] or None, found=found, **limits)
    best = ranked[0]
    # a run numbered from 1 that asks nothing beside one that asks (an exam's rules): chrome
    best.questions, best.numbers, _ = without_instruction_runs(best.questions, best.numbers,
                                                               [n for n, _ in s_numbers or [] if n] or None)
    best.questions, best.numbers = as_options(best.questions, best.numbers)  # 'choose one of the following'
    best.questions, best.numbers = with_bare_groups(best.questions, best.numbers, questions_md)  # 'Part C' alone
    best.questions, best.numbers, joined = with_joined_parts(best.questions, best.numbers)  # '1a)', '1b)'
    best.questions, best.numbers = without_back_matter(best.questions, best.numbers)
    best.questions = without_closing_chrome(best.questions, questions_md)
    if solutions_md is None and len(best.numbers) == len(best.questions):
        # a solution after the tasks that names the task of each of its pieces: cut there
        best.questions = SheetSet([split_solutions(q, labs) for q, (_, labs) in
                                   zip(best.questions.root, best.numbers)])
    lecture = lecture_sections(best.questions, best.numbers) if solutions_md is None else []
    if lecture:
        best.questions, best.numbers = lead_into_next(best.questions, best.numbers, lecture)
    flags = runner_up_flags(ranked)
    said = {f.field for f in flags}
    flags += [f for f in interrupted_flags(best.numbers) if f.field not in said]
    if (best.no_marker or (best.layout.mode == "whole" and not numbered_parts(best.numbers))) and not (flags or joined):
        flags.append(Flag(field="q1", kind="structure", reason=(
            "no question marker found in the sheet (no numbered heading, bold or paragraph opening, no "
            "numbered list): it is read as one question with its text; a person must check whether it holds several")))
    if solutions is None:
        return best.questions, Pairing(flags=flags, layout=best.layout.name)
    renamed = retitled(best.layout.level, questions_md, solutions_md) if best.layout.mode == "headings" else []
    if best.layout.mode == "leaves" and len(solutions) != len(best.questions):
        # a key laid out as its sheet (the sheet restated, each answer in its task's section):
        # read in the sheet's layout, it answers task by task
        source = best.layout.prelude() + filter_source
        again = run_filter(source, solutions_md, "solutions", **limits)
        if len(again) == len(best.questions):
            solutions, s_numbers = again, numbering(source, solutions_md, "solutions", **limits)
    elif len(solutions) < len(best.questions) and (mirrored(best.layout, questions_md, solutions_md) or renamed):
        # the solutions copy the questions' sections, heading for heading (or retitle them): read them so
        source = Layout("mirror", "headings", best.layout.level).prelude() + filter_source
        solutions = run_filter(source, solutions_md, "solutions", **limits)
        s_numbers = numbering(source, solutions_md, "solutions", **limits)
    if renamed and len(solutions) == len(best.questions):
        flags += retitled_flags(renamed)
    elif parted := at_part_headings(questions_md, best.questions, best.numbers, solutions_md, s_numbers):
        solutions, s_numbers = parted, None  # answers under the sheet's own part headings, laid out as the sheet
    solutions, s_numbers = split_whole_solutions(solutions, s_numbers, best.questions, best.numbers)
    cut = without_restatements(solutions, best.questions, s_numbers, best.numbers)
    flags += answered_together(solutions, cut, s_numbers, best.numbers)
    merged, pairing = merge_solutions(best.questions, cut, best.numbers, s_numbers)
    pairing.flags = flags + pairing.flags
    pairing.layout = best.layout.name
    return merged, pairing
