r"""Which files a LaTeX sheet may read, and reading them for pandoc.

pandoc reads a LaTeX sheet with ``--sandbox``: it opens no file at all (pandoc manual,
"--sandbox": "the reader ... cannot access any files"), so whatever the sheet names, pandoc
itself reads nothing. The files a sheet may read are read here instead, and put into the
TeX before pandoc sees it (:func:`inline`):

- ``\input{f}``, ``\input f``, ``\include{f}``: the file's text, in place (``.tex`` added
  when the name has no suffix, as TeX does), itself inlined in turn;
- ``\lstinputlisting[opts]{f}``: ``\begin{lstlisting}[opts]`` … ``\end{lstlisting}``;
- ``\inputminted[opts]{lang}{f}``: ``\begin{minted}[opts]{lang}`` … ``\end{minted}``;
- ``\verbatiminput{f}`` (the ``verbatim`` package): ``\begin{verbatim}`` … ``\end{verbatim}``
  (a refused one was dropped with no flag: attack7);
- ``\usepackage{a,b}`` / ``\RequirePackage``: a package file ``a.sty`` found where the sheet
  may read is put in place (pandoc learns its macros from it, as it would have read it);
  other packages stay as they are (pandoc skips them as before);
- ``\documentclass{c}`` and ``\includegraphics{f}`` are not inlined (pandoc reads neither),
  but a class file or an image the sheet may read counts among the files it reads
  (:attr:`Resolved.files`, for the cache key) and one it may not is refused.

The rule (:func:`refusal`): a file is read only when its real path (symbolic links
followed) lies inside one of the ``roots`` — the sheet's own folder tree, and a
``--tex-root DIR`` of the document run, or a folder or sweep run's root — is a regular
file, is not hidden (no part of its path under the root starts with ``.``), is not under
``/proc``, ``/dev`` or ``/sys``, and is at most :data:`MAX_FILE_BYTES`; at most
:data:`MAX_TOTAL_BYTES` are inlined in all, :data:`MAX_DEPTH` levels deep, and at most
:data:`tasks.convert.effort.MAX_READS` files are read (the conversion's one budget). A file refused
is left out and named in a ``FileRefused`` warning (which becomes a ``conversion_loss``
flag); a file that does not exist is left to pandoc, which reports it
(``CouldNotLoadIncludeFile``) as it always has. Paths resolve as TeX resolves them: against
the main sheet's folder. Commands in comments and in verbatim environments are text, not
commands, and are left alone. A file inside the roots is still refused when it is another
sheet's or any solutions document (:func:`tasks.convert.pairing.another_sheets_file`): a sweep's root lets a sheet
read a course's shared files, never another sheet's own. A hard link (a regular file with more
than one name) owned by another user is refused too: its real path is inside the roots, but
the file may be one outside them (attack5 case 18); one's own hard links are read (making one
needs access to the file already: Linux's ``fs.protected_hardlinks``).
"""

from __future__ import annotations

import hashlib
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from schemas.markdown import ConversionWarning
from tasks.convert.effort import current
from tasks.convert.pairing import another_sheets_file
from tasks.convert.opener import FileRefused, link_refusal, read_file, read_opened
from tasks.errors import quoted

MAX_FILE_BYTES = 2 << 20
"""Largest file a sheet may read (2 MiB): a sheet's own files are kilobytes."""

MAX_TOTAL_BYTES = 8 << 20
"""Most bytes a sheet may inline in all (8 MiB)."""

MAX_IMAGE_BYTES = 20 << 20
"""Largest image a sheet may link (20 MiB, as a Word document): an image is copied into the
set, its bytes kept in Prefect's results and hashed for the cache key."""

MAX_DEPTH = 12
"""Deepest nesting of ``\\input`` (a file that inputs itself stops here)."""

FORBIDDEN = (Path("/proc"), Path("/dev"), Path("/sys"))
"""Never read, whatever the roots."""

OWN = "[sheet2lambda]"

_COMMAND = re.compile(
    r"\\(input|include|lstinputlisting|inputminted|verbatiminput|usepackage|RequirePackage|documentclass|includegraphics|graphicspath)"
    r"(?![A-Za-z@])"
)
_VERBATIM = re.compile(r"\\begin\{(verbatim\*?|Verbatim|lstlisting|minted|comment|filecontents\*?)\}(.*?)\\end\{\1\}", re.S)
_IMAGE_SUFFIXES = ("", ".pdf", ".png", ".jpg", ".mps", ".jpeg", ".jbig2", ".jb2", ".PDF", ".PNG", ".JPG", ".JPEG",
                   ".JBIG2", ".JB2", ".eps")
