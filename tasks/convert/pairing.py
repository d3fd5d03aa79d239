"""Stage 2: pairing a sheet with its solutions document by file name.

The solutions of ``SHEET.EXT`` are the file beside it named ``SHEET`` followed by one of
:data:`SOLUTIONS_SUFFIXES` (any case), with the same extension, else the file of the same
name in a ``solutions/`` folder inside the sheet's folder or beside it::

    sheet-2.tex   → sheet-2-solutions.tex
    questions.md  → questions_solutions.md    (.qmd, .Rmd, .ipynb alike)
    Sheet1.docx   → Sheet1Solutions.docx or "sheet1 solutions.docx"
    hw3.tex       → hw3sol.tex, hw3-sol.tex or hw3_sol.tex
    exercises/main.md → solutions/main.md (or exercises/solutions/main.md)
"""

from __future__ import annotations

import bisect
import os
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

SOLUTIONS_SUFFIXES = ("_solutions", "-solutions", " solutions", "solutions", "_sol", "-sol", "sol")
"""What follows a sheet's stem in its solutions' stem, in order of preference (matched
case-insensitively, so ``Solutions`` and ``SOLUTIONS`` are the last one)."""


SOLUTIONS_FOLDERS = ("solutions", "solution", "answers")
"""Names (any case) of a folder holding the solutions under the sheets' own file names."""


NAMED_AS_SOLUTIONS = ("_solutions", "-solutions", " solutions", "_solution", "-solution", " solution", "_sol", "-sol")
"""Endings of a file's stem (any case) that name it as solutions without doubt (a bare
``sol`` ending is left out: ``parasol``)."""


def named_as_solutions(name: str) -> bool:
    """Is ``name`` (a file name) the name of a solutions document (``hw3-solutions.qmd``,
    ``Sheet_Sol.md``)? A sheet read under such a name with no other solutions holds its
    answers in place (:func:`tasks.read.choose.route_b_task`)."""
    return Path(name).stem.lower().endswith(NAMED_AS_SOLUTIONS)


def folded(stem: str) -> str:
    """A file name's stem as pairing compares it: Unicode NFC (a Mac writes ``café`` decomposed,
    NFD, another system composed: the same name to the user; attack17 C17) and lower case."""
    return unicodedata.normalize("NFC", stem).lower()


def find_solutions(source: Path, seen: dict | None = None) -> Path | None:
    """The solutions document of ``source``, or ``None`` when there is none.

    A file in ``source``'s folder whose stem is ``source``'s stem followed by one of
    :data:`SOLUTIONS_SUFFIXES` (compared case-insensitively), perhaps after a leading ``_``
    (``_sheet-solutions.qmd``, kept out of a Quarto site's render), and whose extension is
    the same (case-insensitively). ``source`` itself is never returned. When several match,
    the earlier suffix in :data:`SOLUTIONS_SUFFIXES` wins, then the file name in sorted
    order. Else the file of ``source``'s own name in a :data:`SOLUTIONS_FOLDERS` folder
    inside ``source``'s folder, then beside it (``exercises/main.md`` →
    ``solutions/main.md``), unless ``source`` is itself in such a folder. A missing folder
    gives ``None``; never raises for an unreadable folder (``None``). ``seen``: the folders
    already listed (:func:`pair_folder` passes one for all its sheets, so that each folder is
    read once and not once per sheet: pairing 1,000 sheets took 41 s).
    """
    return _beside(Path(source), seen) or _in_solutions_folder(Path(source), seen)


