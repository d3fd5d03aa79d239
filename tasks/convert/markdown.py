r"""Stage 1: a document (markdown, LaTeX, Word) becomes the markdown both routes read.

- ``.md`` / ``.markdown`` is read as it is (line ends normalised to ``\n``): it already
  is what the routes read, so it is never rewritten.
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
from urllib.parse import unquote

from schemas.markdown import ConversionWarning, Converted, ImageLink, Markdown, Role
from tasks.cache import stage
from tasks.errors import InputError
from tasks.convert.pandoc import READ_FORMAT, WRITE_FORMAT, run_pandoc
from tasks.convert.tex_files import inline

ROOT = Path(__file__).resolve().parents[2]
TIDY_FILTER = ROOT / "filters" / "convert" / "tidy.lua"

MARKDOWN_SUFFIXES = (".md", ".markdown")
PANDOC_READERS = {".tex": "latex", ".docx": "docx"}
SUPPORTED = MARKDOWN_SUFFIXES + tuple(PANDOC_READERS)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pdf", ".svg", ".gif", ".eps")
"""Tried in this order when an image link has no extension (LaTeX ``\\includegraphics{fig}``)."""

PANDOC_TIMEOUT = 120.0
"""Seconds one pandoc run may take before the document is refused."""

OWN = "[sheet2lambda]"

# Log messages that never mean lost content.
_BENIGN_TYPES = {"RunningFilter", "FilterCompleted", "Extracting", "LoadedResource"}
_PACKAGE_SUFFIXES = (".sty", ".cls", ".clo", ".cfg", ".def", ".fd")

# Commands whose skipping loses no text: spacing, page layout, setup (mostly preamble).
_LAYOUT = {
    "makeatletter", "makeatother", "smallskip", "medskip", "bigskip", "vspace", "hspace",
    "vfill", "hfill", "hfil", "vfil", "newpage", "clearpage", "cleardoublepage", "pagebreak",
    "nopagebreak", "linebreak", "nolinebreak", "newline", "noindent", "indent", "centering",
    "raggedright", "raggedleft", "maketitle", "tableofcontents", "setlength", "addtolength",
    "setcounter", "addtocounter", "newsavebox", "newlength", "newcounter", "pgfplotsset",
    "tikzset", "usetikzlibrary", "hypersetup", "lstset", "lstdefinestyle", "lstdefinelanguage",
    "definecolor", "pagestyle", "thispagestyle", "fancyhf", "fancyhead", "fancyfoot", "lhead",
    "chead", "rhead", "lfoot", "cfoot", "rfoot", "geometry", "allowdisplaybreaks",
    "theoremstyle", "graphicspath", "bibliographystyle", "numberwithin", "sisetup",
    "captionsetup", "setlist", "null", "relax", "protect", "par", "fill", "linewidth",
    "textwidth", "baselineskip", "parindent", "parskip", "normalsize", "small", "footnotesize",
    "large", "Large", "LARGE", "huge", "Huge", "selectfont", "printanswers", "noprintanswers",
    "extrawidth", "extraheadheight", "firstpageheader", "runningheader", "firstpagefooter",
    "runningfooter", "headrule", "footrule", "pointsinmargin", "pointsinrightmargin",
    "bracketedpoints", "unframedsolutions", "framedsolutions", "SolutionEmphasis",
    "renewcommand", "newcommand", "providecommand", "DeclareMathOperator", "newtheorem",
    "newenvironment", "renewenvironment", "let", "def", "columnbreak", "FloatBarrier", "fi",
    "linespread", "oddsidemargin", "evensidemargin", "topmargin", "textheight", "headheight",
    "headsep", "footskip", "marginparwidth", "voffset", "hoffset", "columnsep",
}

# Exam-style markers that carry content (macros, then environments).
_MARKER_MACROS = (
    "question", "titledquestion", "part", "subpart", "subsubpart", "choice", "CorrectChoice",
    "problem", "problempart",
)
_MARKER_ENVS = (
    "questions", "parts", "subparts", "subsubparts", "solution", "solutionorbox",
    "solutionorlines", "choices", "checkboxes", "oneparchoices", "problem", "exercise",
    "question", "answer",
)

# Commands whose arguments are not text of the sheet: name → number of {…} arguments.
_ARGS_NOT_TEXT = {
    "label": 1, "ref": 1, "eqref": 1, "pageref": 1, "autoref": 1, "cref": 1, "Cref": 1,
    "cite": 1, "citep": 1, "citet": 1, "nocite": 1, "includegraphics": 1, "input": 1,
    "include": 1, "usepackage": 1, "documentclass": 1, "hspace": 1, "vspace": 1,
    "setlength": 2, "addtolength": 2, "setcounter": 2, "addtocounter": 2, "color": 1,
    "textcolor": 1, "colorbox": 1, "fcolorbox": 2, "definecolor": 3, "pagestyle": 1,
    "thispagestyle": 1, "fontsize": 2, "rule": 2, "multicolumn": 2, "multirow": 2,
    "cline": 1, "newcommand": 2, "renewcommand": 2, "providecommand": 2, "def": 1,
    "newenvironment": 3, "renewenvironment": 3, "usetikzlibrary": 1, "tikzset": 1,
    "pgfplotsset": 1, "hypersetup": 1, "lstset": 1, "graphicspath": 1, "bibliography": 1,
    "bibliographystyle": 1, "newtheorem": 2, "theoremstyle": 1, "numberwithin": 2, "raisebox": 1,
    "resizebox": 2, "scalebox": 1, "makebox": 0, "parbox": 1, "columnwidth": 0,
}
# Environments whose first {…} arguments are specifications, not text.
_ENV_ARGS = {
    "tabular": 1, "tabular*": 2, "tabularx": 2, "array": 1, "longtable": 1, "tabu": 1,
    "minipage": 1, "multicols": 1, "wrapfigure": 2, "subfigure": 1, "tcolorbox": 0,
}


# --- entry points -----------------------------------------------------------------


def to_markdown(
    name: str,
    data: bytes,
    role: Role,
    *,
    base_dir: str | None = None,
    media_dir: str | None = None,
    roots: list[str] | None = None,
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

    Raises :class:`tasks.errors.InputError` (one line) for a ``.pdf``, an unsupported
    suffix, an empty file, text that is not UTF-8, a document pandoc cannot read (pandoc's
    own reason) or that takes longer than :data:`PANDOC_TIMEOUT` seconds, and a document
    that converts to no text at all (a preamble or macro file).
    """
    suffix = Path(name).suffix.lower()
    if suffix == ".pdf":
        raise InputError(name, "PDF is not supported yet (it needs Mathpix OCR): convert it to markdown first")
    if suffix not in SUPPORTED:
        got = f"'{suffix}'" if suffix else "no suffix"
        raise InputError(name, f"unsupported file type ({got}); supported: {', '.join(SUPPORTED)}")
    if not data.strip():
        raise InputError(name, "empty file")
    digest = hashlib.sha256(data).hexdigest()

    if suffix in MARKDOWN_SUFFIXES:
        text = _decode(name, data)
        ast = _read_markdown(name, text)
        warnings = _raw_tex_warnings(ast)
        links = image_links(ast)
        base = base_dir
    elif suffix == ".tex":
        source = _decode(name, data)
        text, warnings, links = _convert_latex(name, source, base_dir, roots)
        base = base_dir
    else:
        text, warnings, links = _convert_docx(name, data, media_dir)
        base = str(Path(media_dir).parent) if media_dir else None
    if not text.strip():
        raise InputError(name, "no text once converted (a preamble or macro file, not a sheet?)")

    images = [ImageLink(link=link, path=resolve_image(link, base)) for link in links]
    return Markdown(name=name, role=role, suffix=suffix, digest=digest, text=text, images=images, warnings=warnings)


