"""Stated bounds on what a run reads, checked before anything is read whole.

- A sheet (or its solutions) of markdown or LaTeX is at most :data:`MAX_TEXT_BYTES`, a Word
  document at most :data:`MAX_DOCX_BYTES` (sheets are kilobytes; pandoc needs about a
  hundred times a document's size in memory), a PDF at most :data:`MAX_PDF_BYTES` (pandoc never
  reads it: its bytes go to Mathpix, and a scanned sheet is megabytes).
- A zip (a ``.docx``, an export) is read only when every member inflates to at most
  :data:`MAX_MEMBER_BYTES`, all members to at most :data:`MAX_ZIP_BYTES`, no member
  inflates more than :data:`MAX_RATIO` times, and it has at most :data:`MAX_MEMBERS`
  members: sizes from the zip's directory, and reading stops at the stated size should a
  member lie about it (:func:`read_member`).
- A file of a run's own kind read back (a saved reply, ``areas.json``, a filter, a review's
  ``review.json``) is at most :data:`MAX_SAVED_BYTES`; what it holds is counted too: a set of
  at most :data:`MAX_QUESTIONS` questions, :data:`MAX_PARTS` parts and :data:`MAX_OPTIONS`
  options in all (a reply, the answer boxes' keys), a review (or a ``--decisions`` file) of at
  most :data:`MAX_DECISIONS` decisions (:func:`check_count`); a sweep's ``--baseline`` is at most
  :data:`MAX_SAVED_BYTES` too, and an ``--out``'s ``.sheet2lambda-outputs.json`` at most
  :data:`MAX_MANIFEST_BYTES` (:func:`check_manifest_size`).
- A sheet of text (markdown, LaTeX) holds no NUL byte (:func:`check_text_sheet`), and no
  document's text once converted holds a control character (:func:`check_converted_text`)
  nor opens more than :data:`MAX_QUESTIONS` questions of one kind (:func:`check_openings`).
- No text holds more than :data:`MAX_MARKS` combining marks in a row (:func:`check_mark_runs`):
  pandoc's CommonMark reader takes time growing with the square of such a run (measured with
  pandoc 3 here: 2,000 marks on one letter 3.4 s a read, 4,000 12 s, 20,000 past 100 s; the
  same marks one per letter 0.06 s), and a run reads a sheet's markdown several times
  (attack12 C27, C28: a 4 KB sheet took a minute).
- JSON from outside (a reply, an export, a filter's output) nests at most
  :data:`MAX_JSON_DEPTH` deep (:func:`json_loads`), so a deeply nested one is a one-line
  error, never a ``RecursionError``.
"""

from __future__ import annotations

import json
import re
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

from tasks.convert.openings import count_problem, notebook_markdown
from tasks.errors import InputError
from tasks.safe_json import MAX_JSON_DEPTH, json_depth, json_loads  # noqa: F401 - the bounds of JSON, said here too

MAX_TEXT_BYTES = 2 << 20
"""Largest markdown or LaTeX document read (2 MiB)."""
MAX_DOCX_BYTES = 20 << 20
"""Largest Word document read (20 MiB, images included)."""
MAX_PDF_BYTES = 64 << 20
"""Largest PDF sent to OCR (64 MiB: a scanned sheet of a few pages is 1-20 MiB; Mathpix's
``v3/pdf`` takes uploads up to 1 GB, https://docs.mathpix.com/reference/limits-and-quotas)."""
MAX_MEMBER_BYTES = 64 << 20
"""Largest size a zip member may inflate to (64 MiB)."""
MAX_ZIP_BYTES = 256 << 20
"""Largest size all of a zip's members may inflate to (256 MiB)."""
MAX_RATIO = 200
"""Largest inflation ratio of a member over 1 MiB (a zip bomb inflates thousands of times)."""
MAX_MEMBERS = 10_000
"""Most members a zip may have."""
MAX_SAVED_BYTES = 16 << 20
"""Largest saved reply, ``areas.json``, filter or ``review.json`` read (16 MiB: a whole set's
reply is the size of its sheet and solutions, each at most :data:`MAX_TEXT_BYTES`)."""
MAX_QUESTIONS = 1000
"""Most questions a set (a reply, a filter's reading) may hold: a sheet has tens."""
MAX_PARTS = 5000
"""Most parts a set may hold in all, and so most keys of an ``areas.json``."""
MAX_OPTIONS = 20_000
"""Most options of multiple-choice parts a set may hold in all (a part has a handful)."""
MAX_DECISIONS = 20_000
"""Most decisions a ``review.json`` may record (a few per flag)."""
MAX_AST_DEPTH = 256
"""Deepest nesting of a document's pandoc AST (a list ten levels deep is about 45; Python's
own recursion stops near 1000, so past this a sheet is refused with one line)."""


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def check_document_size(path: Path, size: int) -> None:
    """Refuse a document over its stated size (:data:`MAX_TEXT_BYTES`, :data:`MAX_DOCX_BYTES`
    for ``.docx``, :data:`MAX_PDF_BYTES` for ``.pdf``): :class:`InputError` naming the file."""
    limit = {".docx": MAX_DOCX_BYTES, ".pdf": MAX_PDF_BYTES}.get(path.suffix.lower(), MAX_TEXT_BYTES)
    if size > limit:
        raise InputError(str(path), f"too large: {_size(size)} (a sheet is at most {_size(limit)})")