class _Listing:
    """A folder's entries, sorted by name (``None``: unreadable), and indexed by lower-case
    ``(stem, suffix)``."""

    def __init__(self, folder: Path):
        try:
            self.entries: list[Path] | None = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError:
            self.entries = None
        self.by_name: dict[tuple[str, str], list[Path]] = {}
        for p in self.entries or []:
            self.by_name.setdefault((folded(p.stem), p.suffix.lower()), []).append(p)
        self._solutions_dirs: list[Path] | None = None

    def solutions_dirs(self) -> list[Path]:
        """The folder's :data:`SOLUTIONS_FOLDERS` subfolders, sorted: found once per folder,
        not once per sheet (scanning the entries for each sheet made pairing quadratic:
        2,000 sheets took 6 s)."""
        if self._solutions_dirs is None:
            self._solutions_dirs = sorted(d for d in self.entries or [] if d.name.lower() in SOLUTIONS_FOLDERS
                                          and d.is_dir())
        return self._solutions_dirs


def _listing(folder: Path, seen: dict | None) -> _Listing:
    if seen is None:
        return _Listing(folder)
    if folder not in seen:
        seen[folder] = _Listing(folder)
    return seen[folder]


def allowed_place(source: Path, found: Path) -> Path:
    """The folder whose real path must hold the real path of ``found``, a solutions document
    :func:`find_solutions` gave for ``source``, for a run to read it without being told to.

    The sheet's own folder for a file beside the sheet or in a ``solutions/`` folder inside
    it; the folder holding the sheet's folder for a file in a ``solutions/`` folder beside
    it (``exercises/main.md`` → ``solutions/main.md``), since that is where the documented
    rule looks. Paths are made absolute (not resolved) first, so a relative sheet path such as
    ``main.md`` still has a parent. Never raises.
    """
    sheet_folder = Path(os.path.abspath(source)).parent
    where = Path(os.path.abspath(found)).parent
    if where == sheet_folder or where.parent == sheet_folder:
        return sheet_folder
    return sheet_folder.parent


def _in_solutions_folder(source: Path, seen: dict | None = None) -> Path | None:
    if source.parent.name.lower() in SOLUTIONS_FOLDERS:
        return None
    for where in (source.parent, source.parent.parent):
        for d in _listing(where, seen).solutions_dirs():
            candidate = d / source.name
            if candidate.is_file() and not _same_file(candidate, source):
                return candidate
    return None


def _beside(source: Path, seen: dict | None = None) -> Path | None:
    source = Path(source)
    stem = folded(source.stem)
    suffix = source.suffix.lower()
    wanted = {stem + s: rank for rank, s in enumerate(SOLUTIONS_SUFFIXES)}
    # A leading underscore keeps a file out of a Quarto or Jupyter Book site's render: the
    # usual way a course keeps its solutions unpublished beside the sheet.
    wanted.update({"_" + w: rank for w, rank in wanted.items()})
    listing = _listing(source.parent, seen)
    if listing.entries is None:
        return None
    found = [(rank, p.name, p) for name, rank in wanted.items() for p in listing.by_name.get((name, suffix), [])
             if p.name != source.name and p.is_file() and not _same_file(p, source)]
    return min(found)[2] if found else None  # the earliest suffix, then the name in sorted order


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


_SEPARATED = re.compile(r"[_\- ](?:solutions|sol)$", re.I)
_BARE = re.compile(r"(?:Solutions|SOLUTIONS|(?<=[0-9])solutions|(?<=[0-9])sol|(?<=[0-9])Sol)$")


def is_solutions_name(path: Path) -> bool:
    """True when ``path``'s name says it is a solutions document.

    The stem ends in ``_solutions``, ``-solutions``, `` solutions``, ``_sol``, ``-sol``
    or `` sol`` (any case), or in ``Solutions``/``SOLUTIONS`` straight after the sheet's
    name (``Sheet1Solutions``), or in lower-case ``solutions``/``sol`` straight after a
    digit (``sheet1solutions``, ``hw3sol``); or the stem starts with ``solutions`` (any
    case: ``solutions-2``, ``Solutions``). A word that merely ends in the letters
    (``resolutions``, ``aerosol``) is not a solutions name (a ``<stem>sol`` beside its
    sheet ``<stem>`` still pairs: :func:`find_solutions`).
    """
    stem = Path(path).stem
    return bool(_SEPARATED.search(stem) or _BARE.search(stem) or stem.lower().startswith("solutions"))


