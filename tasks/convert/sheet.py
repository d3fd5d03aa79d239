"""The sheet both routes read: the two converted documents checked, their images resolved.

The markdown stage (:func:`tasks.convert.markdown.markdown_task`) is cached by the
documents' bytes; where the images sit, and their bytes, are read anew each run here, so
that the build is keyed by the images' content and a moved folder still finds them. Each image
is read once, through one open, and its bytes kept in the run's own folder beside ``media_dir``
(``<media_dir>-images``): the build copies those, never the sheet's file again (attack17 C27).
"""

from __future__ import annotations

from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.markdown import Converted, Markdown, SheetText
from tasks.convert.images import resolve_images
from tasks.convert.markdown import restore_media
from tasks.convert.mathpix_maths import mathpix_style
from tasks.errors import InputError


def _localised(conv: Converted, path: Path, media_dir: str) -> Markdown:
    if conv.error or conv.markdown is None:
        raise InputError(str(path), conv.error or "could not be converted")
    restore_media(conv, media_dir)
    return resolve_images(conv.markdown, str(path.resolve().parent), media_dir, keep=f"{media_dir}-images")


def conversion_error(converted: list[tuple[Converted, str]]) -> str | None:
    """The one line ``file: problem`` for the first document that could not be converted,
    given ``(converted, the file as the user named it)`` pairs; ``None`` when all were."""
    for conv, path in converted:
        if conv.error or conv.markdown is None:
            return f"{path}: {conv.error or 'could not be converted'}"
    return None


def sheet_text(questions: Converted, solutions: Converted | None, questions_path: str, solutions_path: str | None,
               media_dir: str) -> SheetText:
    """The :class:`SheetText` of a converted sheet and its solutions.

    ``*_path`` are the files as the user named them (for the one-line error and to resolve
    image links beside them); ``media_dir`` is where a docx's images are put back.
    Raises :class:`InputError` ``file: problem`` when either document could not be converted.
    """
    q = _localised(questions, Path(questions_path), media_dir)
    s = _localised(solutions, Path(solutions_path), media_dir) if solutions is not None and solutions_path else None
    return SheetText(questions=q, solutions=s, mathpix=_mathpix(q) or bool(s and _mathpix(s)))


@task(name="sheet", cache_policy=NO_CACHE, persist_result=False)
def sheet_task(questions: Converted, solutions: Converted | None, questions_path: str, solutions_path: str | None,
               media_dir: str) -> SheetText:
    """:func:`sheet_text` as a task; never cached (it reads the images' files each run), so
    its result is not stored either (storing one costs Prefect a few ms a task run)."""
    return sheet_text(questions, solutions, questions_path, solutions_path, media_dir)


def _mathpix(markdown) -> bool:
    """Mathpix markdown: a PDF's (Mathpix converted it here), or markdown that looks
    converted by Mathpix elsewhere (:func:`tasks.convert.mathpix_maths.mathpix_style`)."""
    return markdown.suffix == ".pdf" or mathpix_style(markdown.text)