def resolve_images(markdown: Markdown, base_dir: str | None, media_dir: str | None = None) -> Markdown:
    """A copy of ``markdown`` with every image link resolved again (files may have moved).

    Links of a ``.docx`` are resolved against ``media_dir``'s parent (where
    :func:`to_markdown` linked them from), others against ``base_dir``. Never raises for a
    missing file: its ``path`` is ``None``.
    """
    if markdown.suffix == ".docx":
        base = str(Path(media_dir).parent) if media_dir else None
    else:
        base = base_dir
    images = [ImageLink(link=i.link, path=resolve_image(i.link, base)) for i in markdown.images]
    return markdown.model_copy(update={"images": images})


def resolve_image(link: str, base_dir: str | None) -> str | None:
    """The absolute path of the file an image ``link`` names, or ``None``.

    The link is percent-decoded and taken relative to ``base_dir``; a link without an
    extension tries :data:`IMAGE_EXTENSIONS` in turn. URLs (``http:``, ``data:`` …), links
    that leave ``base_dir`` and links with no ``base_dir`` give ``None``.
    """
    if not base_dir or not link or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", link):
        return None
    base = Path(base_dir).resolve()
    target = (base / unquote(link)).resolve()
    candidates = [target]
    if not target.suffix:
        candidates += [target.with_name(target.name + ext) for ext in IMAGE_EXTENSIONS]
    for c in candidates:
        if c.is_file() and (c == base or base in c.parents):
            return str(c)
    return None


