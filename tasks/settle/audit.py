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
  first marker (chrome read as a question). A question whose text opens with a lead-in
  paragraph before its own marker belongs to that marker; a numbered list inside a
  question's text is its own; a numbering the sheet itself skips is no doubt when the markers
  on both sides open questions and nothing between is in no field; the first question's
  lead-in left out is doubted when later lead-ins were kept (:mod:`tasks.settle.audit_markers`);
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
  label as a question's title, sub-sections read as one text, a question titled as the one
  before it and more (its section read as a question);
- **options read as parts** (:mod:`tasks.settle.audit_choices`): short unanswered one-line
  parts under a stem that asks, or parts that are only True/False;
- **tasks written as bullets read as the text** (:mod:`tasks.settle.task_lists`): a question
  with no parts whose main text holds bullets that each end in ``:`` or ``?`` (its parts?), or
  parts that are each a caption and code alone (examples read as parts?);
- **the sheet's question section in no field** (:mod:`tasks.settle.section_doubts`) while
  questions are read outside it;
- **a section's list read one question per item** (:mod:`tasks.settle.headed_lists`): items numbered
  from 1 under each heading, one list read as questions while another is read as one question's parts,
  or the section's context read into its first item's question alone;
- **a list of rules read as questions** (:mod:`tasks.settle.rule_lists`): a top-level numbered
  list none of whose items asks, before a list numbered from 1 again whose items mostly do;
- **solutions numbered for no question**: a solutions document whose markers
  (``Solution 4``, ``**Answer 2.**``, ``## Question 3``) name a number the questions
  document does not (left out unless route B's pairing already said so);
- **what the reading can know of itself** (:mod:`tasks.settle.reading_doubts`): a heading of
  the sheet inside a field, several answer blanks in one field, a title that is the prompt, a
  solution opening with its question's words, solution text in no field (on the question it
  answers), a stem a range of questions shares left out, one solution after a question's last
  part naming none of its parts;
- **how the solutions were paired** (:mod:`tasks.settle.pairing_doubts`): a question with no
  solution while solutions sit unpaired (on parts with no prompt, or in no field); lines of the
  sheet in no field that open a solution (``<details><summary>Lösung``), on the question they follow, or quoted in a
  field students see (the solution read as the question's text); a short solution
  that only points to a file outside the sheet (``Please refer to `ex2.jl```); a question
  answered on some parts only while solutions' lines sit in no field; a question no answer was
  read for where the sheet answers its lists in key blocks (``Solutions:`` and a list:
  :mod:`tasks.settle.key_doubts`);
- **the sheet's numbering** (:mod:`tasks.settle.number_doubts`): sub-numbered markers (``5.1``,
  ``5.2``) among whole numbers each read as a question, a first marker numbered out of the
  sheet's numbering (``**65 minutes.**`` before ``1.``), a title that is only the marks, a first
  question under no heading (or the sheet's title) where every other opens under a heading of
  one level.

Where a question starts is found by quoting: its first text is looked up in the markdown
(markers cut as coverage cuts them, :func:`tasks.settle.coverage.markers_removed`), each
question after the one before it. A question whose text is not found is left out of the
marker checks rather than guessed.
"""

from __future__ import annotations

from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.sheet import SheetSet
from schemas.tiers import Settled
from tasks.settle.audit_fields import field_flags, labels_in_text
from tasks.settle.audit_markers import (
    empty_solution_flags,
    layout_flags,
    marker_flags,
    part_label_flags,
    solution_number_flags,
)
from tasks.settle.doubts import continued_title_flags, doubt_flags, subsection_flags
from tasks.settle.headed_lists import headed_list_flags
from tasks.settle.rule_lists import rule_list_flags
from tasks.settle.section_doubts import section_flags, unread_section_flags
from tasks.settle.step_sections import step_section_flags
from tasks.settle.pairing_doubts import (partly_answered_flags, referral_flags, short_numbering_flags, shown_solution_flags,
                                         unpaired_flags, unread_solution_flags)
from tasks.settle.number_doubts import headless_flags, number_flags, points_title_flags
from tasks.settle.reading_doubts import (
    blank_flags,
    heading_flags,
    shared_stem_flags,
    solution_text_flags,
    title_flags,
    whole_solution_flags,
)
from tasks.settle.restated_doubts import restated_flags
from tasks.settle.audit_choices import choice_flags, options_as_parts_flags, unmarked_flags
from tasks.settle.closing_doubts import unanswered_item_flags
from tasks.settle.key_doubts import unkeyed_flags
from tasks.settle.task_lists import example_part_flags, task_list_flags
from tasks.settle.source_lines import question_at

__all__ = ["audit", "audited", "merged", "question_at", "labels_in_text"]


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
                  + field_flags(questions) + doubt_flags(questions) + subsection_flags(questions)
                  + continued_title_flags(questions) + headed_list_flags(questions, questions_md)
                  + rule_list_flags(questions, questions_md)
                  + empty_solution_flags(questions, questions_md)
                  + heading_flags(questions, questions_md) + blank_flags(questions) + title_flags(questions, questions_md)
                  + restated_flags(questions) + shared_stem_flags(questions, questions_md)
                  + whole_solution_flags(questions, questions_md)
                  + solution_number_flags(questions_md, solutions_md, known or [])
                  + solution_text_flags(questions, questions_md, solutions_md) + choice_flags(questions)
                  + section_flags(questions) + unread_section_flags(questions, questions_md)
                  + step_section_flags(questions, questions_md)
                  + unpaired_flags(questions, questions_md, solutions_md)
                  + short_numbering_flags(questions, questions_md, solutions_md)
                  + partly_answered_flags(questions, questions_md, solutions_md)
                  + unread_solution_flags(questions, questions_md) + referral_flags(questions)
                  + shown_solution_flags(questions, questions_md)
                  + number_flags(questions, questions_md) + points_title_flags(questions)
                  + headless_flags(questions, questions_md)
                  + unmarked_flags(questions) + options_as_parts_flags(questions)
                  + unanswered_item_flags(questions, questions_md)
                  + unkeyed_flags(questions, questions_md, solutions_md)
                  + task_list_flags(questions) + example_part_flags(questions))


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
