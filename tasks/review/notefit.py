"""Whether a corrected equation does what a person's note states (:func:`intent_refusal`).

The note is read by :func:`tasks.review.notesense.read_note`. The reply is held to it on the
token diff of original and reply (:func:`tasks.review.notesense.tokenise`; braces and
whitespace do not count when tokens are compared). The diff is read in every equivalent way
(a change sliding over repeated tokens, widened by unchanged tokens on either side, so
"-3 not 3" is the insertion of ``-``), and the reply is accepted when one reading satisfies
everything the note states. What the note does not state stays free (bounded by
:func:`tasks.review.notes.check_change`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from tasks.review.notesense import BRACES, NAMED, ORDINALS, Intent, Phrase, Place, read_note

_RELATIONS = {"=", "<", ">", "\\leq", "\\geq", "\\le", "\\ge", "\\neq", "\\ne", "\\approx", "\\equiv",
              "\\sim", "\\propto", "\\to", "\\rightarrow", "\\Rightarrow", ","}
_FRACS = {"\\frac", "\\dfrac", "\\tfrac", "\\cfrac"}


def _group_end(toks: list[str], i: int) -> int:
    """The end (exclusive) of the argument starting at ``i``: a braced group or one token."""
    if i >= len(toks):
        return i
    if toks[i] != "{":
        return i + 1
    depth = 0
    for k in range(i, len(toks)):
        depth += {"{": 1, "}": -1}.get(toks[k], 0)
        if depth == 0:
            return k + 1
    return len(toks)


def _occurrences(toks: list[str], seq: tuple[str, ...]) -> list[list[int]]:
    """Where ``seq`` occurs in ``toks`` with braces skipped: the indexes of each occurrence."""
    idx = [i for i, t in enumerate(toks) if t not in BRACES]
    plain = [toks[i] for i in idx]
    n = len(seq)
    return [idx[k:k + n] for k in range(len(plain) - n + 1) if tuple(plain[k:k + n]) == seq]


def _terms(toks: list[str]) -> list[list[tuple[int, int]]]:
    """The terms of each side of the equation's relations, as ``(start, end)`` spans: split
    at ``+`` and ``-`` outside braces and brackets (a leading sign belongs to its term)."""
    sides: list[list[tuple[int, int]]] = [[]]
    depth, start = 0, 0
    for i, t in enumerate(toks):
        if t in ("{", "(", "[", "\\left"):
            depth += 1
        elif t in ("}", ")", "]", "\\right"):
            depth -= 1
        elif depth <= 0 and t in _RELATIONS:
            if i > start:
                sides[-1].append((start, i))
            sides.append([])
            start = i + 1
        elif depth <= 0 and t in ("+", "-", "\\pm", "\\mp") and i > start:
            sides[-1].append((start, i))
            start = i + 1
    if len(toks) > start:
        sides[-1].append((start, len(toks)))
    return sides


def place_spans(toks: list[str], place: Place) -> list[tuple[int, int]]:
    """The token spans of ``toks`` that ``place`` may mean (all of them: a reply changing
    inside any one is in the place)."""
    if place.kind == "term":
        n = place.n
        return [side[n - 1 if n > 0 else n] for side in _terms(toks) if len(side) >= abs(n)]
    spans = []
    for i, t in enumerate(toks):
        if place.kind in ("num", "den") and t in _FRACS:
            num_end = _group_end(toks, i + 1)
            spans.append((i + 1, num_end) if place.kind == "num" else (num_end, _group_end(toks, num_end)))
        elif place.kind == "den" and t == "/":
            spans.append((i + 1, _group_end(toks, i + 1)))
        elif place.kind in ("sup", "sub") and t == ("^" if place.kind == "sup" else "_"):
            if place.of is not None:
                # the base may carry the other script first: R_0^2
                plain = [x for x in toks[max(0, i - len(place.of) - 4):i] if x not in BRACES]
                other = "_" if place.kind == "sup" else "^"
                if other in plain and plain.index(other) > 0:
                    plain = plain[:len(plain) - plain[::-1].index(other) - 1]
                if tuple(plain[-len(place.of):]) != place.of:
                    continue
            spans.append((i + 1, _group_end(toks, i + 1)))
    return spans


@dataclass(frozen=True)
class Reading:
    """One reading of a single changed place: original tokens ``old[start:end]`` become
    ``inserted``; ``removed`` are the original's tokens there."""

    start: int
    end: int
    removed: tuple[str, ...]
    inserted: tuple[str, ...]


def readings(old: list[str], new: list[str], widen: int) -> list[Reading]:
    """Every equivalent reading of the one changed place between ``old`` and ``new``: the
    ``difflib`` region, slid over repeated tokens when it only inserts or only removes, and
    each widened by up to ``widen`` unchanged tokens on either side."""
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    i1, i2, j1, j2 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    bases = {(i1, i2, j1, j2)}
    for step in (-1, 1):
        a1, a2, b1, b2 = i1, i2, j1, j2
        while 0 <= a1 + step and a2 + step <= len(old) and 0 <= b1 + step and b2 + step <= len(new):
            c1, c2, d1, d2 = a1 + step, a2 + step, b1 + step, b2 + step
            if old[:c1] + new[d1:d2] + old[c2:] != new or old[:c1] != new[:d1] or old[c2:] != new[d2:]:
                break
            a1, a2, b1, b2 = c1, c2, d1, d2
            bases.add((a1, a2, b1, b2))
    out = []
    for a1, a2, b1, b2 in bases:
        for left in range(min(widen, a1, b1) + 1):
            for right in range(min(widen, len(old) - a2, len(new) - b2) + 1):
                s, e = a1 - left, a2 + right
                out.append(Reading(s, e, tuple(old[s:e]), tuple(new[b1 - left:b2 + right])))
    return out


