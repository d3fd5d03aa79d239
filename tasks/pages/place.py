"""Each finding of the compare check becomes an ``ocr`` flag on the field that holds it.

The fields are verbatim quotes of the markdown, so the field holding a finding is the one
whose text holds its ``ocr_text`` (whitespace folded, as the verbatim check folds it). With a
separate solutions document a finding of the questions' PDF is looked for in the fields read
from the questions (titles, main texts, parts' contents and options) and one of the
solutions' PDF in answers and worked solutions, then anywhere; with one document, anywhere.
A span several fields hold flags each (the reason says how many); a span no field holds (a
line the set left out) is flagged on its line of the markdown, ``source:LINE`` or
``solutions:LINE``, as an ``uncovered`` flag is. Each flag's ``a`` is the OCR's reading, ``b``
the page's, ``spot`` the page and its crop.
"""

from __future__ import annotations

from schemas.compare import CompareResult, Found
from schemas.flags import Flag, PageSpot
from schemas.sheet import SheetSet, iter_fields
from tasks.settle.fold import fold_whitespace

QUESTION_FIELDS = (".title", ".main_text", ".content", "]")
"""Field keys read from the questions document (``]`` ends an option's key)."""


def _reason(f: Found, fields: int, times: int) -> str:
    where = f" ({fields} fields hold it: check which the page means)" if fields > 1 else ""
    twice = f"; the markdown has it {times} times" if times > 1 else ""
    return (f'p{f.page} of the {f.document} PDF ({f.kind}): the OCR read "{_short(f.ocr_text)}", the page shows '
            f'"{_short(f.page_text)}"{where}{twice}')


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def holders(f: Found, questions: SheetSet, separate: bool) -> list[str]:
    """The keys of the fields whose text holds ``f.ocr_text`` (whitespace folded), those of
    ``f``'s own document first when the sheet has a separate solutions document."""
    needle = fold_whitespace(f.ocr_text)
    holding = [k for k, text in iter_fields(questions) if text and needle in fold_whitespace(text)]
    if not separate:
        return holding
    mine = [k for k in holding if k.endswith(QUESTION_FIELDS) == (f.document == "questions")]
    return mine or holding


def ocr_flags(result: CompareResult | None, questions: SheetSet, sources: dict[str, str]) -> list[Flag]:
    """The ``ocr`` flags of the compare check's findings on the settled set ``questions``;
    ``sources`` the markdown by document (``questions``, and ``solutions`` when the sheet
    has a separate one). ``[]`` with no result or no finding."""
    if result is None:
        return []
    separate = "solutions" in sources
    flags = []
    for f in result.findings:
        spot = PageSpot(document=f.document, page=f.page, crop=f.crop)
        markdown = sources.get(f.document, "")
        times = markdown.count(f.ocr_text)
        keys = holders(f, questions, separate)
        if not keys:
            at = markdown.find(f.ocr_text)
            line = markdown.count("\n", 0, at) + 1 if at >= 0 else 1
            keys = [f"{'source' if f.document == 'questions' else 'solutions'}:{line}"]
        for key in keys:
            flags.append(Flag(field=key, kind="ocr", reason=_reason(f, len(keys), times), a=f.ocr_text,
                              b=f.page_text, spot=spot))
    return flags