def check_saved_size(path: Path, size: int, what: str) -> None:
    """Refuse a saved file over :data:`MAX_SAVED_BYTES` before it is read: :class:`InputError`."""
    if size > MAX_SAVED_BYTES:
        raise InputError(str(path), f"{what} too large: {_size(size)} (at most {_size(MAX_SAVED_BYTES)})")


MAX_MANIFEST_BYTES = 4 << 20
"""Largest ``.sheet2lambda-outputs.json`` read from ``--out`` (4 MiB: a run writes a name per set
folder and its own files, kilobytes for a course of hundreds of sheets; attack15 C08, a 180 MB one
of ten million names ran 324 s and 1.5 GB)."""


def check_manifest_size(path: Path, size: int) -> None:
    """Refuse an ``--out``'s outputs manifest over :data:`MAX_MANIFEST_BYTES` before it is read:
    :class:`InputError` naming the file (no run of this tool writes one that large)."""
    if size > MAX_MANIFEST_BYTES:
        raise InputError(str(path), f"outputs manifest too large: {_size(size)} (at most {_size(MAX_MANIFEST_BYTES)}; "
                                    "no run writes one this large): remove it or choose another --out")


def check_count(n: int, limit: int, what: str, where: str) -> None:
    """Refuse ``n`` of ``what`` past ``limit`` with one line naming ``where``
    (:class:`InputError`): a reply with a million questions is refused at once, not read for minutes."""
    if n > limit:
        raise InputError(where, f"holds {n:,} {what}, more than the {limit:,} a set can have")


def oversized_set(data: Any) -> str | None:
    """Why a set's JSON (a list of questions, each with ``parts``) is past the bounds
    (:data:`MAX_QUESTIONS`, :data:`MAX_PARTS`), in one line, or ``None``: counted before the
    set is validated, which for a million questions would take minutes."""
    if not isinstance(data, list):
        return None
    if len(data) > MAX_QUESTIONS:
        return f"it holds {len(data):,} questions, more than the {MAX_QUESTIONS:,} a set can have"
    parts = [p for q in data if isinstance(q, dict) and isinstance(q.get("parts"), list) for p in q["parts"]]
    if len(parts) > MAX_PARTS:
        return f"it holds {len(parts):,} parts, more than the {MAX_PARTS:,} a set can have"
    options = sum(len(p["options"]) for p in parts if isinstance(p, dict) and isinstance(p.get("options"), list))
    if options > MAX_OPTIONS:
        return f"it holds {options:,} options, more than the {MAX_OPTIONS:,} a set can have"
    return None


def check_text_sheet(path: Path, data: bytes) -> None:
    """Refuse a markdown or LaTeX sheet holding a NUL byte (a binary file, or text in UTF-16):
    its text would reach the set with the byte in it. :class:`InputError` naming the file."""
    if path.suffix.lower() not in (".docx", ".pdf") and b"\x00" in data:
        at = data.index(b"\x00")
        raise InputError(str(path), f"holds a NUL byte (at byte {at:,}): not a text file in UTF-8")


CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
"""A C0 control character other than tab, line feed, vertical tab, form feed and carriage return
(which are white space to pandoc and to the platform), DEL, or a C1 control (U+0080-U+009F: the
one-character CSI U+009B moves and recolours a terminal as ESC [ does; attack 11, C51): nothing a
sheet's text holds."""


MAX_MARKS = 30
"""Most combining marks (Unicode category M) in a row: Unicode's Stream-Safe Text Format (UAX #15,
https://www.unicode.org/reports/tr15/#Stream_Safe_Text_Format) allows at most 30 non-starters
in a row; written text needs a few (Vietnamese two on a vowel)."""

_LONG_NON_ASCII = re.compile(r"[^\x00-\x7f]{%d,}" % (MAX_MARKS + 1))
"""A stretch that could hold such a run: only these are looked at character by character."""


def check_mark_runs(name: str, text: str) -> str:
    """``text`` unchanged, or :class:`InputError` naming the file and the line when it holds
    more than :data:`MAX_MARKS` combining marks in a row (see the module docstring). Linear:
    only stretches of :data:`MAX_MARKS` + 1 non-ASCII characters are scanned."""
    for m in _LONG_NON_ASCII.finditer(text):
        run = 0
        for k, c in enumerate(m.group()):
            run = run + 1 if unicodedata.category(c)[0] == "M" else 0
            if run > MAX_MARKS:
                line = text.count("\n", 0, m.start() + k) + 1
                raise InputError(name, f"line {line}: more than {MAX_MARKS} combining marks in a row (U+{ord(c):04X}); "
                                       "Unicode's stream-safe text has at most 30: not a sheet's text")
    return text