FORMAT_PREFERENCE = (".tex", ".docx", ".qmd", ".rmd", ".jmd", ".md", ".markdown", ".ipynb", ".pdf")
"""A sheet held in several formats is converted once, from the first of these it has (lower
case; a Quarto or R Markdown source before the markdown rendered from it, a Jupytext ``.md``
before its notebook)."""


NOT_SHEETS = ("README", "LICENSE", "LICENCE", "CHANGELOG", "CONTRIBUTING")
"""A folder's own documentation is not a sheet."""


class SheetPair:
    """A sheet of a folder and its solutions document (``None`` when it has none).

    ``lone`` marks a solutions document with no sheet beside it, converted on its own;
    ``alternates`` are the same sheet in the other formats the folder holds, in the order of
    :data:`FORMAT_PREFERENCE`: tried in turn when ``source`` cannot be converted.
    """

    def __init__(self, source: Path, solutions: Path | None, lone: bool = False,
                 alternates: list[Path] | None = None):
        self.source, self.solutions, self.lone = source, solutions, lone
        self.alternates = list(alternates or [])

    def __repr__(self) -> str:
        return f"SheetPair({self.source.name!r}, {self.solutions.name if self.solutions else None!r})"


def is_latex_sheet(path: Path) -> bool:
    """A ``.tex`` file is a sheet only when it has ``\\begin{document}`` (not a preamble,
    a macro file or a figure)."""
    try:
        from tasks.convert.opener import read_text

        return "\\begin{document}" in read_text(path, errors="replace")  # the one opener: a FIFO never stalls it
    except OSError:
        return False


def pair_folder(folder: Path, suffixes: tuple[str, ...] = FORMAT_PREFERENCE) -> list[SheetPair]:
    """Every sheet of ``folder`` (not its subfolders) with its solutions, sorted by name.

    ``suffixes`` are the formats to take (``.tex``, ``.md``…). A solutions document is
    paired with its sheet by :func:`find_solutions`; one with no sheet beside it is a
    sheet of its own (``lone``). A sheet held in two formats is taken once, in the order
    of :data:`FORMAT_PREFERENCE`. A ``.tex`` without ``\\begin{document}`` is not a sheet,
    nor is a README or LICENSE file, nor a link to a file of the folder (it is read once, under
    its own name).
    """
    wanted = {s.lower() if s.startswith(".") else "." + s.lower() for s in suffixes}
    files = sorted(
        p for p in folder.iterdir()
        if p.is_file() and p.suffix.lower() in wanted and not p.name.startswith(".")
        and not p.stem.upper().startswith(NOT_SHEETS)
        and (p.suffix.lower() != ".tex" or is_latex_sheet(p))
    )
    real = {p.resolve() for p in files if not p.is_symlink()}
    files = [p for p in files if not (p.is_symlink() and p.resolve() in real)]  # a second name of a sheet here: once
    by_stem: dict[str, list[Path]] = {}
    for p in files:
        by_stem.setdefault(folded(p.stem), []).append(p)
    order = {s: i for i, s in enumerate(FORMAT_PREFERENCE)}
    chosen = {stem: min(ps, key=lambda p: order.get(p.suffix.lower(), 99)) for stem, ps in by_stem.items()}
    seen: dict = {}  # each folder listed once for all the sheets
    solutions = {stem: find_solutions(p, seen) for stem, p in chosen.items() if not is_solutions_name(p)}
    used = {sol.resolve() for sol in solutions.values() if sol is not None}
    pairs = []
    for stem, p in sorted(chosen.items()):
        if p.resolve() in used or _pairs_in_sibling(p):
            continue  # another sheet's solutions (``hw3sol.tex`` beside ``hw3.tex``)
        if stem in solutions:
            alternates = sorted((q for q in by_stem[stem] if q != p), key=lambda q: order.get(q.suffix.lower(), 99))
            pairs.append(SheetPair(p, solutions[stem], alternates=alternates))
        else:
            pairs.append(SheetPair(p, None, lone=True))
    return sorted(pairs, key=lambda sp: sp.source.name.lower())


