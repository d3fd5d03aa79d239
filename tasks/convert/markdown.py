r"""Stage 1: a document (markdown, LaTeX, Word, PDF) becomes the markdown both routes read.

- ``.md`` / ``.markdown`` is read as it is (line ends normalised to ``\n``), made the
  student's version by :mod:`tasks.convert.markdown_family` (``\(…\)`` maths as dollars,
  MyST directives, prices, footnotes). Quarto ``.qmd`` / R Markdown ``.Rmd`` are pandoc
  markdown: their chunks as knitr writes them (:mod:`tasks.convert.chunks`), then pandoc's
  markdown reader and :mod:`tasks.convert.quarto`.
- ``.ipynb`` (and a ``.jl``/``.py``/``.R`` script, as Jupytext reads it: :mod:`tasks.convert.scripts`) is read by pandoc's notebook reader, its cells prepared and unwrapped by
  :mod:`tasks.convert.notebooks`; ``.docx`` goes through the OOXML pre-pass of
  :mod:`tasks.convert.docx` (text boxes, SEQ fields, continued numbering) first.
- ``.tex`` first goes through the TeX pre-pass (:mod:`tasks.convert.latex`,
  :mod:`tasks.convert.tex_rewrite`), which keeps exam class, theorem, class-file, list,
  conditional and siunitx structure, then pandoc with ``filters/convert/structure.lua``
  (the contract's markers) before ``tidy.lua``. When pandoc reports that it skipped
  commands or environments that carried text (a class or package we do not have), the
  sheet is read again with them read generally (:mod:`tasks.convert.tex_unknown`), up to
  :data:`UNKNOWN_PASSES` times. The loss checks live in :mod:`tasks.convert.checks`;
  maths using a command nobody defines is an ``UndefinedMaths`` warning.
- ``.pdf`` goes through Mathpix OCR (:mod:`tasks.convert.ocr_cache`, :mod:`tasks.convert.mathpix`:
  cached by the PDF's bytes) and is then read as Mathpix markdown, like a ``.md``.
- ``.tex`` and ``.docx`` go through pandoc (:func:`tasks.convert.pandoc.run_pandoc`) to
  ``commonmark_x-smart`` with ``--wrap=none``: curly quotes stay characters, maths stays
  ``$…$`` / ``$$…$$`` (commonmark_x's ``tex_math_dollars``). The filter
  ``filters/convert/tidy.lua`` drops what the platform cannot render (underline, image
  sizes, heading and link attributes, HTML figures) and keeps multi-line maths inside its
  paragraph; it never adds a word.

Nothing is lost silently. Every message pandoc logs that means content was skipped or not
converted becomes a :class:`~schemas.markdown.ConversionWarning` with pandoc's own
message type as ``kind`` (``SkippedContent``, ``CouldNotConvertTeXMath``,
``CouldNotLoadIncludeFile`` …). Left out are only messages that lose no text: progress
(running a filter, extracting media), a package or class file not loaded (``.sty``,
``.cls``), a skipped layout or setup command (``\vspace``, ``\hypersetup``,
``\textwidth 6.5in`` …), and a skipped ``\begin{x}``/``\end{x}`` whose content survived
in a ``::: {.x}`` div. The
messages are read from pandoc's machine-readable ``--log`` (JSON: ``type``, ``contents``,
``pretty``), which holds every message ``--verbose`` prints, whatever the verbosity;
pandoc runs with ``--quiet`` so that its stderr holds only its error, if any, for the
one-line :class:`~tasks.errors.InputError`. ``message`` is the line ``--verbose`` would
print (``[INFO] Skipped '\question ' at line 6 column 11``). Pandoc 3.9 reports, for
example (all at INFO level)::

    \begin{foo}…\end{foo}       Skipped '\begin{foo}' + Skipped '\end{foo}', content kept in a ::: {.foo} div
    exam class \question         Skipped '\question ' (the text after it is kept)
    exam class parts block        Skipped '\begin{parts} \part … \end{parts}' (the whole block is dropped)
    \begin{tikzpicture}…         Skipped '\begin{tikzpicture} … \end{tikzpicture}'
    \input{missing}              CouldNotLoadIncludeFile missing.tex (WARNING)

Pandoc's LaTeX reader has ``raw_tex`` off, so it writes no ```` ```{=latex} ```` blocks;
raw LaTeX left in any markdown (a ``.md`` input can hold such fences) is still reported
(kind ``RawTeX``). Beyond pandoc's log, four checks of this module add warnings of their
own (``message`` starts with ``[sheet2lambda]``):

- ``StructureLost``: exam-style markers that carry content (``\question``, ``\part``,
  ``\begin{parts}``, ``\begin{solution}`` …) counted in the LaTeX source and found
  neither converted (a div of that class) nor in a pandoc message;
- ``ContentLost``: words of the LaTeX body (four letters or more, outside commands that
  carry no text such as ``\label``) that are neither in the markdown nor in a pandoc
  message, one warning per source line (e.g. ``\item[Part one]`` loses its label
  silently);
- ``MetadataNotKept``: a title, author or date pandoc moved into metadata, which the
  markdown leaves out (LaTeX ``\title``, a docx ``Title`` paragraph);
- ``MathNotKept``: maths that reads back from the written markdown differently from
  what pandoc read from the document.

Images: every image link in the markdown (``![…](…)`` and HTML ``<img src>``) is listed
with the file found for it, or ``None`` (a warning, never a failure). Docx images are
extracted into ``media_dir`` and linked relative to its parent (``media/<sha1>.png``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from schemas.markdown import ConversionWarning, Converted, Markdown, Role
from tasks.cache import stage
from tasks.errors import InputError
from tasks.convert import checks, tex_preamble
from tasks.convert.bounds import ast_loads, check_converted_text, check_mark_runs, check_notebook, check_openings
from tasks.convert.effort import one_effort
from tasks.convert.images import resolve_image, resolve_links
from tasks.convert.pandoc import READ_FORMAT, WRITE_FORMAT, run_pandoc
from tasks.convert.markdown_family import CHUNKED, MARKDOWN_SUFFIXES, knitr_text, student_text
from tasks.convert.mdmath import dollar_maths
from tasks.convert.ocr_cache import ocr_markdown
from tasks.convert.pandoc_ast import divs, image_links, plain, walk
from tasks.convert.scripts import SCRIPTS, script_notebook
from tasks.convert.tex_files import inline
from tasks.convert.tex_rewrite import Prepared, prepare
from tasks.convert.tex_unknown import Unknown, skipped, undefined_maths
from tasks.convert.where import unescaped_at
from tasks.safe_json import json_loads

ROOT = Path(__file__).resolve().parents[2]
TIDY_FILTER = ROOT / "filters" / "convert" / "tidy.lua"
STRUCTURE_FILTER = ROOT / "filters" / "convert" / "structure.lua"

PANDOC_READERS = {".tex": "latex", ".docx": "docx", ".ipynb": "ipynb"}
SUPPORTED = MARKDOWN_SUFFIXES + CHUNKED + tuple(PANDOC_READERS) + (".pdf",) + tuple(SCRIPTS)

UNKNOWN_PASSES = 3
"""Most extra pandoc readings of a LaTeX sheet for commands defined in no file we have."""

PANDOC_TIMEOUT = 120.0
"""Seconds one pandoc run may take before the document is refused."""

# --- entry points -----------------------------------------------------------------


def to_markdown(
    name: str,
    data: bytes,
    role: Role,
    *,
    base_dir: str | None = None,
    media_dir: str | None = None,
    fresh_ocr: bool = False,
    roots: list[str] | None = None,
    offline: bool = False,
) -> Markdown:
    """The markdown a document becomes (:class:`schemas.markdown.Markdown`).

    ``name`` is the file name (its suffix decides the reader: ``.md``, ``.markdown``,
    ``.tex``, ``.docx``), ``data`` its bytes, ``role`` ``"questions"`` or ``"solutions"``.
    ``base_dir`` is the folder the document sits in: LaTeX runs there so that ``\\input``
    and graphics resolve, and image links of ``.md``/``.tex`` are resolved against it.
    ``media_dir`` is where a docx's images are extracted (created if missing); their
    links are relative to its parent (the run folder), e.g. ``media/3f2a….png``. Without
    ``media_dir`` a docx's images are not extracted and their links find no file.

    Returns the markdown with ``digest`` (sha256 hex of ``data``), ``images`` (each link
    with its file, or ``path=None``) and ``warnings`` (see the module docstring).

    A ``.pdf`` becomes markdown through Mathpix (:func:`tasks.convert.ocr_cache.ocr_pdf`:
    from the OCR cache with no call and no credential, else converted and cached;
    ``fresh_ocr``, or the setting ``SHEET2LAMBDA_FRESH_OCR``, converts it again; ``offline``
    refuses a PDF not in the cache rather than call); its images are copied into
    ``media_dir`` and linked ``media/<file>``, as a docx's; ``ocr_pages`` counts the pages
    Mathpix converted for this call.

    Raises :class:`tasks.errors.InputError` (one line) for a PDF Mathpix cannot convert
    (its reason, or the missing credential), an unsupported suffix, an empty file, text that is not UTF-8, a document pandoc cannot read (pandoc's
    own reason) or that takes longer than :data:`PANDOC_TIMEOUT` seconds, and a document
    that converts to no text at all (a preamble or macro file).
    """
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED:
        got = f"'{suffix}'" if suffix else "no suffix"
        raise InputError(name, f"unsupported file type ({got}); supported: {', '.join(SUPPORTED)}")
    if not data.strip():
        raise InputError(name, "empty file")
    digest = hashlib.sha256(data).hexdigest()

    ocr_pages = 0
    if suffix == ".pdf":  # Mathpix OCR (cached by the PDF's bytes), then read as Mathpix markdown
        raw, ocr_pages = ocr_markdown(name, data, media_dir, fresh_ocr, offline)
        text = dollar_maths(raw)
        check_openings(name, text)  # before pandoc reads it (check_converted_text counts any other format's)
        ast = _read_markdown(name, text)
        warnings = checks.raw_tex_warnings(ast)
        links = image_links(ast)
        base = str(Path(media_dir).parent) if media_dir else None
    elif suffix in MARKDOWN_SUFFIXES:
        text = student_text(suffix, _decode(name, data))
        check_openings(name, text)  # before pandoc reads it: 30,000 questions in 1 MB took it 28 s
        ast = _read_markdown(name, text)
        warnings = checks.raw_tex_warnings(ast) + checks.shortcode_warnings(text)
        links = image_links(ast)
        base = base_dir
    elif suffix == ".tex":
        source = _decode(name, data)
        text, warnings, links = _convert_latex(name, source, base_dir, roots)
        base = base_dir
    elif suffix in CHUNKED:
        text, warnings, links = _convert_quarto(name, check_openings(name, knitr_text(_decode(name, data))))
        base = base_dir
    elif suffix == ".ipynb" or suffix in SCRIPTS:  # a script: the notebook Jupytext reads (tasks.convert.scripts)
        nb = check_notebook(name, data if suffix == ".ipynb" else script_notebook(name, _decode(name, data), suffix))
        text, warnings, links = _convert_docx(name, nb, media_dir, "ipynb")
        base = str(Path(media_dir).parent) if media_dir else None
    else:
        text, warnings, links = _convert_docx(name, data, media_dir)
        base = str(Path(media_dir).parent) if media_dir else None
    if not text.strip():
        raise InputError(name, "no text once converted (a preamble or macro file, not a sheet?)")
    check_converted_text(name, text)

    images, refused = resolve_links(links, base)
    return Markdown(name=name, role=role, suffix=suffix, digest=digest, text=text, images=images,
                    warnings=warnings + refused, ocr_pages=ocr_pages)


# --- reading ----------------------------------------------------------------------


def _decode(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(name, f"not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x}); save it as UTF-8") from None
    return check_mark_runs(name, text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))


def _pandoc(name: str, args: list[str], stdin: bytes, cwd: str) -> tuple[dict, list[dict]]:
    """Run pandoc to JSON with a machine-readable log; (AST, log entries) or InputError."""
    with tempfile.TemporaryDirectory(prefix="s2l-log-") as logdir:
        log = os.path.join(logdir, "log.json")
        run = run_pandoc([*args, "-t", "json", "--quiet", f"--log={log}"], stdin=stdin, cwd=cwd, timeout=PANDOC_TIMEOUT)
        if run.timed_out:
            raise InputError(name, f"pandoc took longer than {PANDOC_TIMEOUT:.0f} s to read it")
        if run.returncode != 0:
            raise InputError(name, f"pandoc cannot read it: {_one_line(run.stderr)}")
        try:
            entries = json_loads(Path(log).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
    return ast_loads(run.stdout, name), entries


def _one_line(stderr: str) -> str:
    """Pandoc's error (stderr of a ``--quiet`` run) as one line: ``Error at (line 7, column
    2): expecting \\end{document}``; a Haskell backtrace is left out."""
    lines = []
    for ln in stderr.splitlines():
        if ln.startswith("HasCallStack"):
            break
        if ln.strip() and not re.match(r"^\[(INFO|WARNING)\]", ln):
            lines.append(ln.strip())
    if not lines:
        return "unknown error"
    reason = lines[0].removeprefix("pandoc: ")
    if reason.endswith(":") and len(lines) > 1:
        reason += " " + lines[1]
    return reason[:300]


def _write_markdown(name: str, ast: dict) -> tuple[str, list[dict]]:
    with tempfile.TemporaryDirectory(prefix="s2l-md-") as cwd:
        log = os.path.join(cwd, "log.json")
        run = run_pandoc(
            ["-f", "json", "-t", WRITE_FORMAT, "--wrap=none", "--quiet", f"--log={log}"],
            stdin=json.dumps(ast).encode(), cwd=cwd, timeout=PANDOC_TIMEOUT,
        )
        if run.returncode != 0 or run.timed_out:
            raise InputError(name, f"pandoc cannot write it as markdown: {_one_line(run.stderr)}")
        try:
            entries = json_loads(Path(log).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
    return run.stdout.decode("utf-8").replace("\r\n", "\n"), entries


def _read_markdown(name: str, text: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="s2l-md-") as cwd:
        ast, _ = _pandoc(name, ["-f", READ_FORMAT], text.encode(), cwd)
    return ast


@one_effort  # one budget for the conversion's passes (tasks.convert.effort)
def _convert_latex(name: str, source: str, base_dir: str | None,
                   roots: list[str] | None = None) -> tuple[str, list[ConversionWarning], list[str]]:
    # pandoc reads nothing (--sandbox): the files the sheet may read are put in place first
    # (tasks.convert.tex_files), and those it may not are refused with a warning naming them;
    # then the TeX pre-pass keeps the sheet's structure (tasks.convert.tex_rewrite).
    resolved = inline(source, base_dir if base_dir and Path(base_dir).is_dir() else None, roots)
    args = ["-f", "latex", "--sandbox", f"--lua-filter={STRUCTURE_FILTER}", f"--lua-filter={TIDY_FILTER}",
            "-M", "sheet2lambda-reader=latex"]

    def read(text: str) -> tuple[dict, list[dict]]:
        with tempfile.TemporaryDirectory(prefix="s2l-tex-") as cwd:
            return _pandoc(name, args, text.encode(), cwd)

    prepared, (ast, log), unread = tex_preamble.read_past_preamble(resolved.tex, lambda t: prepare(t, base_dir), read)
    resolved.tex = tex_preamble.without(resolved.tex, unread)
    # What a class we do not have defines, read generally (tasks.convert.tex_unknown): pandoc
    # says what it skipped, and the sheet is read again; a command inside one it skipped
    # shows only then, so up to UNKNOWN_PASSES times.
    unknown = Unknown()
    for _ in range(UNKNOWN_PASSES):
        more = skipped(log)
        if not (set(more.macros) - set(unknown.macros) or more.envs - unknown.envs):
            break
        unknown.macros.update({k: max(v, unknown.macros.get(k, 0)) for k, v in more.macros.items()})
        unknown.envs |= more.envs
        again = prepare(resolved.tex, base_dir, unknown)
        if again.source == prepared.source:
            break
        prepared = again
        with tempfile.TemporaryDirectory(prefix="s2l-tex-") as cwd:
            ast, log = _pandoc(name, args, prepared.source.encode(), cwd)
    _honour_graphicspath(ast, prepared.graphicspath, base_dir)
    prepared.notes += unread
    text, warnings, links = _finish(name, ast, log, resolved.tex, prepared)
    return text, resolved.warnings + warnings, links


def _honour_graphicspath(ast: dict, folders: list[str], base_dir: str | None) -> None:
    """Point each image link that finds no file at the ``\\graphicspath`` folder that has it
    (in the order the sheet lists them, as LaTeX searches)."""
    for n in walk(ast.get("blocks", [])):
        if n.get("t") != "Image" or resolve_image(n["c"][2][0], base_dir):
            continue
        for folder in folders:
            candidate = folder.rstrip("/") + "/" + n["c"][2][0]
            if resolve_image(candidate, base_dir):
                n["c"][2][0] = candidate
                break


def _convert_quarto(name: str, text: str) -> tuple[str, list[ConversionWarning], list[str]]:
    """A ``.qmd``/``.Rmd`` (its chunks as knitr writes them) through pandoc's markdown reader
    and :func:`tasks.convert.quarto.student_blocks`."""
    from tasks.convert import quarto

    args = ["-f", quarto.READER, "--sandbox", f"--lua-filter={TIDY_FILTER}", "-M", "sheet2lambda-reader=markdown"]
    with tempfile.TemporaryDirectory(prefix="s2l-qmd-") as cwd:
        ast, log = _pandoc(name, args, text.encode(), cwd)
    return _finish(name, quarto.student_blocks(ast, name, PANDOC_TIMEOUT), log, None)


def _convert_docx(name: str, data: bytes, media_dir: str | None,
                  reader: str = "docx") -> tuple[str, list[ConversionWarning], list[str]]:
    """A Word document (``reader`` ``docx``: :mod:`tasks.convert.docx` before pandoc) or a
    notebook (``ipynb``: :mod:`tasks.convert.notebooks` around pandoc) through pandoc."""
    from tasks.convert import docx, notebooks

    original = data
    data = notebooks.prepare(name, data) if reader == "ipynb" else docx.prepare(data)
    fmt = notebooks.READER if reader == "ipynb" else reader
    args = ["-f", fmt, "--sandbox", f"--lua-filter={TIDY_FILTER}", "-M", f"sheet2lambda-reader={reader}"]
    if media_dir:
        media = Path(media_dir).resolve()
        media.mkdir(parents=True, exist_ok=True)
        ast, log = _pandoc(name, [*args, f"--extract-media={media.name}"], data, str(media.parent))
    else:
        with tempfile.TemporaryDirectory(prefix="s2l-docx-") as cwd:
            ast, log = _pandoc(name, args, data, cwd)
    if reader == "ipynb":
        return _finish(name, notebooks.unwrap_cells(ast), log, None)
    text, warnings, links = _finish(name, ast, log, None)
    return text, docx.linked_images(original) + docx.equation_warnings(original, links) + warnings, links


def _finish(
    name: str, ast: dict, log: list[dict], tex: str | None, prepared: Prepared | None = None
) -> tuple[str, list[ConversionWarning], list[str]]:
    """Write ``ast`` as markdown, read it back, and gather every warning."""
    unwrapped = [plain(v) for v in ast.get("meta", {}).pop("sheet2lambda-unwrapped", {}).get("c", [])]
    text, write_log = _write_markdown(name, ast)
    back = _read_markdown(name, text)
    entries = checks.dedupe(log + write_log)
    found = divs(ast)
    for cls in unwrapped:  # divs structure.lua unwrapped: their content survived too
        found[cls] = found.get(cls, 0) + 1
    read = prepared.source if prepared is not None else tex  # what pandoc read: its log's line numbers
    kept = unescaped_at(entries)
    warnings = [w for e in entries if (w := checks.keep(e, found, read, kept)) is not None]
    if tex is not None:
        body = checks.tex_body(tex)
        converted = prepared.converted if prepared else set()
        warnings += prepared.notes if prepared else []
        hidden = prepared.hidden if prepared else ""
        warnings += checks.structure_lost(body, entries, ast, checks.defined(tex) | converted, hidden)
        meta = " ".join(plain(v) for v in ast.get("meta", {}).values())
        warnings += checks.content_lost(body, text, entries, meta + "\n" + hidden)
        warnings += undefined_maths(text, tex)
    warnings += checks.metadata_not_kept(ast, text)
    warnings += checks.math_not_kept(ast, back)
    warnings += checks.raw_tex_warnings(back)
    return text, warnings, image_links(back)



@stage("markdown", ignore=("base_dir", "media_dir", "roots", "offline"))
def markdown_task(
    name: str, data: bytes, role: Role, base_dir: str | None, media_dir: str | None, context: str | None = None,
    fresh_ocr: bool = False,
    roots: list[str] | None = None,
    offline: bool = False,
) -> Converted:
    """:func:`to_markdown` as a cached task, keyed by the file's name and bytes and, for
    LaTeX, ``context``: a digest of the TeX files beside it that ``\\input`` may read
    (:func:`tasks.convert.inputs.tex_context`); for a PDF ``context`` is the OCR cache's
    (:func:`tasks.convert.ocr_cache.ocr_context`, which ``tex_context`` returns for a
    ``.pdf``), so that a failed or superseded conversion is never a cache hit.
    ``fresh_ocr``: convert a PDF again (``--fresh-ocr``; pass a fresh ``context`` too);
    ``offline``: a PDF not in the OCR cache is an error, not a call (not in the key: only
    a conversion that succeeded is cached, and it does not depend on it).

    Bad input is returned as ``Converted(error=problem)`` rather than raised, so the run
    ends with one line naming the file as the user gave it, and no traceback. A docx's extracted images are returned in
    ``media`` (restore them with :func:`restore_media` on a cache hit).
    """
    try:
        md = to_markdown(name, data, role, base_dir=base_dir, media_dir=media_dir, fresh_ocr=fresh_ocr, roots=roots,
                         offline=offline)
    except InputError as e:
        return Converted(error=e.problem)
    media: dict[str, bytes] = {}
    if media_dir and Path(media_dir).is_dir():
        wanted = {Path(i.link).name for i in md.images}
        media = {p.name: p.read_bytes() for p in Path(media_dir).iterdir() if p.is_file() and p.name in wanted}
    return Converted(markdown=md, media=media)


def restore_media(converted: Converted, media_dir: str) -> None:
    """Write a docx's images held in ``converted.media`` into ``media_dir`` (if not there)."""
    if not converted.media:
        return
    folder = Path(media_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, blob in converted.media.items():
        target = folder / file_name
        if not target.exists():
            target.write_bytes(blob)