def _plain(toks) -> tuple[str, ...]:
    return tuple(t for t in toks if t not in BRACES)


def _is_script(toks: tuple[str, ...]) -> bool:
    """Whether ``toks`` (braces dropped) is one sub/superscript of letters, digits or named
    symbols: ``_ 2``, ``^ i j``; not ``\\text`` or another command that names no symbol."""
    return (1 < len(toks) <= 4 and toks[0] in ("^", "_")
            and all(t.isalnum() or (t.startswith("\\") and t[1:] in NAMED) for t in toks[1:]))


def _new_ok(inserted: tuple[str, ...], new: Phrase) -> bool:
    ins = _plain(inserted)
    if new.tokens is None:
        return True
    if ins == new.tokens:
        return True
    return new.named and ins[:1] == new.tokens and _is_script(ins[1:])


def _between_braces(old: list[str], a: int, b: int) -> bool:
    return a <= b and all(t in BRACES for t in old[a:b])


def _pick(occ: list[list[int]], nth: int | None) -> list[list[int]]:
    if nth is None:
        return occ
    k = nth - 1 if nth > 0 else nth
    return [occ[k]] if -len(occ) <= k < len(occ) else []


def _fits(r: Reading, old: list[str], intent: Intent, spans: list[tuple[int, int]] | None,
          olds: list[list[int]] | None, anchors: list[list[int]] | None) -> bool:
    removed, inserted = _plain(r.removed), _plain(r.inserted)
    if intent.kind == "insert" and removed:
        return False
    if intent.kind == "remove" and inserted:
        return False
    if intent.new is not None and intent.kind != "remove" and not _new_ok(r.inserted, intent.new):
        return False
    if olds is not None:
        at = [i for i in range(r.start, r.end) if old[i] not in BRACES]
        if at not in olds:
            return False
    if spans is not None and not any(s <= r.start and r.end <= e for s, e in spans):
        return False
    if anchors is not None:
        if intent.side == "before" and not any(_between_braces(old, r.end, a[0]) for a in anchors):
            return False
        if intent.side == "after" and not any(_between_braces(old, a[-1] + 1, r.start) for a in anchors):
            return False
    return True


def _show(toks) -> str:
    return " ".join(_plain(toks)) or "nothing"


def intent_refusal(old: list[str], new: list[str], note: str) -> str | None:
    """None when the one changed place between ``old`` and ``new`` (token lists that differ
    in one place) does what ``note`` states (:func:`read_note`), else why not, in one line.

    Enforced, on tokens with braces dropped: the inserted tokens are exactly the note's new
    text (a symbol named alone, like "a sigma", may carry one sub/superscript: ``\\sigma_2``)
    and nothing is removed for an insertion; the removed tokens are exactly the note's old
    text, and nothing is inserted for a removal; a position word ("trailing", "second")
    picks which occurrence goes; "before/after Z" puts the change against Z (braces between
    allowed); "in the second term", "the exponent of R", "the denominator" keep the change
    inside that place. A note that states none of these, or is in no form :func:`read_note`
    reads, gives None.
    """
    intent = read_note(note)
    if intent is None or old == new:
        return None
    if intent.place is not None:
        spans = place_spans(old, intent.place)
        if not spans:
            return f"the note points at {intent.place.text}, which the equation does not have"
    else:
        spans = None
    olds = None
    if intent.kind != "insert" and intent.old is not None and intent.old.tokens is not None:
        every = _occurrences(old, intent.old.tokens)
        if spans is not None:
            every = [o for o in every if any(s <= o[0] and o[-1] < e for s, e in spans)]
        olds = _pick(every, intent.old.nth)
        if not olds:
            return f"the equation has no {intent.old.text} for the note to change"
    anchors = None
    if intent.anchor is not None and intent.side and intent.anchor.tokens is not None:
        anchors = _pick(_occurrences(old, intent.anchor.tokens), intent.anchor.nth)
        if not anchors:
            return f"the equation has no {intent.anchor.text} for the note to go {intent.side}"
    # stated text may share tokens with the original; with the braces between them, a
    # reading may need twice as many unchanged tokens on a side
    widen = 2 + 2 * max(len(intent.old.tokens or ()) if intent.old else 0,
                        len(intent.new.tokens or ()) if intent.new else 0)
    every_reading = readings(old, new, widen)
    if any(_fits(r, old, intent, spans, olds, anchors) for r in every_reading):
        return None
    first = every_reading[0]
    return (f"the correction changes {_show(first.removed)} → {_show(first.inserted)} at token {first.start + 1}, "
            f"not what the note states ({describe(intent)})")


def describe(intent: Intent) -> str:
    """The change a note states, in a few words: ``replace 3 → 2 in the denominator``."""
    def show(p: Phrase | None) -> str:
        if p is None or p.tokens is None:
            return p.text if p is not None and p.text else "something"
        ordinal = {v: k for k, v in ORDINALS.items() if k in ("first", "second", "third", "fourth", "fifth", "last")}
        return (ordinal[p.nth] + " " if p.nth in ordinal else "") + " ".join(p.tokens)
    if intent.kind == "replace":
        words = f"replace {show(intent.old)} → {show(intent.new)}"
    elif intent.kind == "insert":
        words = f"insert {show(intent.new)}"
    else:
        words = f"remove {show(intent.old)}"
    if intent.anchor is not None and intent.side:
        words += f" {intent.side} {show(intent.anchor)}"
    if intent.place is not None:
        words += f" in {intent.place.text}"
    return words
