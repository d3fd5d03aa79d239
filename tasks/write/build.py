"""Stage 9: write the set with in2lambda, the platform's own set writer.

Here the settled set is laid out for the platform (titles, images staged under unique names and
their links rewritten, display maths on lines of its own), every maths span checked, and the
result moved into place whole; the calls into in2lambda, and its quirks, are in
:mod:`tasks.write.in2lambda`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from schemas.areas import Box
from schemas.build import BuildResult, BuiltSet, KatexWarning
from schemas.sheet import Part, PartKey, Question, SheetSet, iter_fields
from schemas.areas import PartBoxes
from schemas.markdown import SheetText
from schemas.tiers import Settled
from tasks.convert.opener import read_file
from tasks.cache import stage
from tasks.errors import InputError
from tasks.write.in2lambda import default_title, write_with_in2lambda
from tasks.write.katex import KatexBudget, check_maths, find_maths

IMAGE_LINK = re.compile(
    r"!\[(?P<alt>(?:[^\]\\\n]|\\.)*)\]"
    r"\(\s*(?P<target><[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
    r"(?P<attrs>\{[^}\n]*\})?"
)
"""A markdown image link ``![alt](target "title"){attrs}``; ``target`` as written
(``<…>`` included when the link uses it), ``attrs`` pandoc's attribute block if any."""

_CONTAINER = re.compile(r"((?:[ \t]*>[ \t]?)*)([ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?)")
_LAID_OUT = re.compile(r"[ \t]*\n[\s\S]*\n[ \t]*")
_UNSAFE_NAME = re.compile(r"[^\w\-.]")


def display_blocks(text: str) -> str:
    """``text`` with every ``$$…$$`` written as a block of its own; layout only.

    The platform renders ``$$…$$`` inside running text as inline maths. Each display
    maths becomes a ``$$`` line, the TeX, a ``$$`` line, on lines of its own, with a
    blank line wherever it splits a paragraph (inside a list item the lines keep the
    item's indentation). A block already laid out so
    (``$$`` ending its line and the closing ``$$`` starting one) keeps its TeX byte for
    byte; the TeX of a span moved onto its own line loses only surrounding whitespace.
    Words and TeX are unchanged (``tasks.settle.fold.fold`` of the result equals that of the
    input); ``$…$``, ``\\(…\\)``, ``\\[…\\]``, maths in code, and ``$$`` in a table row,
    heading or block quote are left as written. Idempotent.
    """
    spans = [s for s in find_maths(text) if s.delim == "$$" and s.tex.strip()]
    if not spans:
        return text
    acc = ""
    pos = 0
    for s in spans:
        acc += text[pos : s.start]
        line_start = acc.rfind("\n") + 1
        head = acc[line_start:]
        quote, lead = _CONTAINER.match(head).groups()  # type: ignore[union-attr]
        if quote or head.lstrip().startswith(("|", "#")):
            acc += text[s.start : s.end]
            pos = s.end
            continue
        indent = " " * len(lead.expandtabs(4))
        if head.strip() == "" or head == lead:
            # The span starts its line: split the paragraph above it, unless the line
            # opens the text, follows a blank line, or opens a list item.
            if line_start > 0 and not lead.strip():
                prev = acc[acc.rfind("\n", 0, line_start - 1) + 1 : line_start - 1]
                if prev.strip() != "":
                    acc = acc[:line_start] + "\n" + head
        else:
            acc = acc.rstrip(" \t") + "\n\n" + indent
        if _LAID_OUT.fullmatch(s.tex):
            acc += text[s.start : s.end]
        else:
            acc += "$$\n" + indent + s.tex.strip() + "\n" + indent + "$$"
        k = s.end
        while k < len(text) and text[k] in " \t":
            k += 1
        if k < len(text):
            if text[k] == "\n":
                nl = text.find("\n", k + 1)
                nxt = text[k + 1 : nl if nl >= 0 else len(text)]
                if nxt.strip() != "":
                    acc += "\n"
            else:
                acc += "\n\n" + indent
        pos = k
    return acc + text[pos:]


def _link_key(target: str) -> str:
    return target[1:-1] if target.startswith("<") and target.endswith(">") else target


def _fields(q: Question) -> list[str]:
    texts = [q.main_text]
    for p in q.parts:
        texts += [p.content, *p.options, p.answer, p.worked_solution]
    return texts