"""As pandoc's LaTeX reader tries them for ``\\includegraphics{name}`` without a suffix."""


@dataclass
class Resolved:
    """What :func:`inline` made of a sheet: ``tex`` (the allowed files put in place),
    ``files`` (``{real path: sha256}`` of every file the sheet reads: inputs, listings,
    packages, its class, images), ``warnings`` (one ``FileRefused`` per file refused)."""

    tex: str
    files: dict[str, str] = field(default_factory=dict)
    warnings: list[ConversionWarning] = field(default_factory=list)

    def digest(self) -> str:
        """sha256 over the files read, by path and content (a cache key's part)."""
        h = hashlib.sha256()
        for path, sha in sorted(self.files.items()):
            h.update(path.encode() + b"\0" + sha.encode() + b"\n")
        return h.hexdigest()


def refusal(path: Path, roots: list[Path], max_bytes: int = MAX_FILE_BYTES, tex: bool = True) -> str | None:
    """Why a sheet may not read ``path`` (one phrase), or ``None`` when it may.

    ``roots`` are the folders it may read inside (resolved here); ``max_bytes`` the largest
    file (:data:`MAX_FILE_BYTES`, :data:`MAX_IMAGE_BYTES` for an image); ``tex`` False
    leaves the ``--tex-root`` hint out of the phrase (a markdown sheet's image). See the
    module docstring for the rule; the same rule decides every file a sheet of any format
    names (its ``\\input``s, its packages, its images: :func:`tasks.convert.images.image_file`).
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return "its path cannot be resolved"
    if not real.exists() and not any(real == bad or bad in real.parents for bad in FORBIDDEN):
        return None  # nothing to read: pandoc, which reads nothing itself, reports it missing
    if (why := place_refusal(real, roots, tex)) is not None:
        return why
    try:
        st = real.stat()
    except OSError:
        return None  # missing: pandoc reports it
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if link_refusal(st) is not None:
        return link_refusal(st)
    if st.st_size > max_bytes:
        return f"larger than {max_bytes >> 20} MiB"
    return None


def place_refusal(real: Path, roots: list[Path], tex: bool = True) -> str | None:
    """The part of :func:`refusal` that judges a real path by its place alone (one phrase, or
    ``None``): under ``/proc``, ``/dev`` or ``/sys``, outside every root, or hidden under its
    root. Applied again to the path of what was opened
    (:func:`tasks.convert.opener.read_opened`), so a file swapped after :func:`refusal` for a
    link elsewhere is judged where it really is (attack17 C27, C31)."""
    for bad in FORBIDDEN:
        if real == bad or bad in real.parents:
            return f"{bad} is never read"
    inside = next((r for r in (Path(root).resolve() for root in roots) if real == r or r in real.parents), None)
    if inside is None:
        if not tex:
            return "outside the sheet's folder"
        return "outside the sheet's folder" + (" and --tex-root" if len(roots) > 1 else "") + \
            " (a course's shared folder: give it with --tex-root DIR)"
    if any(part.startswith(".") for part in real.relative_to(inside).parts):
        return "a hidden file"
    return None


def _masked(tex: str) -> str:
    """``tex`` with comments and verbatim environments blanked (same length), so that the
    commands found in it are commands, not text."""
    out = []
    for line in tex.split("\n"):
        cut = len(line)
        i = 0
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] == "%":
                cut = i
                break
            i += 1
        out.append(line[:cut] + " " * (len(line) - cut))
    masked = "\n".join(out)
    for m in _VERBATIM.finditer(masked):
        a, b = m.start(2), m.end(2)
        masked = masked[:a] + re.sub(r"[^\n]", " ", masked[a:b]) + masked[b:]
    return masked


def _group(s: str, i: int, open_: str, close: str) -> tuple[str, int] | None:
    """The ``open_…close`` group starting at ``i`` (after blanks): (its text, index past it)."""
    j = i
    while j < len(s) and s[j] in " \t":
        j += 1
    if j >= len(s) or s[j] != open_:
        return None
    depth, k = 0, j
    while k < len(s):
        c = s[k]
        if c == "\\":
            k += 2
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return s[j + 1:k], k + 1
        k += 1
    return None


class _Inliner:
    def __init__(self, base: Path, roots: list[Path]):
        self.base = base
        self.roots = roots
        self.total = 0
        self.files: dict[str, str] = {}
        self.warnings: list[ConversionWarning] = []
        self.graphicspath: list[str] = [""]
        self.said: set[str] = set()
        self.effort = current()  # one budget for the whole conversion (tasks.convert.effort)

    def spent(self, command: str, name: str) -> bool:
        """Has the sheet read :data:`MAX_READS` files (:meth:`tasks.convert.effort.Effort.reads_spent`)?"""
        return self.effort.reads_spent(lambda why: self.refuse(command, name, why), f"\\{command}{{{name}}}")

    def refuse(self, command: str, name: str, why: str) -> None:
        message = f"{OWN} \\{command}{{{quoted(name)}}} not read: {why}"
        if message not in self.said:  # a file refused again (a loop, a repeated \\input): one line
            self.said.add(message)
            self.warnings.append(ConversionWarning(kind="FileRefused", text=name, message=message))

    def read(self, command: str, name: str, candidates: list[Path]) -> str | None:
        """The text of the first candidate that exists and may be read; ``None`` (with a
        warning when refused) otherwise."""
        if self.spent(command, name):
            return None
        for c in candidates:
            why = refusal(c, self.roots) or another_sheets_file(c)
            if why is not None:
                self.refuse(command, name, why)
                return None
            try:
                checked = c.resolve()
                if not checked.is_file():
                    continue
                real, data = read_opened(c, self.roots, MAX_FILE_BYTES)  # one open, judged on what it opened
                why = place_refusal(real, self.roots) or (another_sheets_file(real) if real != checked else None)
                if why is None and len(data) > MAX_FILE_BYTES:
                    why = f"larger than {MAX_FILE_BYTES >> 20} MiB"
                if why is not None:
                    raise FileRefused(c, why)
            except FileRefused as e:
                self.refuse(command, name, e.why)
                return None
            except (OSError, RuntimeError):  # gone, or swapped for a link loop, since its check (attack19)
                continue
            if self.total + len(data) > MAX_TOTAL_BYTES:
                self.refuse(command, name, f"the sheet's files pass {MAX_TOTAL_BYTES >> 20} MiB in all")
                return None
            self.total += len(data)
            self.effort.reads += 1
            self.files[str(real)] = hashlib.sha256(data).hexdigest()
            return data.decode("utf-8", "replace").replace("\r\n", "\n")
        return None

    def note(self, candidates: list[Path], command: str, name: str, max_bytes: int = MAX_FILE_BYTES) -> None:
        """Count a file pandoc does not read (class, image) among the sheet's files, or refuse it."""
        for c in candidates:
            why = refusal(c, self.roots, max_bytes)
            if why is not None:
                self.refuse(command, name, why)
                return
            try:
                real = c.resolve()
                if real.is_file():
                    self.files[str(real)] = hashlib.sha256(read_file(c, self.roots)).hexdigest()
                    return
            except FileRefused as e:
                self.refuse(command, name, e.why)
                return
            except (OSError, RuntimeError):  # gone, or swapped for a link loop, since its check (attack19)
                continue

    def path(self, name: str) -> Path:
        p = Path(name.strip())
        return p if p.is_absolute() else self.base / p

    def run(self, tex: str, depth: int) -> str:
        masked = _masked(tex)
        out: list[str] = []
        pos = 0
        for m in _COMMAND.finditer(masked):
            if m.start() < pos:
                continue
            command = m.group(1)
            got = self.command(command, tex, masked, m.end(), depth)
            if got is None:
                continue
            replacement, end = got
            out.append(tex[pos:m.start()])
            out.append(replacement)
            pos = end
        out.append(tex[pos:])
        return "".join(out)

    def command(self, command: str, tex: str, masked: str, i: int, depth: int) -> tuple[str, int] | None:
        """(replacement, end) for the command whose name ends at ``i``, or ``None`` to leave it."""
        star = i < len(masked) and masked[i] == "*"
        j = i + 1 if star else i
        opt = _group(masked, j, "[", "]")
        opts_text = ""
        if opt is not None and command in ("lstinputlisting", "inputminted", "usepackage", "RequirePackage",
                                           "includegraphics", "documentclass"):
            opts_text, j = tex[j:opt[1]].strip(), opt[1]
        if command == "graphicspath":
            g = _group(masked, j, "{", "}")
            if g is not None:
                inner = tex[j:g[1]].strip()[1:-1]
                self.graphicspath = [""] + re.findall(r"\{([^{}]*)\}", inner)
            return None
        lang = ""
        if command == "inputminted":
            g = _group(masked, j, "{", "}")
            if g is None:
                return None
            lang, j = tex[j:g[1]].strip()[1:-1], g[1]
        g = _group(masked, j, "{", "}")
        if g is None:
            if command == "input":  # TeX's own form: \input name (ends at a blank)
                plain = re.match(r"[ \t]+([^\s{}\\%]+)", masked[j:])
                if plain is None:
                    return None
                name, end = plain.group(1), j + plain.end()
            else:
                return None
        else:
            name, end = tex[j + masked[j:g[1]].index("{") + 1:g[1] - 1], g[1]
        name = name.strip()
        if not name:
            return None
        if command in ("input", "include"):
            if self.spent(command, name):
                return "", end
            if depth >= MAX_DEPTH:
                self.effort.reads += 1  # a refused read counts too (a tree of inputs doubling past the depth)
                self.refuse(command, name, f"\\input nested deeper than {MAX_DEPTH} levels")
                return "", end
            p = self.path(name)
            candidates = [p] if p.suffix else [p.with_name(p.name + ".tex"), p]
            for c in candidates:
                why = refusal(c, self.roots)
                if why is not None:
                    self.refuse(command, name, why)
                    return "", end
            text = self.read(command, name, candidates)
            if text is None and self.spent(command, name):
                return "", end
            if text is None:
                return None  # missing: pandoc reports it (it reads nothing itself)
            return self.run(text, depth + 1) + ("\n" if not text.endswith("\n") else ""), end
        if command in ("lstinputlisting", "inputminted", "verbatiminput"):
            text = self.read(command, name, [self.path(name)])
            if text is None:
                if self.spent(command, name) or refusal(self.path(name), self.roots) is not None:
                    return "", end
                return None
            text = text if text.endswith("\n") else text + "\n"
            if command == "lstinputlisting":
                return f"\\begin{{lstlisting}}{opts_text}\n{text}\\end{{lstlisting}}", end
            if command == "verbatiminput":
                return f"\\begin{{verbatim}}\n{text}\\end{{verbatim}}", end
            return f"\\begin{{minted}}{opts_text}{{{lang}}}\n{text}\\end{{minted}}", end
        if command in ("usepackage", "RequirePackage"):
            kept, inlined = [], []
            for pkg in (x.strip() for x in name.split(",")):
                if not pkg:
                    continue
                p = self.path(pkg if pkg.endswith(".sty") else pkg + ".sty")
                local = p.exists() or p.is_symlink()
                if local and refusal(p, self.roots) is not None:
                    self.refuse(command, pkg, refusal(p, self.roots) or "")
                    continue
                text = self.read(command, pkg, [p]) if local else None
                if text is None:
                    kept.append(pkg)
                else:
                    inlined.append("\\makeatletter\n" + self.run(text, depth + 1) + "\n\\makeatother\n")
            head = f"\\{command}{opts_text}{{{','.join(kept)}}}" if kept else ""
            return head + "".join(inlined), end
        if command == "documentclass":
            self.note([self.path(name if name.endswith(".cls") else name + ".cls")], command, name)
            return None
        # includegraphics: pandoc links it; count the file, refuse one the sheet may not read.
        bases = [self.path(d) / name for d in self.graphicspath] if not Path(name).is_absolute() else [Path(name)]
        for n, b in enumerate(bases):
            cands = [b.with_name(b.name + ext) for ext in _IMAGE_SUFFIXES] if not b.suffix else [b]
            for c in cands:
                if c.exists() or c.is_symlink():
                    why = refusal(c, self.roots, MAX_IMAGE_BYTES)
                    if why is not None:
                        self.refuse(command, name, why)
                        return "", end
                    self.note([c], command, name, MAX_IMAGE_BYTES)
                    if n == 0 and c != b:  # pandoc, reading in the sheet's folder, linked the file it found
                        return f"\\includegraphics{opts_text}{{{name}{c.name[len(b.name):]}}}", end
                    return None
        why = refusal(bases[0], self.roots, MAX_IMAGE_BYTES)
        if why is not None:
            self.refuse(command, name, why)
            return "", end
        return None


def inline(tex: str, base_dir: str | Path | None, roots: list[str | Path] | None = None) -> Resolved:
    r"""Put the files ``tex`` may read in place (see the module docstring).

    ``base_dir`` is the main sheet's folder (paths resolve against it; ``None``: the sheet
    reads nothing, every file command is refused). ``roots`` are further folders it may
    read inside (``--tex-root``, a folder or sweep run's root); the sheet's own folder is
    always one. Returns the :class:`Resolved` TeX, the files read and the refusals.
    """
    if base_dir is None:
        base = None
        allowed: list[Path] = []
    else:
        base = Path(base_dir).resolve()
        allowed = [base] + [Path(r).resolve() for r in (roots or [])]
    inliner = _Inliner(base or Path("/nonexistent-sheet-folder"), allowed)
    text = inliner.run(tex, 0)
    return Resolved(tex=text, files=inliner.files, warnings=inliner.warnings)
