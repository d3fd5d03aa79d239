"""Equation notes: a person's note on one display equation becomes corrected LaTeX, or nothing.

A note ("the denominator should be 2 not 3", "missing a sigma in the second term") goes to
one model call (prompt ``tasks/prompts/review_note.md``, through :mod:`tasks.llm`) that
returns one corrected expression, or ``null`` with a reason when the note is too
ambiguous. The correction is accepted only when (:func:`check_correction`):

1. it renders with KaTeX in display mode (:func:`tasks.write.katex.katex_error`);
2. it differs from the original only where the note points, and does what the note states:
   inserts the note's new tokens, removes its old ones, at the position it names
   (:func:`check_change`, :mod:`tasks.review.notefit`).

This is the one place a set holds words that are not a quote of the sheet; the review
marks each field so corrected (:class:`schemas.review.Decision`).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass

from prefect import task
from prefect.cache_policies import NO_CACHE
from pydantic import ValidationError

from schemas.llm import BackendSpec, LLMRequest
from schemas.review import NoteOutcome, NoteReply
from schemas.routes import Usage
from tasks import prompts
from tasks.convert.bounds import json_loads
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, ask
from tasks.llm.select import backend_for
from tasks.review.notefit import intent_refusal
from tasks.review.notesense import NAMED, WORDS, tokenise
from tasks.write.katex import MathSpan, find_maths, katex_error

STAGE = "review-note"
"""The note call's stage name (``replies/review-note.json`` when replayed)."""

MAX_NOTE_CHARS = 1000
"""A note longer than this is refused before any call: a note describes one change."""

_DELIMS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))


def strip_delimiters(latex: str) -> str:
    """``latex`` without maths delimiters a model may add anyway (``$$…$$``, ``\\[…\\]``,
    ``\\(…\\)``, ``$…$``, repeatedly) and without surrounding whitespace."""
    tex = latex.strip()
    changed = True
    while changed:
        changed = False
        for opener, closer in _DELIMS:
            if len(tex) >= len(opener) + len(closer) and tex.startswith(opener) and tex.endswith(closer):
                tex = tex[len(opener):len(tex) - len(closer)].strip()
                changed = True
                break
    return tex


# --- what a note mentions ---------------------------------------------------------------

_ARTICLES = {"a", "A", "I"}
_SNIPPET = re.compile(r"\$([^$]+)\$|`([^`]+)`")
_NOTE_WORD = re.compile(r"\\[A-Za-z]+|\d+(?:\.\d+)?|[A-Za-z]+|[+\-=<>^_']")


def mentions(note: str) -> set[str]:
    """The tokens a note points at: the tokens of maths it quotes (``$…$`` or backticks),
    control words it writes (``\\sigma``), names of commands (``sigma`` → ``\\sigma``, ``Sigma``
    → ``\\Sigma``, ``frac``), numbers (``2``, ``1.5``), words for symbols (``plus`` → ``+``,
    ``minus`` → ``-``, ``squared`` → ``^`` and ``2``, ``fraction`` → ``\\frac``), single
    letters standing alone (``x``; not the article ``a``), and the symbols ``+ - = < > ^ _ '``."""
    found: set[str] = set()
    for m in _SNIPPET.finditer(note):
        found.update(tokenise(m.group(1) or m.group(2)))
    rest = _SNIPPET.sub(" ", note)
    for w in _NOTE_WORD.findall(rest):
        if w.startswith("\\") or w[0].isdigit() or w in "+-=<>^_'":
            found.add(w)
        elif w in NAMED:
            found.add("\\" + w)
        elif w.lower() in WORDS:
            found.update(WORDS[w.lower()])
        elif len(w) == 1 and w not in _ARTICLES:
            found.add(w)
    return found


@dataclass(frozen=True)
class Change:
    """How a correction differs from the original, in tokens: ``regions`` the number of
    separate changed places, ``removed`` / ``inserted`` the original's and the
    correction's tokens in them (all regions together)."""

    regions: int
    removed: list[str]
    inserted: list[str]


