"""Solutions numbered by question and part at once (``Problem 1a``, ``1(b)``, ``2.c``).

A solutions document often gives each part its own heading whose number joins the
question's number and the part's label: ``# Problem 1a``, ``# Problem 1b``, … then
``# Problem 2``. Read by number, ``1a`` names no question of the sheet, so each such
solution was left out. :func:`split_joined` reads such a number as the question (``1``) and
the part (``a``) when the sheet has that question and the number is not itself one of the
sheet's: the solutions of one question's parts become one solution of that question, its
parts labelled as the question labels them (``a``, ``(a)``, ``a.``: compared without
brackets and dots), so the merge by number pairs them by label
(:func:`tasks.read.route_b.merge_by_number`).
"""

from __future__ import annotations

import re

from schemas.sheet import Part, Question, SheetSet

Numbers = list[tuple[str, list[str]]]

JOINED = re.compile(r"^(\d{1,3})\s*[.\-]?\s*\(?([a-z]|[ivx]{1,4})\)?[.:]?$", re.I)
"""A number joining a question's number and a part's label: ``1a``, ``1 (b)``, ``2.c``, ``3-ii``."""


def _bare(label: str) -> str:
    return label.strip().strip("().:").strip().lower()


def split_joined(solutions: SheetSet, s_numbers: Numbers, q_numbers: Numbers) -> tuple[SheetSet, Numbers]:
    """``(solutions, s_numbers)`` with each run of solutions numbered by question and part
    (:data:`JOINED`, for a question the sheet numbers, the number itself not one of the
    sheet's) made one solution of that question: one part per solution (its parts' answers
    and worked solutions joined in order), labelled with the question's own label for that
    part (else the bare letter). The solutions of other numbers are kept as they are, in
    order; nothing is changed when no number is joined. The inputs are not changed."""
    q_names = {n: labels for n, labels in q_numbers}
    out_q: list[Question] = []
    out_n: Numbers = []
    where: dict[str, int] = {}  # question number -> index of its gathered solution in out_q
    changed = False
    for si, sq in enumerate(solutions.root):
        number = s_numbers[si][0] if si < len(s_numbers) else ""
        m = JOINED.match(number)
        if not m or number in q_names or m.group(1) not in q_names:
            out_q.append(sq.model_copy(deep=True))
            out_n.append(s_numbers[si] if si < len(s_numbers) else ("", []))
            continue
        base, letter = m.group(1), m.group(2).lower()
        label = next((lab for lab in q_names[base] if _bare(lab) == letter), letter)
        part = Part(answer="\n\n".join(p.answer for p in sq.parts if p.answer),
                    worked_solution="\n\n".join(p.worked_solution for p in sq.parts if p.worked_solution))
        if base not in where:
            where[base] = len(out_q)
            out_q.append(Question(title=sq.title, main_text="", parts=[]))
            out_n.append((base, []))
        k = where[base]
        out_q[k].parts.append(part)
        out_n[k][1].append(label)
        changed = True
    if not changed:
        return solutions, s_numbers
    return SheetSet(root=out_q), out_n


def names_a_part(number: str, question_numbers: set[str]) -> bool:
    """Does the solution number ``number`` join a question number of ``question_numbers``
    and a part's label (:data:`JOINED`: ``1a`` when the sheet has a question 1 and no ``1a``)?"""
    m = JOINED.match(number)
    return bool(m) and number not in question_numbers and m.group(1) in question_numbers