_MATHPIX_TRAITS = re.compile(r"\\mathrm\{~|cdn\.mathpix\.com|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+")


def mathpix_style(markdown: str) -> bool:
    """True when ``markdown`` looks converted by Mathpix (from a PDF).

    Both must hold: display maths fenced by ``$$`` on lines of their own (pandoc writes
    ``$$…$$`` inside the paragraph instead), and a Mathpix trait: ``\\mathrm{~`` (units
    spaced with a tie), a ``cdn.mathpix.com`` image, or Mathpix's image names
    (``<uuid>-<page>``). Used by the flow to decide the ``stray_minus`` check.
    """
    own_line = re.search(r"^[ \t]*(?:[-*+][ \t]+)?\$\$[ \t]*$", markdown, re.M)
    return bool(own_line and _MATHPIX_TRAITS.search(markdown))


# --- reading ----------------------------------------------------------------------


def _decode(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(name, f"not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x}); save it as UTF-8") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


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
            entries = json.loads(Path(log).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
    return json.loads(run.stdout), entries


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
            entries = json.loads(Path(log).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
    return run.stdout.decode("utf-8").replace("\r\n", "\n"), entries


def _read_markdown(name: str, text: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="s2l-md-") as cwd:
        ast, _ = _pandoc(name, ["-f", READ_FORMAT], text.encode(), cwd)
    return ast


def _convert_latex(name: str, source: str, base_dir: str | None,
                   roots: list[str] | None = None) -> tuple[str, list[ConversionWarning], list[str]]:
    # pandoc reads nothing (--sandbox): the files the sheet may read are put in place first
    # (tasks.convert.tex_files), and those it may not are refused with a warning naming them.
    resolved = inline(source, base_dir if base_dir and Path(base_dir).is_dir() else None, roots)
    args = ["-f", "latex", "--sandbox", f"--lua-filter={TIDY_FILTER}", "-M", "sheet2lambda-reader=latex"]
    with tempfile.TemporaryDirectory(prefix="s2l-tex-") as cwd:
        ast, log = _pandoc(name, args, resolved.tex.encode(), cwd)
    text, warnings, links = _finish(name, ast, log, resolved.tex)
    return text, resolved.warnings + warnings, links


def _convert_docx(name: str, data: bytes, media_dir: str | None) -> tuple[str, list[ConversionWarning], list[str]]:
    args = ["-f", "docx", "--sandbox", f"--lua-filter={TIDY_FILTER}", "-M", "sheet2lambda-reader=docx"]
    if media_dir:
        media = Path(media_dir).resolve()
        media.mkdir(parents=True, exist_ok=True)
        ast, log = _pandoc(name, [*args, f"--extract-media={media.name}"], data, str(media.parent))
    else:
        with tempfile.TemporaryDirectory(prefix="s2l-docx-") as cwd:
            ast, log = _pandoc(name, args, data, cwd)
    return _finish(name, ast, log, None)


def _finish(name: str, ast: dict, log: list[dict], tex: str | None) -> tuple[str, list[ConversionWarning], list[str]]:
    """Write ``ast`` as markdown, read it back, and gather every warning."""
    text, write_log = _write_markdown(name, ast)
    back = _read_markdown(name, text)
    entries = _dedupe(log + write_log)
    divs = _divs(ast)
    warnings = [w for e in entries if (w := _keep(e, divs)) is not None]
    if tex is not None:
        body = _tex_body(tex)
        warnings += _structure_lost(body, entries, ast, _defined(tex))
        meta = " ".join(_plain(v) for v in ast.get("meta", {}).values())
        warnings += _content_lost(body, text, entries, meta)
    warnings += _metadata_not_kept(ast, text)
    warnings += _math_not_kept(ast, back)
    warnings += _raw_tex_warnings(back)
    return text, warnings, image_links(back)


# --- the AST ----------------------------------------------------------------------


def _walk(node):
    """Every dict node of a pandoc JSON AST, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(reversed(list(n.values())))
        elif isinstance(n, list):
            stack.extend(reversed(n))


def _blocks(ast: dict) -> list:
    return ast.get("blocks", [])


_IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)


def image_links(ast: dict) -> list[str]:
    """Image targets in a pandoc JSON AST, in order, each once.

    ``Image`` elements and ``<img src=…>`` in raw HTML (blocks and inlines).
    """
    links: list[str] = []
    for n in _walk(_blocks(ast)):
        t = n.get("t")
        if t == "Image":
            links.append(n["c"][2][0])
        elif t in ("RawBlock", "RawInline") and n["c"][0] == "html":
            links += [next(g for g in m.groups() if g is not None) for m in _IMG_SRC.finditer(n["c"][1])]
    return list(dict.fromkeys(links))


def _plain(node) -> str:
    """The text of a JSON AST fragment (inlines, blocks or a meta value)."""
    out: list[str] = []

    def go(n):
        if isinstance(n, list):
            for x in n:
                go(x)
            return
        if not isinstance(n, dict):
            return
        t, c = n.get("t"), n.get("c")
        if t == "Str":
            out.append(c)
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t == "Math":
            out.append(f"${c[1]}$")
        elif t in ("Code", "CodeBlock"):
            out.append(c[1])
        elif t in ("MetaString",):
            out.append(c)
        elif t in ("Image", "Link"):
            go(c[1])
        elif t in ("Span", "Div"):
            go(c[1])
        elif c is not None:
            go(c)
        if t in ("Para", "Plain", "Header"):
            out.append(" ")

    go(node)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _divs(ast: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in _walk(_blocks(ast)):
        if n.get("t") == "Div":
            for cls in n["c"][0][1]:
                counts[cls] = counts.get(cls, 0) + 1
    return counts


def _maths(ast: dict) -> list[tuple[str, str]]:
    return [
        (n["c"][0]["t"], re.sub(r"\s+", " ", n["c"][1]).strip())
        for n in _walk(_blocks(ast))
        if n.get("t") == "Math"
    ]


# --- warnings ---------------------------------------------------------------------


def _dedupe(entries: list[dict]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for e in entries:
        key = json.dumps(e, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _strip_groups(s: str, i: int, n_braces: int | None) -> int:
    """Index past optional ``*``, ``[…]`` groups and up to ``n_braces`` ``{…}`` groups at ``i``
    (all ``{…}`` groups when ``n_braces`` is None)."""
    if i < len(s) and s[i] == "*":
        i += 1
    taken = 0
    while True:
        j = i
        while j < len(s) and s[j] in " \t\n":
            j += 1
        if j < len(s) and s[j] in "[{" and (s[j] == "[" or n_braces is None or taken < n_braces):
            close = "]" if s[j] == "[" else "}"
            depth, k = 0, j
            while k < len(s):
                if s[k] == "\\":
                    k += 2
                    continue
                if s[k] == s[j]:
                    depth += 1
                elif s[k] == close:
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            if k >= len(s):
                return len(s)
            if s[j] == "{":
                taken += 1
            i = k + 1
            continue
        return i


_CONTROL_WORD = re.compile(r"\\([A-Za-z@]+)")
_DIMENSION = re.compile(r"\s*=?\s*[-+]?(?:\d+\.?\d*|\.\d+)\s*(?:pt|in|cm|mm|em|ex|bp|pc|sp|dd|cc|mu)\b")


def _layout_only(contents: str) -> bool:
    """True when a skipped piece of LaTeX is only layout/setup commands with their arguments."""
    s, i, rest = contents, 0, []
    while i < len(s):
        m = _CONTROL_WORD.match(s, i)
        if m and m.group(1) in _LAYOUT:
            i = _strip_groups(s, m.end(), None)
            dim = _DIMENSION.match(s, i)
            i = dim.end() if dim else i
            continue
        rest.append(s[i])
        i += 1
    return not "".join(rest).strip()


def _keep(entry: dict, divs: dict[str, int]) -> ConversionWarning | None:
    """The warning for one pandoc log entry, or None when it loses no content."""
    kind = entry.get("type", "Unknown")
    if kind in _BENIGN_TYPES:
        return None
    path = str(entry.get("path", ""))
    if kind == "CouldNotLoadIncludeFile" and path.lower().endswith(_PACKAGE_SUFFIXES):
        return None
    contents = entry.get("contents")
    if kind == "SkippedContent" and isinstance(contents, str):
        if _layout_only(contents):
            return None
        wrapper = re.fullmatch(r"\s*\\(?:begin|end)\{([^}]*)\}\s*", contents)
        if wrapper and divs.get(wrapper.group(1), 0) > 0:
            return None  # the environment's content survived in a div of its name
    text = contents if isinstance(contents, str) else path
    message = f"[{entry.get('verbosity', 'INFO')}] {entry.get('pretty', kind)}"
    return ConversionWarning(kind=kind, text=text or "", message=message)


def _strip_comment(line: str) -> str:
    for m in re.finditer(r"%", line):
        k, j = 0, m.start() - 1
        while j >= 0 and line[j] == "\\":
            k += 1
            j -= 1
        if k % 2 == 0:
            return line[: m.start()]
    return line


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _tex_body(tex: str) -> str:
    """The LaTeX source with comments, preamble, ``comment`` environments and ``\\iffalse``
    blocks blanked out (line numbers kept)."""
    text = "\n".join(_strip_comment(ln) for ln in tex.split("\n"))
    begin = re.search(r"\\begin\{document\}", text)
    if begin:
        text = _blank(text, 0, begin.end())
    end = re.search(r"\\end\{document\}", text)
    if end:
        text = _blank(text, end.start(), len(text))
    for pat in (r"\\begin\{comment\}.*?\\end\{comment\}", r"\\iffalse\b.*?\\fi\b"):
        for m in reversed(list(re.finditer(pat, text, re.S))):
            text = _blank(text, m.start(), m.end())
    return text


def _reported(entries: list[dict]) -> str:
    return "\n".join(str(e.get("contents", "")) for e in entries)


_DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z@]+)"
    r"|\\[gex]?def\s*\\([A-Za-z@]+)"
    r"|\\(?:re)?newenvironment\*?\s*\{([^}]+)\}"
)


def _defined(tex: str) -> set[str]:
    """Names of the commands and environments the LaTeX source defines itself (pandoc
    expands those, so they are converted, not lost)."""
    return {next(g for g in m.groups() if g) for m in _DEFINITION.finditer(tex)}


def _structure_lost(body: str, entries: list[dict], ast: dict, defined: set[str] = frozenset()) -> list[ConversionWarning]:
    """``StructureLost`` warnings: exam-style markers (:data:`_MARKER_MACROS`,
    :data:`_MARKER_ENVS`) in the LaTeX ``body`` that outnumber those pandoc either turned
    into a div of their name or named in a log entry. Markers the source defines itself
    (``defined``) are skipped: pandoc expands them."""
    reported, divs, out = _reported(entries), _divs(ast), []
    for name in _MARKER_MACROS:
        if name in defined:
            continue
        pat = re.compile(r"\\" + name + r"(?![A-Za-z@])")
        n, told = len(pat.findall(body)), len(pat.findall(reported))
        if n > told:
            out.append(ConversionWarning(
                kind="StructureLost", text="\\" + name,
                message=f"{OWN} {n - told} of {n} \\{name} in the source neither converted nor reported by pandoc",
            ))
    for env in _MARKER_ENVS:
        if env in defined:
            continue
        pat = re.compile(r"\\begin\{" + re.escape(env) + r"\}")
        n = len(pat.findall(body))
        told = max(len(pat.findall(reported)), divs.get(env, 0))
        if n > told:
            out.append(ConversionWarning(
                kind="StructureLost", text=f"\\begin{{{env}}}",
                message=f"{OWN} {n - told} of {n} \\begin{{{env}}} in the source neither converted nor reported by pandoc",
            ))
    return out


def _drop_not_text(body: str) -> str:
    """Blank out commands and arguments that are not words of the sheet (keeps positions)."""
    chars = list(body)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, len(chars))):
            if chars[k] != "\n":
                chars[k] = " "

    i = 0
    while (m := _CONTROL_WORD.search(body, i)) is not None:
        name, stop = m.group(1), m.end()
        if name in ("begin", "end"):
            stop = _strip_groups(body, m.end(), 1)
            env = re.match(r"\s*(?:\[[^\]]*\]\s*)*\{([^}]*)\}", body[m.end():stop])
            if name == "begin" and env and env.group(1) in _ENV_ARGS:
                stop = _strip_groups(body, stop, _ENV_ARGS[env.group(1)])
        elif name in _ARGS_NOT_TEXT:
            stop = _strip_groups(body, m.end(), _ARGS_NOT_TEXT[name])
        blank(m.start(), stop)
        i = stop
    # Key=value option lists and float placements.
    text = "".join(chars)
    for m in re.finditer(r"\[[^\[\]]*=[^\[\]]*\]|\[[htbpH!]+\]", text):
        blank(m.start(), m.end())
    return "".join(chars)


def _content_lost(body: str, markdown: str, entries: list[dict], meta: str) -> list[ConversionWarning]:
    words = _drop_not_text(body)
    haystack = "\n".join([markdown, _reported(entries), meta])
    lines = body.split("\n")
    missing: dict[int, list[str]] = {}
    for m in re.finditer(r"[A-Za-z]{4,}", words):
        if m.group(0) not in haystack:
            line = words.count("\n", 0, m.start())
            missing.setdefault(line, [])
            if m.group(0) not in missing[line]:
                missing[line].append(m.group(0))
    return [
        ConversionWarning(
            kind="ContentLost", text=lines[i].strip(),
            message=f"{OWN} line {i + 1}: {', '.join(ws)} not in the markdown, and pandoc reported nothing",
        )
        for i, ws in sorted(missing.items())
    ]


def _metadata_not_kept(ast: dict, markdown: str) -> list[ConversionWarning]:
    out = []
    for key, value in ast.get("meta", {}).items():
        text = _plain(value)
        if not text:
            continue
        words = re.findall(r"\w{2,}", text)
        if words and all(w in markdown for w in words):
            continue
        out.append(ConversionWarning(
            kind="MetadataNotKept", text=text,
            message=f"{OWN} the document's {key} “{text}” is metadata, which the markdown leaves out",
        ))
    return out


def _math_not_kept(before: dict, after: dict) -> list[ConversionWarning]:
    a, b = _maths(before), _maths(after)
    if a == b:
        return []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return [ConversionWarning(
                kind="MathNotKept", text=x[1],
                message=f"{OWN} maths no. {i + 1} reads back from the markdown as {y[1]!r}",
            )]
    return [ConversionWarning(
        kind="MathNotKept", text=(a[len(b)][1] if len(a) > len(b) else b[len(a)][1]),
        message=f"{OWN} {len(a)} maths read from the document, {len(b)} read back from the markdown",
    )]


def _raw_tex_warnings(ast: dict) -> list[ConversionWarning]:
    out = []
    for n in _walk(_blocks(ast)):
        if n.get("t") in ("RawBlock", "RawInline") and n["c"][0] in ("latex", "tex"):
            raw = n["c"][1]
            out.append(ConversionWarning(
                kind="RawTeX", text=raw,
                message=f"{OWN} raw LaTeX the platform cannot render: {raw.strip().splitlines()[0][:120] if raw.strip() else ''}",
            ))
    return out


@stage("markdown", ignore=("base_dir", "media_dir", "roots"))
def markdown_task(
    name: str, data: bytes, role: Role, base_dir: str | None, media_dir: str | None, context: str | None = None,
    roots: list[str] | None = None,
) -> Converted:
    """:func:`to_markdown` as a cached task, keyed by the file's name and bytes and, for
    LaTeX, ``context``: a digest of the TeX files beside it that ``\\input`` may read
    (:func:`tasks.convert.inputs.tex_context`).

    Bad input is returned as ``Converted(error=problem)`` rather than raised, so the run
    ends with one line naming the file as the user gave it, and no traceback. A docx's extracted images are returned in
    ``media`` (restore them with :func:`restore_media` on a cache hit).
    """
    try:
        md = to_markdown(name, data, role, base_dir=base_dir, media_dir=media_dir, roots=roots)
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