def _pairs_in_sibling(path: Path) -> bool:
    """``path`` is in a :data:`SOLUTIONS_FOLDERS` folder and a sheet of the same name sits in
    a folder beside it (``solutions/main.md`` beside ``exercises/main.md``): it is that
    sheet's solutions, not a sheet."""
    if path.parent.name.lower() not in SOLUTIONS_FOLDERS:
        return False
    try:
        siblings = [d for d in path.parent.parent.iterdir() if d.is_dir() and d != path.parent]
    except OSError:
        return False
    return any((d / path.name).is_file() for d in siblings)


class FolderPairs:
    """The pairs of :func:`pair_folder`, in its order, each made as it is asked for (iterate
    it once): a folder run starts its first sheet after one listing of the folder, not after
    pairing every sheet (0.3–0.5 ms a sheet: 5 s for 10,000). ``tests/test_pairing.py`` holds
    it equal to :func:`pair_folder` on folders made to differ. ``expected``: the sheets, counted
    from the names and the listing's entry types before any is paired (exact unless a file's content
    decides: a ``.tex`` that is no sheet); ``len()`` once all are made. An entry that is no
    regular file (a folder named ``x.md``, a FIFO) is never a sheet nor counted.

    Eager only where a sheet's fate may hang on a file elsewhere: a folder that holds a link or
    a :data:`SOLUTIONS_FOLDERS` folder (in it or beside it: a solutions document found there may
    be another file's real path) is paired whole first, as :func:`pair_folder`; so is a stem whose
    place in the order hangs on its chosen format (``hw1.tex`` beside ``hw1.v2.md``). Else a
    file is another sheet's solutions only by its name (``hw3sol.md`` beside ``hw3.md``),
    looked up as it comes."""

    def __init__(self, folder: Path, suffixes: tuple[str, ...] = FORMAT_PREFERENCE):
        self.folder, self.made = folder, 0
        wanted = {s.lower() if s.startswith(".") else "." + s.lower() for s in suffixes}
        self._order = {s: i for i, s in enumerate(FORMAT_PREFERENCE)}
        self._seen: dict = {}
        listing = _listing(folder, self._seen)
        if listing.entries is None:
            raise FileNotFoundError(folder)  # as folder.iterdir() in pair_folder
        self._eager = None
        if listing.solutions_dirs() or _listing(folder.parent, self._seen).solutions_dirs() or _holds_links(folder):
            self._eager = pair_folder(folder, suffixes)
            self.expected = len(self._eager)
            return
        self._by_stem: dict[str, list[Path]] = {}
        odd = _not_regular(folder)  # a folder named x.md, a FIFO: never counted (tasks.convert.tree.not_sheet_files)
        for p in listing.entries:  # names only: no file is opened or stat'ed yet
            if p.name not in odd and p.suffix.lower() in wanted and not p.name.startswith(".") and not p.stem.upper().startswith(NOT_SHEETS):
                self._by_stem.setdefault(folded(p.stem), []).append(p)
        for ps in self._by_stem.values():
            ps.sort(key=lambda p: (self._order.get(p.suffix.lower(), 99), p.name))
        self._valid: dict[Path, bool] = {}
        self._found: dict[Path, Path | None] = {}
        stems = sorted(self._by_stem)
        # a stem whose name sorts by its format: another stem starts with it and a dot
        dotted = {s for s in stems if any(t.startswith(s + ".") for t in stems[bisect.bisect_left(stems, s + "."):][:1])}
        keys = {s: (self._chosen(s) if s in dotted else self._by_stem[s][0]) for s in stems}
        self._stems = sorted((s for s in stems if keys[s] is not None), key=lambda s: keys[s].name.lower())
        self.expected = sum(1 for s in self._stems if not self._named_for_another(self._by_stem[s][0]))

    def __len__(self) -> int:
        return self.expected

    def _ok(self, p: Path) -> bool:
        if p not in self._valid:
            self._valid[p] = p.is_file() and (p.suffix.lower() != ".tex" or is_latex_sheet(p))
        return self._valid[p]

    def _chosen(self, stem: str) -> Path | None:
        return next((p for p in self._by_stem.get(stem, ()) if self._ok(p)), None)

    def _bases(self, p: Path) -> Iterator[str]:
        """The stems of which ``p`` is named the solutions (:data:`SOLUTIONS_SUFFIXES`)."""
        stem = folded(p.stem)
        for s in SOLUTIONS_SUFFIXES:
            if stem.endswith(s) and len(stem) > len(s):
                base = stem[:-len(s)]
                yield base
                if base.startswith("_"):
                    yield base[1:]

    def _solutions(self, p: Path) -> Path | None:
        """:func:`find_solutions` of ``p``, looked for once."""
        if p not in self._found:
            self._found[p] = find_solutions(p, self._seen)
        return self._found[p]

    def _named_for_another(self, p: Path) -> bool:
        return any(b in self._by_stem and self._by_stem[b][0].suffix.lower() == p.suffix.lower()
                   and not is_solutions_name(self._by_stem[b][0]) for b in self._bases(p))

    def _solutions_of_another(self, p: Path) -> bool:
        """Is ``p`` the solutions :func:`find_solutions` gives another sheet of the folder."""
        for b in self._bases(p):
            q = self._chosen(b)
            if q is not None and q != p and not is_solutions_name(q) and self._solutions(q) == p:
                return True
        return False

    def __iter__(self) -> Iterator[SheetPair]:
        if self._eager is not None:
            for pair in self._eager:
                self.made += 1
                yield pair
            return
        for stem in self._stems:
            p = self._chosen(stem)
            if p is None or self._solutions_of_another(p):
                continue  # no sheet, or another sheet's solutions (``hw3sol.tex`` beside ``hw3.tex``)
            self.made += 1
            if is_solutions_name(p):
                yield SheetPair(p, None, lone=True)
            else:
                yield SheetPair(p, self._solutions(p),
                                alternates=[q for q in self._by_stem[stem] if q != p and self._ok(q)])
        self.expected = self.made  # all made: the count is exact now


