"""in2lambda (1.1.0), the platform's own set writer: the one module that touches its API, and
where its quirks are handled.

- ``import in2lambda`` installs rich's traceback handler as ``sys.excepthook`` (it prints local
  variables, which can hold keys) and runs ``beartype_this_package()``, whose decoration of
  ``Question.master_content`` warns (``BeartypeClawDecorWarning``). :func:`load_in2lambda`
  restores the hook and silences the warnings of the import only.
- ``Set.to_json(dir)`` deletes ``dir`` first (``shutil.rmtree``): :func:`write_with_in2lambda`
  is given a folder of its own, and :func:`tasks.write.build.write_set` moves the result into
  place only when everything succeeded.
- ``Question.master_content`` appends on every assignment and ``Question.add_part_text`` /
  ``add_solution`` keep ``_last_part`` bookkeeping: parts are built as ``Part`` objects
  directly and the main text is given once, to the constructor.
- in2lambda copies ``Question.images`` into ``media/`` under their own names (two images with
  one name overwrite each other) and rewrites no link: the caller stages them under unique
  names and rewrites the links first.
- in2lambda's ``katex_convert`` rewriter changes meaning and is never used; maths is checked
  (never changed) by :mod:`tasks.write.katex`.
- in2lambda names each question's file after its title (``question_NNN_<title>.json``, every
  character but a word character, ``.`` or ``-`` made ``_``), so a long title (a heading
  holding a whole prompt) is a name past the file system's 255 bytes and ``OSError`` 36. A title past :data:`FILE_TITLE`
  characters is given to in2lambda cut short, and the whole title is put back into the written
  JSON and its zip (:func:`_restore_titles`): the platform reads the title from the JSON.
"""

from __future__ import annotations

import json
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

from schemas.areas import Box
from schemas.sheet import Part, PartKey, SheetSet
from tasks.boxes.settings import box_settings
from tasks.safe_json import json_loads


@lru_cache(maxsize=1)
def load_in2lambda() -> SimpleNamespace:
    """in2lambda's ``Set``, ``Question``, ``Part`` and its ``response_area`` module (as
    ``areas``), imported once without its side effects: ``sys.excepthook`` is restored after
    the import and beartype's decoration warnings (and deprecation warnings of in2lambda's
    dependencies) are silenced during it."""
    from beartype.roar import BeartypeWarning

    hook = sys.excepthook
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BeartypeWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            import in2lambda  # noqa: F401
            import in2lambda.json_convert.json_convert  # noqa: F401  (imported lazily by to_json)
            from in2lambda.api import response_area
            from in2lambda.api.part import Part as I2LPart
            from in2lambda.api.question import Question as I2LQuestion
            from in2lambda.api.set import Set as I2LSet
    finally:
        sys.excepthook = hook
    return SimpleNamespace(Set=I2LSet, Question=I2LQuestion, Part=I2LPart, areas=response_area,
                           zip_folder=in2lambda.json_convert.json_convert._zip_sorted_folder)


FILE_TITLE = 80
"""Characters of a title in2lambda may put into a file name (``question_NNN_`` and ``.json``
around it, each character up to 4 bytes in UTF-8: far inside 255 bytes)."""


def _restore_titles(set_dir: Path, zip_path: Path, titles: dict[int, str]) -> None:
    """Put each whole title of ``titles`` (by question index) back into the question files
    in2lambda wrote into ``set_dir`` (found by their ``question_NNN_`` prefix) and write
    ``zip_path`` again from ``set_dir`` with in2lambda's own zipper (same order and layout).
    Raises ``OSError`` when a question file is not there."""
    lib = load_in2lambda()
    for index, title in titles.items():
        found = sorted(set_dir.glob(f"question_{index:03d}_*.json"))
        if len(found) != 1:
            raise OSError(f"in2lambda wrote no single question file for question {index + 1}")
        data = json_loads(found[0].read_text(encoding="utf-8"))
        data["title"] = title
        with open(found[0], "w") as fh:  # as in2lambda writes it (json.dump, default settings)
            json.dump(data, fh)
    if titles:
        zip_path.unlink()
        lib.zip_folder(str(set_dir), str(zip_path))


def default_title(title: str, index: int) -> str:
    """The title in2lambda writes: ``title``, or ``Question N`` (``index`` 0-based) when empty.

    Source: in2lambda 1.1.0 ``json_convert.converter``.
    """
    return title if title != "" else f"Question {index + 1}"


