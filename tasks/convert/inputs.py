"""Reading what the user named: the sheet, its solutions, a filter, saved replies, an export.

Everything a run needs from disk is read here, once, into memory, so that the cached
stages after it are keyed by content. Each problem is an :class:`tasks.errors.InputError`
naming the file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from schemas.areas import Box
from schemas.export import ExportedSet
from tasks.convert.bounds import check_docx, check_document_size, check_saved_size, check_text_sheet
from tasks.convert.opener import FileRefused, found_refusal, read_file
from tasks.errors import InputError


class Inputs(BaseModel):
    """The files of one document run, read into memory.

    ``source_bytes``/``solutions_bytes``: the documents; ``filter_source``: a Lua filter
    given with ``--filter`` (or saved as ``filter.lua`` among the replies); ``replies``:
    saved reply texts by stage (``route-a``, ``adjudication``, ``compare``); ``areas``: the saved answer
    box replies (``areas.json``) by part key (``q1.p1``); ``export``: the export read, and
    ``export_boxes``/``export_rtol`` its answer boxes and their tolerances by part key.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Path
    source_bytes: bytes
    solutions: Path | None = None
    solutions_bytes: bytes | None = None
    solutions_note: str = ""
    filter_source: str | None = None
    filter_path: Path | None = None
    """Where ``filter_source`` was read (``--filter``, or ``filter.lua`` among the replies):
    the file a failing filter's one line names."""
    replies: dict[str, str] = {}
    areas: dict[str, str] = {}
    export: ExportedSet | None = None
    export_boxes: dict[str, list[Box]] = {}
    export_rtol: dict[str, list[float | None]] = {}
    fresh_ocr: bool = False
    """Convert a PDF with Mathpix again even when the OCR cache holds it (``--fresh-ocr``)."""
    tex_roots: list[str] = []
    """Folders besides its own a LaTeX sheet may read files in (``--tex-root``, a folder or
    sweep run's root; :mod:`tasks.convert.tex_files`)."""


def _read_bytes(path: Path, what: str, place: Path | None = None) -> bytes:
    """``path``'s bytes through the one opener (:func:`tasks.convert.opener.read_file`):
    ``place`` is the folder the run found it in (its rule applies), ``None`` for a file the
    user named. Raises :class:`InputError` naming the file: missing, a folder, too large, not
    a sheet, refused by the rule, unreadable."""
    try:
        exists = path.exists()
    except OSError as e:  # a name too long for the file system, a loop of links
        raise InputError(str(path)[:120] + ("..." if len(str(path)) > 120 else ""),
                         f"cannot read {what}: {e.strerror or e}") from None
    if not exists:
        raise InputError(str(path), f"no such {what}")
    if path.is_dir():
        raise InputError(str(path), f"is a folder, not a {what}")
    try:
        if what in ("document", "solutions document"):
            check_document_size(path, path.stat().st_size)
        else:
            check_saved_size(path, path.stat().st_size, what)
        data = read_file(path, place)
    except FileRefused as e:
        raise InputError(str(path), f"{what} not read: {e.why}") from None
    except OSError as e:
        raise InputError(str(path), f"cannot read {what}: {e.strerror or e}") from None
    if what in ("document", "solutions document") and path.suffix.lower() == ".docx":
        check_docx(data, str(path))
    elif what in ("document", "solutions document"):
        check_text_sheet(path, data)
    return data


def read_document(path: str | Path) -> bytes:
    """A document's bytes, read as a run reads its sheet (its stated size, a text sheet's
    checks); raises :class:`InputError` naming the file."""
    return _read_bytes(Path(path), "document")


def read_saved_reply(path: str | Path) -> str:
    """A saved reply's text (at most its stated size, UTF-8); raises :class:`InputError`."""
    return _read_text(Path(path), "saved reply")


def _read_text(path: Path, what: str, place: Path | None = None) -> str:
    data = _read_bytes(path, what, place)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path), f"{what} is not UTF-8 text") from None