def _check_name(name: str, out_dir: Path) -> None:
    if (
        not name
        or name != name.strip()
        or name in (".", "..")
        or name.startswith(".")
        or any(c in name for c in "/\\\x00")
    ):
        raise InputError(str(out_dir), f"not a valid set name: {name!r} (no slashes, no leading dot)")


def write_set(
    questions: SheetSet,
    name: str,
    out_dir: Path,
    images: dict[str, str | None],
    boxes: dict[str, list[Box]] | None = None,
    description: str = "",
) -> BuildResult:
    """Write ``questions`` as a Lambda Feedback set with in2lambda.

    Writes ``<out_dir>/<name>/`` (``set_<name>.json``, ``question_NNN_<title>.json``,
    ``media/``) and ``<out_dir>/<name>.zip``, the layout of the platform's exports
    (in2lambda 1.1.0 ``Set.to_json``). ``out_dir`` is created if missing.

    - The set's ``description`` (the document's title, quoted; none when empty).
    - Titles: an empty title is written as ``Question N`` (in2lambda's rule).
    - Parts: ``content``, ``answer`` (in2lambda's ``answer`` → ``answerContent``) and
      ``worked_solution`` (→ ``workedSolution.content``); a question with no parts (or
      one empty part) gets one empty part. Multiple-choice ``options`` are not written
      into any field; they stay in ``BuildResult.written``.
    - Answer boxes: ``boxes`` maps a part's 1-based key (``q2.p1``, parts counted as
      ``normalised_parts``) to its boxes, as :func:`tasks.boxes.check.check` kept them; each
      becomes in2lambda's response area (:func:`tasks.write.in2lambda.to_in2lambda`; a multiple
      choice carries the part's options). A key naming no part raises ``ValueError``.
    - Images: ``images`` maps each image link as written in the markdown to the file
      found for it (or ``None``). Each found file is copied once into ``media/`` under
      its own name made safe (``[^\\w.-]`` → ``_``), with ``_2``, ``_3``, … added on a
      clash, and every link to it in every field is rewritten to name that file bare
      (``![alt](figure.png)``, alt, title and ``{attrs}`` kept). A link with no file is
      left as written and listed in ``missing_images`` (a warning, never a failure).
    - Display maths is laid out by :func:`display_blocks`.
    - Every maths span of every field, and of every answer box's label, is checked with
      :func:`tasks.write.katex.check_maths` (a label's key: ``q2.p1.box1.label``).

    in2lambda writes into a fresh temporary folder inside ``out_dir``; the folder and
    zip are moved into place only when both were written, so a failure leaves nothing
    half-written and nothing of the user's is deleted.

    Returns a :class:`schemas.build.BuildResult`. Raises ``InputError`` naming
    ``out_dir`` for a set name that is not a plain file name (empty, a slash, a leading
    dot or space), and naming the path when ``<out_dir>/<name>`` or
    ``<out_dir>/<name>.zip`` already exists (never overwritten); ``OSError`` when
    writing fails.
    """
    out_dir = Path(out_dir)
    _check_name(name, out_dir)
    dest_dir = out_dir / name
    dest_zip = out_dir / f"{name}.zip"
    for dest in (dest_dir, dest_zip):
        if dest.exists() or dest.is_symlink():
            raise InputError(str(dest), "already exists; not overwriting it (choose another output folder)")

    # Which file each link names, and the unique media name of each file.
    media_of_file: dict[str, str] = {}
    media_names: set[str] = set()
    link_media: dict[str, str] = {}
    missing: list[str] = []
    for q in questions.root:
        for text in _fields(q):
            for m in IMAGE_LINK.finditer(text):
                link = m.group("target")
                if link in link_media or link in missing:
                    continue
                found = images.get(link, images.get(_link_key(link)))
                if not found or not Path(found).is_file():
                    missing.append(link)
                    continue
                source = str(Path(found).resolve())
                if source not in media_of_file:
                    stem, suffix = os.path.splitext(_UNSAFE_NAME.sub("_", Path(source).name))
                    candidate, n = stem + suffix, 1
                    while candidate.lower() in media_names:
                        n += 1
                        candidate = f"{stem}_{n}{suffix}"
                    media_names.add(candidate.lower())
                    media_of_file[source] = candidate
                link_media[link] = media_of_file[source]

    def relink(text: str) -> str:
        def one(m: re.Match) -> str:
            new = link_media.get(m.group("target"))
            if new is None:
                return m.group(0)
            a, b = m.start("target") - m.start(), m.end("target") - m.start()
            return m.group(0)[:a] + new + m.group(0)[b:]

        return display_blocks(IMAGE_LINK.sub(one, text))

    written_questions: list[Question] = []
    for i, q in enumerate(questions.root):
        written_questions.append(
            Question(
                title=default_title(q.title, i),
                main_text=relink(q.main_text),
                parts=[
                    Part(
                        content=relink(p.content),
                        options=[relink(o) for o in p.options],
                        answer=relink(p.answer),
                        worked_solution=relink(p.worked_solution),
                    )
                    for p in q.normalised_parts()
                ],
            )
        )
    written = SheetSet(written_questions)

    katex: list[KatexWarning] = []
    budget = KatexBudget()  # bounded: past it a span is a warning, never a stall
    for key, text in iter_fields(written):
        katex += check_maths(text, key, budget)

    boxes = boxes or {}
    keys = {str(PartKey(qi, pi)) for qi, q in enumerate(written.root) for pi in range(len(q.parts))}
    if set(boxes) - keys:
        raise ValueError(f"answer boxes for parts the set does not have: {', '.join(sorted(set(boxes) - keys))}")
    for key, part_boxes in boxes.items():
        for n, box in enumerate(part_boxes, 1):
            katex += check_maths(box.label, f"{key}.box{n}.label", budget)
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=out_dir))
    try:
        staged = tmp / "media"
        staged.mkdir()
        for source, media_name in media_of_file.items():  # the one opener, its rule again as it is copied
            (staged / media_name).write_bytes(read_file(source, Path(source).parent))
        attached: set[str] = set()
        staged_names = set(media_of_file.values())
        attaches: list[list[str]] = []  # each file goes with the first question that links it
        for q in written.root:
            own: list[str] = []
            for text in _fields(q):
                for m in IMAGE_LINK.finditer(text):
                    media_name = m.group("target")
                    if media_name in staged_names and media_name not in attached:
                        attached.add(media_name)
                        own.append(str(staged / media_name))
            attaches.append(own)
        built = tmp / "out"
        write_with_in2lambda(written, name, attaches, boxes, built, description)
        for dest in (dest_dir, dest_zip):
            if dest.exists() or dest.is_symlink():
                raise InputError(str(dest), "already exists; not overwriting it (choose another output folder)")
        os.rename(built / name, dest_dir)
        try:
            os.rename(built / f"{name}.zip", dest_zip)
        except BaseException:
            shutil.rmtree(dest_dir, ignore_errors=True)  # ours: moved in a moment ago
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    return BuildResult(
        zip_path=str(dest_zip.resolve()),
        set_dir=str(dest_dir.resolve()),
        questions=len(written),
        parts=written.n_parts(),
        media=list(media_of_file.values()),
        missing_images=missing,
        katex_warnings=katex,
        written=written,
        boxes=sum(len(v) for v in boxes.values()),
    )


