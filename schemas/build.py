"""The set as written by in2lambda, and the KaTeX check of its maths."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.sheet import SheetSet


class KatexWarning(BaseModel):
    """A maths span KaTeX could not render.

    ``field`` is the field key (``q2.p1.worked_solution``; empty when the caller gave
    none), ``tex`` the TeX between the delimiters as written, ``message`` KaTeX's
    error (e.g. ``Undefined control sequence: \\foo at position 1: \\foo x``).
    """

    field: str = ""
    tex: str
    message: str


class BuildResult(BaseModel):
    """What :func:`tasks.write.build.write_set` wrote.

    - ``zip_path``: the set's zip (``<out_dir>/<name>.zip``), absolute; from the build
      task (which writes in memory), relative to the output folder (``<name>.zip``);
    - ``set_dir``: the set's folder (``<out_dir>/<name>/``, holding ``set_<name>.json``,
      ``question_NNN_<title>.json`` and ``media/``), absolute; from the build task,
      relative (``<name>``);
    - ``questions``, ``parts``: counts (a question with no parts counts as one part, as
      in2lambda writes one empty part for it);
    - ``media``: the file names written into ``media/``, in the order first linked;
    - ``missing_images``: image links (as written) that had no file, left as written;
    - ``katex_warnings``: the maths spans KaTeX could not render;
    - ``written``: the set exactly as written (default titles, image links naming the
      media files, display maths as ``$$`` blocks, parts as ``normalised_parts``: a
      question with none has ``[]`` here and one empty part in its file),
      multiple-choice ``options`` kept (the set shows them only in a multiple-choice
      answer box);
    - ``boxes``: the answer boxes (response areas) written, over all parts.
    """

    zip_path: str
    set_dir: str
    questions: int
    parts: int
    media: list[str] = Field(default_factory=list)
    missing_images: list[str] = Field(default_factory=list)
    katex_warnings: list[KatexWarning] = Field(default_factory=list)
    written: SheetSet
    boxes: int = 0


class BuiltSet(BaseModel):
    """The build stage's result: the :class:`BuildResult` and every file written, by path
    relative to the output folder (``<name>.zip``, ``<name>/question_000_….json``, …), so
    that a cached build can be put in place without writing the set again."""

    result: BuildResult
    files: dict[str, bytes] = Field(default_factory=dict)