def read_inputs(
    source: str,
    solutions: str | None = None,
    filter: str | None = None,
    replies: str | None = None,
    export: str | None = None,
    tex_root: str | None = None,
    fresh_ocr: bool = False,
    look_for_solutions: bool = True,
    found_in: str | None = None,
) -> Inputs:
    """Read every input of a document run; raises :class:`InputError` on the first problem.
    ``fresh_ocr``: a PDF is converted by Mathpix again even when cached (``--fresh-ocr``).
    ``look_for_solutions`` False: the caller already looked (a folder run pairs its folder
    once, :func:`tasks.convert.pairing.pair_folder`), so no ``solutions`` means none; looking
    again listed the whole folder for every sheet, a cost per sheet growing with the folder.
    ``found_in``: the root a folder or sweep run found ``source`` and ``solutions`` in (not
    named by the user): they are read by the rule for found files
    (:mod:`tasks.convert.opener`), as are the saved replies found inside ``replies`` and a
    solutions document found beside the sheet by its name.

    Solutions: ``solutions`` when given, else the file beside ``source`` found by
    :func:`tasks.convert.pairing.find_solutions`; none found is not an error (the run goes on with
    empty answers and says so in ``solutions_note``), nor is one found that is a link leading
    out of the sheet's folder, a hard link owned by another user, or a file of a user who owns
    neither the sheet nor this run (:func:`tasks.convert.tree.planted_note`), which is not read (the note says so).
    """
    from tasks.boxes.export import areas_of_members
    from tasks.boxes.propose import read_saved
    from tasks.check.compare import export_of, read_export_files
    from tasks.convert.pairing import allowed_place, find_solutions
    from tasks.convert.tree import leaves, planted_note

    src = Path(source)
    place = Path(found_in) if found_in else None
    inputs = Inputs(source=src, source_bytes=_read_bytes(src, "document", place), fresh_ocr=fresh_ocr)
    if tex_root:
        root = Path(tex_root)
        if not root.is_dir():
            raise InputError(str(root), "--tex-root is not a folder")
        inputs.tex_roots = [str(root.resolve())]
    if solutions and place is not None and (planted := planted_note(Path(solutions), src)):
        inputs.solutions_note = planted  # found by a folder run beside another user's sheet
    elif solutions:
        sol = Path(solutions)
        inputs.solutions, inputs.solutions_bytes = sol, _read_bytes(sol, "solutions document", place)
    else:
        found = find_solutions(src) if look_for_solutions else None
        if found is not None and (planted := planted_note(found, src)):
            inputs.solutions_note = planted
        elif found is not None and leaves(found, allowed_place(src, found)):
            # found by its name, not named by the user: a link leading out of the place the rule
            # looks in is not followed (a folder of sheets from elsewhere could send any file to the model)
            inputs.solutions_note = _refused_note(found, allowed_place(src, found))
        elif found is not None and (why := found_refusal(found, allowed_place(src, found))) is not None:
            inputs.solutions_note = f"{found.name} beside the sheet is {why}: not read (name it with --solutions to " \
                                    "use it); answers left empty"
        elif found is not None:
            inputs.solutions, inputs.solutions_bytes = found, _read_bytes(found, "solutions document",
                                                                          allowed_place(src, found))
        else:
            inputs.solutions_note = "no solutions document found beside the sheet: answers left empty"
    if filter:
        inputs.filter_source, inputs.filter_path = _read_text(Path(filter), "Lua filter"), Path(filter)
    if replies:
        rd = Path(replies)
        if not rd.is_dir():
            raise InputError(str(rd), "no such folder of saved replies")
        for stage in ("route-a", "adjudication", "compare"):
            p = _saved(rd, f"{stage}.json")
            if p is not None:
                inputs.replies[stage] = _read_text(p, "saved reply", rd)
        if "compare" in inputs.replies:  # its shape checked here: one line naming the file, nothing written
            from tasks.pages.ask import read_saved

            read_saved(inputs.replies["compare"], str(rd / "compare.json"))
        saved_areas = _saved(rd, "areas.json")
        if saved_areas is not None:
            inputs.areas = read_saved(_read_text(saved_areas, "saved reply", rd), str(saved_areas))
        saved_filter = _saved(rd, "filter.lua")
        if inputs.filter_source is None and saved_filter is not None:
            inputs.filter_source, inputs.filter_path = _read_text(saved_filter, "Lua filter", rd), saved_filter
    if export:
        files = read_export_files(Path(export))  # read once: the fields and the answer boxes
        inputs.export = export_of(files, export)
        inputs.export_boxes, inputs.export_rtol = areas_of_members(files, export)
    return inputs