def diff_tokens(old: list[str], new: list[str]) -> Change:
    """The changed places between two token lists (``difflib`` opcodes, adjacent non-equal
    opcodes counted as one place)."""
    ops = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    regions, removed, inserted, in_region = 0, [], [], False
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            in_region = False
            continue
        if not in_region:
            regions += 1
            in_region = True
        removed += old[i1:i2]
        inserted += new[j1:j2]
    return Change(regions, removed, inserted)


BASE_TOKENS = 3
"""Tokens a change may touch whatever the note mentions (see :func:`check_change`)."""
PER_MENTION = 2
"""Further tokens a change may touch per token the note mentions."""


def check_change(original: str, corrected: str, note: str) -> str | None:
    """``None`` when ``corrected`` differs from ``original`` only where ``note`` points, else
    the reason it does not.

    The rule, on token sequences (:func:`tokenise`: whitespace does not count):

    - *one place*: the tokens that differ (a ``difflib`` alignment) form one contiguous
      region: a note describes one change, so a reply that also changes anything else,
      however small, elsewhere is refused;
    - *bounded by the note*: the region removes at most ``L`` tokens and inserts at most
      ``L``, where ``L = BASE_TOKENS + PER_MENTION × m`` and ``m`` is the number of tokens
      the note mentions (:func:`mentions`): "2 not 3" (m = 2, L = 7) allows a digit, but not
      a rewritten fraction; "missing a sigma" (m = 1, L = 5) allows ``\\sigma_{2}``;
    - *where the note points*: when the note mentions tokens, the region removes or inserts
      at least one of them ("2 not 3" must touch a 2 or a 3);
    - *most of it kept*: the region removes at most half of the original's tokens (at
      least one may always go), so a short equation cannot be rewritten whole;
    - *what the note states* (:func:`tasks.review.notefit.intent_refusal`): when the note
      says what comes in ("should be 3", "missing a sigma"), the region inserts exactly those
      tokens; what goes ("not 2", "remove the minus"), it removes exactly those; where
      ("trailing", "the second rho", "before the first rho", "in the second term", "the
      exponent of R", "the denominator"), the region is there. What the note leaves unsaid
      is free within the bounds above;
    - and it changes something.
    """
    old, new = tokenise(original), tokenise(corrected)
    if old == new:
        return "the correction changes nothing"
    change = diff_tokens(old, new)
    if change.regions > 1:
        return f"the correction changes {change.regions} separate places; the note describes one"
    named = mentions(note)
    limit = BASE_TOKENS + PER_MENTION * len(named)
    size = max(len(change.removed), len(change.inserted))
    if size > limit:
        return (f"the correction changes {size} tokens ({' '.join(change.removed) or 'nothing'} → "
                f"{' '.join(change.inserted) or 'nothing'}); the note allows at most {limit}")
    if named and not (named & (set(change.removed) | set(change.inserted))):
        return (f"the correction changes {' '.join(change.removed) or 'nothing'} → {' '.join(change.inserted) or 'nothing'}, "
                f"none of what the note names ({' '.join(sorted(named))})")
    if len(change.removed) > max(1, len(old) // 2):
        return f"the correction removes {len(change.removed)} of the equation's {len(old)} tokens"
    return intent_refusal(old, new, note)


def check_correction(original: str, corrected: str, note: str) -> str | None:
    """``None`` when ``corrected`` may replace ``original`` (renders with KaTeX in display
    mode and :func:`check_change` allows it), else the reason it is refused."""
    if not corrected.strip():
        return "the correction is empty"
    error = katex_error(corrected, True)
    if error is not None:
        return f"the correction does not render with KaTeX: {error}"
    return check_change(original, corrected, note)


# --- the call ----------------------------------------------------------------------------

def display_equations(text: str) -> list[MathSpan]:
    """The display equations of a field (``$$…$$`` spans), in order."""
    return [s for s in find_maths(text or "") if s.display and s.tex.strip()]


def replace_equation(text: str, span: MathSpan, latex: str) -> str:
    """``text`` with the TeX of ``span`` replaced by ``latex``; the span's delimiters and
    the whitespace just inside them are kept."""
    lead = span.tex[: len(span.tex) - len(span.tex.lstrip())]
    trail = span.tex[len(span.tex.rstrip()):]
    opener = span.delim
    return text[: span.start] + opener + lead + latex + trail + opener + text[span.end:]


def build_request(equation: str, note: str, field_text: str) -> LLMRequest:
    """The note call's request: the equation's TeX, the note and the field it sits in."""
    version, system = prompts.load("review_note")
    user = json.dumps({"equation": equation, "note": note, "field": field_text}, ensure_ascii=False, indent=1)
    return LLMRequest(stage=STAGE, prompt_version=version, system=system, user=user, max_tokens=2000,
                      json_schema=NoteReply.model_json_schema(), schema_name="submit_correction")


def parse_reply(text: str) -> NoteReply:
    """The reply as a :class:`NoteReply`, delimiters stripped from ``latex``; raises
    ``ValueError`` with one line when it does not validate."""
    try:
        reply = NoteReply.model_validate(json_loads(text))
    except (json.JSONDecodeError, ValidationError, TypeError) as e:
        raise ValueError(f"note reply does not validate: {str(e).splitlines()[0]}") from None
    if reply.latex is not None:
        stripped = strip_delimiters(reply.latex)
        reply = reply.model_copy(update={"latex": stripped or None})
    return reply


def correct_equation(backend: Backend, field_text: str, note: str, equation: int | None = None) -> NoteOutcome:
    """Apply ``note`` to one display equation of ``field_text`` with one model call.

    ``equation`` is 1-based among :func:`display_equations`; it may be ``None`` when the
    field holds exactly one. Returns a :class:`NoteOutcome`: ``accepted`` with the new
    field text, or not, with the reason (no such equation, an ambiguous note — the
    model's reason —, a reply refused by :func:`check_correction`, no model, a failed
    call). No call is made when the equation cannot be found. Never raises for a model's
    reply or a backend's failure.
    """
    note = note.strip()
    if not note:
        return NoteOutcome(reason="the note is empty")
    if len(note) > MAX_NOTE_CHARS:
        return NoteOutcome(reason=f"the note is {len(note)} characters; a note describes one change "
                                  f"(at most {MAX_NOTE_CHARS})")
    spans = display_equations(field_text)
    if not spans:
        return NoteOutcome(reason="the field holds no display equation: a note corrects one display equation")
    if equation is None and len(spans) > 1:
        return NoteOutcome(reason=f"the field holds {len(spans)} display equations: say which one (equation 1–{len(spans)})")
    index = (equation or 1) - 1
    if not 0 <= index < len(spans):
        return NoteOutcome(reason=f"the field holds {len(spans)} display equation(s), not an equation {equation}")
    span = spans[index]
    original = span.tex.strip()
    try:
        reply, replies = ask(backend, build_request(original, note, field_text), parse_reply)
    except NoReply as e:
        return NoteOutcome(reason=f"no model to read the note: {e}")
    except ReplyInvalid as e:
        return NoteOutcome(reason=e.reason, raw=e.replies[-1].text, backend=e.backend,
                           usage=sum((r.usage for r in e.replies), Usage()))
    except BackendError as e:
        return NoteOutcome(reason=f"the note call failed: {e}")
    last = replies[-1]
    outcome = NoteOutcome(latex=reply.latex, reason=reply.reason, raw=last.text, backend=last.backend,
                          model=last.model, usage=sum((r.usage for r in replies), Usage()))
    if reply.latex is None:
        return outcome.model_copy(update={"reason": "the note is ambiguous: " + (reply.reason or "no reason given")})
    refused = check_correction(original, reply.latex, note)
    if refused is not None:
        return outcome.model_copy(update={"reason": "refused: " + refused})
    return outcome.model_copy(update={"accepted": True, "text": replace_equation(field_text, span, reply.latex)})


@task(name="review note", cache_policy=NO_CACHE)
def note_task(field_text: str, note: str, equation: int | None, spec: BackendSpec | None,
              saved_reply: str | None = None, offline: bool = False) -> NoteOutcome:
    """:func:`correct_equation` as a task: the backend of ``spec`` (keys read inside the
    call), or a saved ``review-note`` reply. Never cached: a person's note is asked once."""
    saved = {STAGE: saved_reply} if saved_reply is not None else {}
    return correct_equation(backend_for(spec, saved, offline=offline), field_text, note, equation)