def _image_key(sheet: SheetText) -> list[list[str | None]]:
    return [[i.link, i.digest] for m in (sheet.questions, sheet.solutions) if m for i in m.images]


@stage("build", views={"sheet": _image_key})
def build_task(settled: Settled, name: str, sheet: SheetText, part_boxes: list[PartBoxes | list[PartBoxes]]) -> BuiltSet:
    """:func:`write_set` as a cached task: the settled set, named ``name``, with the sheet's
    images and the answer boxes kept in ``part_boxes`` (the answer-box tasks' results,
    :func:`tasks.boxes.propose.gathered`); keyed by the set, its name, the boxes and the
    images' bytes (their paths only locate them).

    Writes in a temporary folder and returns every file's bytes (:class:`BuiltSet`), so
    the outputs stage can put them in place on a cache hit too.
    """
    images = {i.link: i.path for m in (sheet.questions, sheet.solutions) if m for i in m.images}
    from tasks.boxes.propose import gathered

    boxes = {p.field: p.boxes for p in gathered(part_boxes) if p.boxes}
    with tempfile.TemporaryDirectory(prefix="sheet2lambda-build-") as tmp:
        result = write_set(settled.questions, name, Path(tmp), images, boxes, sheet.metadata().get("title", ""))
        files = {
            str(p.relative_to(tmp)): p.read_bytes() for p in sorted(Path(tmp).rglob("*")) if p.is_file()
        }
    result = result.model_copy(update={"zip_path": f"{name}.zip", "set_dir": name})
    return BuiltSet(result=result, files=files)
