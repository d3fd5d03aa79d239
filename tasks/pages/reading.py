"""The review's "take the page's reading" on an ``ocr`` flag: the OCR's span in the field
replaced by the page's, checked to change only that place.

Like an equation note's correction (:mod:`tasks.review.notes`), the new text is held to the
place the finding names: it is offered, and taken, only when

- the page's reading differs from the OCR's in tokens (:func:`tasks.review.notesense.tokenise`:
  whitespace does not count), so the choice changes something;
- the field holds the OCR's reading exactly once (whitespace may differ), so the place is
  not in doubt; a span the field holds twice is left to a passage of the sheet or a note;
- the maths it touches still renders: the new text has as many maths spans as the old
  (:func:`tasks.write.katex.find_maths`), and no more that KaTeX refuses
  (:func:`tasks.write.katex.katex_error`).

The change is that span and nothing else: the text before and after it is kept byte for byte.
The field then holds the sheet's own reading, which the OCR's markdown (``source.md``) does not:
``review.json`` records each such decision (choice ``page``, the text before and after).
"""

from __future__ import annotations

import re

from tasks.review.notes import diff_tokens
from tasks.review.notesense import tokenise
from tasks.write.katex import find_maths, katex_error


def _broken(text: str) -> list[str]:
    return [e for s in find_maths(text) if s.tex.strip() and (e := katex_error(s.tex, s.display)) is not None]


def page_reading(text: str | None, ocr: str | None, page: str | None) -> tuple[str | None, str]:
    """``(the field's new text, what changed)`` when the page's reading ``page`` may replace
    the OCR's ``ocr`` in the field's ``text``; ``(None, why not)`` otherwise (see the module
    docstring). Never raises."""
    if text is None:
        return None, "the flag is on no text field"
    if not ocr or page is None:
        return None, "the flag has no two readings"
    old, new = tokenise(ocr), tokenise(page)
    if old == new:
        return None, "the page's reading is the OCR's (the same tokens)"
    pattern = r"\s+".join(re.escape(w) for w in ocr.split())
    hits = list(re.finditer(pattern, text))
    if not hits:
        return None, "the field does not hold the OCR's reading (an earlier decision changed it?)"
    if len(hits) > 1:
        return None, (f"the field holds the OCR's reading {len(hits)} times: which is meant is not certain "
                      "(use a passage of the sheet or a note)")
    hit = hits[0]
    changed = text[: hit.start()] + page + text[hit.end():]
    if len(find_maths(changed)) != len(find_maths(text)):
        return None, "the page's reading changes where the field's maths begins or ends"
    before, after = _broken(text), _broken(changed)
    if len(after) > len(before):
        return None, f"the page's reading does not render with KaTeX: {after[-1]}"
    change = diff_tokens(old, new)
    return changed, (f"the page's reading taken: {' '.join(change.removed) or 'nothing'} → "
                     f"{' '.join(change.inserted) or 'nothing'}")