def _not_regular(folder: Path) -> set[str]:
    """The names of ``folder``'s entries that are not regular files, from the listing's own
    entry types (no file is stat'ed where the file system gives them)."""
    try:
        with os.scandir(folder) as entries:
            return {e.name for e in entries if not e.is_file(follow_symlinks=False)}
    except OSError:
        return set()


def _holds_links(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(e.is_symlink() for e in entries)
    except OSError:
        return True


def another_sheets_file(path: Path) -> str | None:
    """Why a sheet may not put ``path`` in place although it lies inside its roots (one
    phrase), or ``None``: a solutions document (by its name, :func:`~tasks.convert.pairing.is_solutions_name`,
    or as the solutions a sheet of its folder pairs with) or another sheet (a ``.tex`` with
    ``\\begin{document}``, or any sheet of a folder's listing) is never part of a sheet. A
    sweep's root is a root of every sheet under it (for a course's shared ``common/``), and
    ``\\input{../week2/sheet_solutions}`` once put week 2's answers into week 1's student set."""
    try:
        real = path.resolve()
        if not real.is_file():
            return None
    except (OSError, RuntimeError):
        return None
    if is_solutions_name(real):
        return "a solutions document is never part of a sheet"
    if real.suffix.lower() == ".tex" and is_latex_sheet(real):
        return "another sheet (it has \\begin{document})"
    try:
        pairs = pair_folder(real.parent)
    except OSError:
        return None
    for pair in pairs:
        if pair.solutions is not None and pair.solutions.resolve() == real:
            return f"the solutions of {pair.source.name}, never part of a sheet"
        if pair.source.resolve() == real:
            return "another sheet of its folder"
    return None