def _saved(replies: Path, name: str) -> Path | None:
    """``replies/name`` when it is a file, else ``None``; raises :class:`InputError` when it is
    a link leading out of the folder of saved replies: the folder is named, its files are found
    by name, and a link among them would read (and copy into the outputs) any file the run can
    read, as a deployed run's confinement to its root must not allow."""
    from tasks.convert.tree import leaves

    path = replies / name
    if not path.is_file():
        return None
    if leaves(path, replies):
        raise InputError(str(path), "a link leading out of the folder of saved replies: not read (copy the file "
                                    "into the folder instead)")
    return path


def _refused_note(found: Path, place: Path) -> str:
    """The run's note for a solutions document found by name but not read: a link beside the
    sheet leading out of its folder, a link elsewhere leading out of ``place``, or a plain file
    reached through a linked folder that leads out of ``place`` (never called a link itself)."""
    tail = ": not read (name it with --solutions to use it); answers left empty"
    if found.is_symlink() and Path(os.path.abspath(found)).parent == place:
        return f"{found.name} beside the sheet is a link to a file outside its folder{tail}"
    if found.is_symlink():
        return f"{found} is a link to a file outside {place}{tail}"
    return f"{found} is reached through a linked folder leading outside {place}{tail}"


def file_digest(path: str | None) -> str | None:
    """sha256 of a file's bytes, or ``None`` when there is no file (for image cache keys)."""
    if not path:
        return None
    try:
        return hashlib.sha256(read_file(path)).hexdigest()  # the one opener (a FIFO is no image)
    except OSError:
        return None


def tex_context(path: Path, roots: list[str] | None = None, fresh: bool = False) -> str | None:
    """For a ``.tex`` sheet: a sha256 over every file it reads (``\\input``,
    ``\\lstinputlisting``, local packages, its class, images: wherever they are, found as
    :func:`tasks.convert.tex_files.inline` finds them; the class and package files they load
    in turn, found as the TeX pre-pass finds them, :func:`tasks.convert.latex.files_beside`) and over the folders it may read in
    (``roots``, besides its own), so that editing any one invalidates the cached markdown;
    For a ``.pdf``: the OCR cache's context (:func:`tasks.convert.ocr_cache.ocr_context`),
    so a failed conversion is never a cache hit of the markdown stage (``fresh``: a value
    never seen, for ``--fresh-ocr``). ``None`` for other formats."""
    from tasks.convert.tex_files import inline

    if path.suffix.lower() == ".pdf":
        from tasks.convert.ocr_cache import ocr_context

        try:
            return ocr_context(read_file(path), fresh=True if fresh else None)
        except OSError:
            return None
    if path.suffix.lower() != ".tex":
        return None
    try:
        text = read_file(path).decode("utf-8", "replace")
    except OSError:
        return None
    resolved = inline(text, path.resolve().parent, roots)
    h = hashlib.sha256(resolved.digest().encode())
    # The class and package files the TeX pre-pass reads (a class's own \LoadClass and
    # \RequirePackage too: tasks.convert.latex.files_beside), which inline does not follow.
    from tasks.convert.latex import files_beside, parse_nodes

    try:
        beside = files_beside(parse_nodes(resolved.tex), path.resolve().parent, set())
    except Exception:  # noqa: BLE001 - what pylatexenc cannot parse, the pre-pass does not read either
        beside = []
    for p in sorted(beside):
        h.update(b"\0beside\0" + str(p.resolve()).encode() + b"\0" + (file_digest(str(p)) or "").encode())
    for root in sorted(str(Path(r).resolve()) for r in roots or []):
        h.update(b"\0root\0" + root.encode())
    return h.hexdigest()
