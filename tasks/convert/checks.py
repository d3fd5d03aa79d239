"""The checks that make conversion losses visible (see :mod:`tasks.convert.markdown`).

Each turns what pandoc logged, or what a comparison of the source with the markdown
finds, into :class:`~schemas.markdown.ConversionWarning` s: pandoc's own messages that
mean content was skipped (:func:`keep`), exam-style markers lost (:func:`structure_lost`),
words of the LaTeX body missing from the markdown (:func:`content_lost`), the document's
metadata (:func:`metadata_not_kept`: for the report and the set's description, never a
flag), maths that reads back differently
(:func:`math_not_kept`), raw LaTeX left in markdown (:func:`raw_tex_warnings`) and
site-generator shortcodes left in markdown (:func:`shortcode_warnings`). A pandoc entry
at a line of the preamble concerns no field (``about="sheet"``); one in the body carries
the sheet's words just before it (``near``), by which its flag names the field it sits in.
"""

from __future__ import annotations

import json
import re

from schemas.markdown import ConversionWarning
from tasks.convert.pandoc_ast import blocks, divs, maths, plain, walk
from tasks.convert.where import strip_comment, document_line, words_before

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
    "headsep", "footskip", "marginparwidth", "voffset", "hoffset", "columnsep", "bgroup", "egroup",
    "vskip", "topskip", "stepcounter", "refstepcounter", "thequestion", "begingroup", "endgroup",
    "enlargethispage", "fontsize", "hline",
    "hskip", "kern", "hrule", "vrule", "penalty", "break", "vss", "hss", "strut", "leavevmode",
    "quad", "qquad", "enspace", "enskip", "thinspace", "negthinspace", "color", "addcontentsline", "phantomsection",
}
_OVERLAY = re.compile(r"\s*\\begin\{tikzpicture\}\s*\[[^\]]*\boverlay\b")
"""A TikZ picture drawn over the page (``[remember picture, overlay]``): page decoration."""

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


def dedupe(entries: list[dict]) -> list[dict]:
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


def keep(entry: dict, div_counts: dict[str, int], source: str | None = None,
         kept_chars: frozenset[tuple[int, int]] = frozenset()) -> ConversionWarning | None:
    """The warning for one pandoc log entry, or None when it loses no content.

    ``source`` is the LaTeX pandoc read (``None`` for other formats): an entry at a line before
    its ``\\begin{document}`` concerns the preamble (``about="sheet"``: a package, a macro, the
    page layout, never a field's text), and an entry in the body gets ``near``, the sheet's
    words just before it (:func:`tasks.convert.where.words_before`). ``kept_chars`` are the ``(line, column)`` of
    the characters pandoc kept as they are (:func:`tasks.convert.where.unescaped_at`): a ``\\char`` skipped just
    before one (``\\char`_``) lost nothing."""
    kind = entry.get("type", "Unknown")
    if kind in _BENIGN_TYPES or kind == "ParsingUnescaped":  # an unescaped character kept as it is
        return None
    path = str(entry.get("path", ""))
    if kind == "CouldNotLoadIncludeFile" and path.lower().endswith(_PACKAGE_SUFFIXES):
        return None
    contents = entry.get("contents")
    line, column = entry.get("line"), entry.get("column")
    if kind == "SkippedContent" and isinstance(contents, str):
        if _layout_only(contents) or _OVERLAY.match(contents):
            return None
        if contents.strip() == "\\char" and isinstance(line, int) and isinstance(column, int) \
                and (line, column + 1) in kept_chars:
            return None
        wrapper = re.fullmatch(r"\s*\\(?:begin|end)\{([^}]*)\}(?:\[[^\]]*\])?\s*", contents)
        if wrapper and div_counts.get(wrapper.group(1), 0) > 0:
            return None  # the environment's content survived in a div of its name
    text = contents if isinstance(contents, str) else path
    message = f"[{entry.get('verbosity', 'INFO')}] {entry.get('pretty', kind)}"
    at = line if isinstance(line, int) else None
    about = "content"
    near = ""
    if source is not None and at is not None:
        start = document_line(source)
        if kind == "CouldNotLoadIncludeFile" or (start is not None and at < start):
            about = "sheet"
        else:
            near = words_before(source, at, column if isinstance(column, int) else 1,
                                contents if isinstance(contents, str) else "", (start or 0) + 1)
    elif kind == "CouldNotLoadIncludeFile":
        about = "sheet"  # a macro or setup file: what it lacks shows as undefined maths, on its fields
    return ConversionWarning(kind=kind, text=text or "", message=message, about=about, line=at, near=near)


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def tex_body(tex: str) -> str:
    """The LaTeX source with comments, preamble, ``comment`` environments and ``\\iffalse``
    blocks blanked out (line numbers kept)."""
    text = "\n".join(strip_comment(ln) for ln in tex.split("\n"))
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


def defined(tex: str) -> set[str]:
    """Names of the commands and environments the LaTeX source defines itself (pandoc
    expands those, so they are converted, not lost)."""
    return {next(g for g in m.groups() if g) for m in _DEFINITION.finditer(tex)}