def default_titles(questions: SheetSet) -> SheetSet:
    """A copy of ``questions`` with every empty title replaced as in2lambda writes it."""
    return SheetSet(
        [q.model_copy(update={"title": default_title(q.title, i)}) for i, q in enumerate(questions.root)]
    )


def to_in2lambda(box: Box, part: Part, main_text: str = ""):
    """``box`` of ``part`` (``main_text`` its question's) as in2lambda 1.1.0's response area,
    with the class's default evaluation function (compareExpressions for ``NumericUnits`` and
    ``MathSingleLine``, arrayEqual for ``MultipleChoice``) and the settings of
    :func:`tasks.boxes.settings.box_settings`: its grade parameters (``strict_syntax`` false, a
    tolerance), its input symbols (shown to the student, as the ME2 author shows them). A
    multiple choice carries the part's options and is ``single`` (radio buttons) when at most one
    is true: one marked option, or none (:func:`tasks.boxes.sheet.unmarked_choice`, waiting for a
    person to mark it, written as a choice of one as most sheets' choices are).
    ``label`` becomes ``pre_text``.

    Raises ``ValueError`` for a kind not of the three, or a multiple choice whose answer
    is not one boolean per option (boxes kept by :func:`tasks.boxes.check.check` never do).
    """
    ra = load_in2lambda().areas
    options = part.options
    if box.kind == "MULTIPLE_CHOICE" and isinstance(box.answer, list) and len(box.answer) == len(options):
        return ra.MultipleChoice(
            answer=list(box.answer), options=list(options), single=sum(box.answer) <= 1, pre_text=box.label
        )
    if box.kind not in ("NUMERIC_UNITS", "MATH_SINGLE_LINE") or not isinstance(box.answer, str):
        raise ValueError(f"cannot write a {box.kind} box with answer {box.answer!r}")
    settings = box_settings(box, part, main_text)
    symbols = [ra.InputSymbol(symbol=s.latex, code=s.code, aliases=list(s.aliases)) for s in settings.symbols]
    kind = ra.NumericUnits if box.kind == "NUMERIC_UNITS" else ra.MathSingleLine
    return kind(answer=box.answer, pre_text=box.label, grade_params=settings.params, input_symbols=symbols,
                display_input_symbols=bool(symbols))


def write_with_in2lambda(
    written: SheetSet, name: str, images: list[list[str]], boxes: dict[str, list[Box]], folder: Path,
    description: str = "",
) -> None:
    """Have in2lambda write ``written`` (titles already given, parts normalised) as the set
    ``name`` into ``folder``, which it deletes first: ``folder/<name>/`` and
    ``folder/<name>.zip``.

    ``images[i]`` are the files question ``i`` attaches (copied into ``media/`` under their own
    names); ``boxes`` maps a part's key (``q2.p1``) to its boxes (:func:`to_in2lambda`: a
    multiple choice carries the part's options, the others their tolerance and symbols).
    Options are written into no field.
    ``description`` is the set's description (the document's title; none when empty).

    Raises ``OSError`` when in2lambda fails to write either file, and what in2lambda raises
    (beartype's violations for a value of the wrong type).
    """
    lib = load_in2lambda()
    i2l_set = lib.Set()
    i2l_set.set_name(name)
    if description:
        i2l_set.set_description(description)  # the document's title, as the sheet writes it
    long_titles: dict[int, str] = {}
    for qi, q in enumerate(written.root):
        title = q.title
        if len(title) > FILE_TITLE:
            long_titles[qi] = title
            title = title[:FILE_TITLE]
        parts = [
            lib.Part(
                content=p.content,
                answer=p.answer,
                worked_solution=p.worked_solution,
                response_areas=[to_in2lambda(b, p, q.main_text) for b in boxes.get(str(PartKey(qi, pi)), [])],
            )
            for pi, p in enumerate(q.parts)
        ] or [lib.Part()]
        i2l_set.questions.append(
            lib.Question(title=title, parts=parts, images=images[qi], master_content=q.main_text)
        )
    i2l_set.to_json(str(folder))
    _restore_titles(folder / name, folder / f"{name}.zip", long_titles)
    if not (folder / name / f"set_{name}.json").is_file() or not (folder / f"{name}.zip").is_file():
        raise OSError(f"in2lambda did not write {name}/set_{name}.json and {name}.zip")