def check_converted_text(name: str, text: str) -> None:
    """Refuse a document whose text, once converted to markdown, holds a control character
    (:data:`CONTROL_CHARACTER`): a NUL or an escape reaches the text through a notebook's JSON
    (``\\u0000``), a Word document or a markdown file alike, and would go into the set silently.
    :class:`InputError` naming the file, the character and its line. Before it,
    :func:`check_mark_runs` (combining marks); after it, :func:`check_openings` (a LaTeX or
    Word document's questions counted before any reader runs)."""
    check_mark_runs(name, text)  # a Word document's or a notebook's text too
    m = CONTROL_CHARACTER.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        raise InputError(name, f"holds the control character U+{ord(m.group()):04X} (line {line} of its text "
                               "once converted): not a sheet's text")
    check_openings(name, text)


def check_openings(name: str, text: str) -> str:
    """Refuse a document whose converted markdown opens more than :data:`MAX_QUESTIONS`
    questions of one kind (:func:`tasks.convert.openings.count_openings`): a sheet has tens, and the library
    filters read such a document into their time limits, one candidate layout after another,
    before the reading's own count refused it (attack 11, C37: 30,000 ``## Question N`` in
    1 MB answered after 110 s), or more than :data:`tasks.convert.openings.MAX_MATHS` maths spans
    (:func:`tasks.convert.openings.count_maths`), or more than :data:`tasks.convert.openings.MAX_NOTES`
    footnote and link-reference definitions (:func:`tasks.convert.openings.count_notes`).
    :class:`InputError` naming the file, the count and its kind; else ``text`` itself."""
    line = count_problem(text, MAX_QUESTIONS)
    if line:
        raise InputError(name, line)
    return text


def check_notebook(name: str, nb: bytes) -> bytes:
    """:func:`check_openings` for a notebook's bytes (``nb``), before pandoc's ipynb reader
    runs: its markdown cells' sources (:func:`tasks.convert.openings.notebook_markdown`); a
    notebook of 30,000 ``## Question N`` cells otherwise ran minutes before its line (attack19).
    JSON that does not parse is left to the reader (it says why). Returns ``nb``."""
    try:
        parsed = json_loads(nb)
    except ValueError:
        return nb
    check_openings(name, notebook_markdown(parsed))
    return nb


def check_zip(zf: zipfile.ZipFile, name: str) -> None:
    """Refuse a zip whose members would inflate past the bounds (module docstring), from
    its directory, before any member is read: :class:`InputError` naming ``name``."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InputError(name, f"a zip of {len(infos)} members (at most {MAX_MEMBERS})")
    total = 0
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES:
            raise InputError(name, f"zip member {info.filename[:80]} inflates to {_size(info.file_size)} "
                                   f"(at most {_size(MAX_MEMBER_BYTES)})")
        if info.file_size > (1 << 20) and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise InputError(name, f"zip member {info.filename[:80]} inflates {info.file_size // max(info.compress_size, 1)} "
                                   f"times (a zip bomb?)")
        total += info.file_size
    if total > MAX_ZIP_BYTES:
        raise InputError(name, f"zip members inflate to {_size(total)} in all (at most {_size(MAX_ZIP_BYTES)})")


def read_member(zf: zipfile.ZipFile, member: str, name: str) -> bytes:
    """A member's bytes, reading no more than it states (plus one byte to catch a lie)."""
    info = zf.getinfo(member)
    with zf.open(info) as f:
        data = f.read(info.file_size + 1)
    if len(data) > info.file_size:
        raise InputError(name, f"zip member {member[:80]} inflates past its stated size")
    return data


def check_docx(data: bytes, name: str) -> None:
    """Refuse a ``.docx`` (bytes) that is not a zip or would inflate past the bounds."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            check_zip(zf, name)
    except zipfile.BadZipFile:
        raise InputError(name, "not a Word document (not a zip)") from None


def nested_depth(value: Any) -> int:
    """How deep lists and dicts nest in ``value`` (``[]`` is 1); iterative, so any depth is measured."""
    best = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            best = max(best, d)
            stack.extend((x, d + 1) for x in v if isinstance(x, (list, dict)))
    return best


def ast_loads(data: bytes | str, name: str) -> Any:
    """pandoc's JSON AST of document ``name``; raises :class:`InputError` (one line) when the
    document nests deeper than :data:`MAX_AST_DEPTH` (lists in lists, block quotes, brackets),
    never a ``RecursionError``."""
    try:
        ast = json.loads(data)
    except RecursionError:
        depth = None
    else:
        depth = nested_depth(ast)
        if depth <= MAX_AST_DEPTH:
            return ast
    raise InputError(name, "nested too deeply to read (lists, block quotes or groups "
                           + (f"{depth} levels deep in pandoc's reading; " if depth else "")
                           + f"at most {MAX_AST_DEPTH})")