def structure_lost(body: str, entries: list[dict], ast: dict, defined: set[str] = frozenset(),
                   hidden: str = "") -> list[ConversionWarning]:
    """``StructureLost`` warnings: exam-style markers (:data:`_MARKER_MACROS`,
    :data:`_MARKER_ENVS`) in the LaTeX ``body`` that outnumber those pandoc either turned
    into a div of their name or named in a log entry. Markers the source defines itself
    (``defined``) are skipped: pandoc expands them; those in ``hidden`` (text the pre-pass
    left out of the student's version) were never given to pandoc."""
    reported, found, out = _reported(entries), divs(ast), []
    for name in _MARKER_MACROS:
        if name in defined:
            continue
        pat = re.compile(r"\\" + name + r"(?![A-Za-z@])")
        n, told = len(pat.findall(body)) - len(pat.findall(hidden)), len(pat.findall(reported))
        if n > told:
            out.append(ConversionWarning(
                kind="StructureLost", text="\\" + name,
                message=f"{OWN} {n - told} of {n} \\{name} in the source neither converted nor reported by pandoc",
            ))
    for env in _MARKER_ENVS:
        if env in defined:
            continue
        pat = re.compile(r"\\begin\{" + re.escape(env) + r"\}")
        n = len(pat.findall(body)) - len(pat.findall(hidden))
        told = max(len(pat.findall(reported)), found.get(env, 0))
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
    # Key=value option lists and float placements; an optional argument right after a command
    # (``\\quizanswerkey[key]{…}``: a key, a short form or options, never the sheet's words).
    text = "".join(chars)
    for m in re.finditer(r"\\[A-Za-z@]+\*?(\[[^\[\]\n]*\])", body):
        if m.group(0)[1:].split("[")[0].rstrip("*") != "item":
            blank(m.start(1), m.end(1))
    text = "".join(chars)
    for m in re.finditer(r"\[[^\[\]]*=[^\[\]]*\]|\[[htbpH!]+\]", text):
        blank(m.start(), m.end())
    return "".join(chars)


def content_lost(body: str, markdown: str, entries: list[dict], meta: str) -> list[ConversionWarning]:
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


def metadata_not_kept(ast: dict, markdown: str) -> list[ConversionWarning]:
    """One ``Metadata`` warning per metadata of the document (``title``, ``author``, ``date``,
    ``abstract``, …, as plain text), ``about="sheet"``: they are no field's text, so
    ``report.json`` keeps them and the title becomes the set's description
    (:meth:`schemas.markdown.SheetText.metadata`). ``markdown`` is unused (kept for callers)."""
    out = []
    for key, value in ast.get("meta", {}).items():
        text = plain(value)
        if not text or key.startswith("sheet2lambda"):
            continue
        out.append(ConversionWarning(
            kind="Metadata", text=text, key=key, about="sheet",
            message=f"{OWN} the document's {key} “{text}” is metadata: kept in report.json",
        ))
    return out


def math_not_kept(before: dict, after: dict) -> list[ConversionWarning]:
    a, b = maths(before), maths(after)
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


def raw_tex_warnings(ast: dict) -> list[ConversionWarning]:
    out = []
    for n in walk(blocks(ast)):
        if n.get("t") in ("RawBlock", "RawInline") and n["c"][0] in ("latex", "tex"):
            raw = n["c"][1]
            out.append(ConversionWarning(
                kind="RawTeX", text=raw,
                message=f"{OWN} raw LaTeX the platform cannot render: {raw.strip().splitlines()[0][:120] if raw.strip() else ''}",
            ))
    return out



_SHORTCODE = re.compile(r"\{\{([<%])\s*(/?)\s*([\w-]+)[^}]*?[>%]\}\}", re.S)


def shortcode_warnings(markdown: str) -> list[ConversionWarning]:
    """One ``Shortcode`` warning per site-generator shortcode (Hugo's ``{{< img … >}}``,
    ``{{% note %}}``) that the platform would show as text: every shortcode except a line
    holding only an opening or closing wrapper whose name the document closes somewhere
    (``{{< blockquote >}}`` … ``{{< /blockquote >}}``), which the general reader leaves
    out while keeping the text it wraps. Shortcodes inside fenced code are left alone."""
    text = re.sub(r"^(```|~~~).*?^\1[ \t]*$", "", markdown, flags=re.M | re.S)
    closed = {m.group(3) for m in _SHORTCODE.finditer(text) if m.group(2)}
    out = []
    for m in _SHORTCODE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        alone = not text[line_start:m.start()].strip() and not text[m.end():None if line_end < 0 else line_end].strip()
        if alone and m.group(3) in closed:
            continue
        raw = m.group(0)
        out.append(ConversionWarning(
            kind="Shortcode", text=raw,
            message=f"{OWN} a site generator's shortcode the platform shows as text: {' '.join(raw.split())[:120]}",
        ))
    return out
