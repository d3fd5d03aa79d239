"""The markdown a document becomes, which both routes read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Role = Literal["questions", "solutions"]


class ConversionWarning(BaseModel):
    """Something pandoc skipped or could not convert (from its ``--verbose`` log), or one of
    the document's metadata (kind ``Metadata``).

    ``kind`` is pandoc's message type (``SkippedContent``, ``CouldNotConvertTeXMath``, ...) or
    ours (``UndefinedMaths``, ``HiddenDropped``, ...), ``text`` the source it concerns,
    ``message`` the whole line pandoc wrote. ``about`` says what it concerns: ``content``, text
    or maths a field may lack (a flag on that field, :func:`tasks.settle.tiers.conversion_loss_flags`),
    or ``sheet``, the preamble, packages, page layout or metadata, which no field holds
    (``report.json`` lists it; never a flag). ``line`` is the line (1-based) of the converted
    file pandoc reported it at, ``None`` when it gave none; ``near`` the sheet's words just
    before it, by which the field it sits in is found; ``key`` a metadata's name (``title``,
    ``author``, ``date``).
    """

    kind: str
    text: str = ""
    message: str
    about: Literal["content", "sheet"] = "content"
    line: int | None = None
    near: str = ""
    key: str = ""


class ImageLink(BaseModel):
    """An image the markdown links to.

    ``link`` is the target as written in the markdown; ``path`` the file found for it
    (absolute), or ``None`` when no file exists: a warning, never a failure; ``digest``
    the sha256 of that file's bytes (set when the sheet's images are resolved, so that a
    cached stage using the image is keyed by its content).
    """

    link: str
    path: str | None = None
    digest: str | None = None


class Markdown(BaseModel):
    """A document as markdown (commonmark_x, maths as ``$…$`` / ``$$…$$``, no wrapping).

    ``name`` is the document's file name (for messages only, never for caching),
    ``digest`` the sha256 of its bytes, ``text`` the markdown both routes read,
    ``images`` the image links with the files found for them, ``warnings`` what pandoc
    reported losing.
    """

    name: str
    role: Role
    suffix: str
    digest: str
    text: str
    images: list[ImageLink] = Field(default_factory=list)
    warnings: list[ConversionWarning] = Field(default_factory=list)
    ocr_pages: int = 0
    """Pages Mathpix converted for this run (a PDF not in the OCR cache, or ``--fresh-ocr``);
    0 when the markdown came from the OCR cache or is not a PDF's. What Mathpix bills."""


class Converted(BaseModel):
    """The markdown stage's outcome: the markdown, or what is wrong with the file (``error``).

    ``media`` holds the images a docx carried, by file name in the media folder, so that a
    cached run can put them back without converting again.
    """

    markdown: Markdown | None = None
    error: str | None = None
    media: dict[str, bytes] = Field(default_factory=dict)


class SheetText(BaseModel):
    """A sheet and its solutions as both routes read them, images resolved for this run.

    ``questions`` / ``solutions``: the two documents' markdown (``solutions`` ``None``
    when there is none); ``mathpix``: either looks converted by Mathpix (the
    ``stray_minus`` check applies). Stages that read only the texts key their cache by
    :meth:`texts`, so a moved folder or an edited image does not ask a model again.
    """

    questions: Markdown
    solutions: Markdown | None = None
    mathpix: bool = False

    def texts(self) -> list[str | None]:
        """``[questions text, solutions text or None]``: what the routes read."""
        return [self.questions.text, self.solutions.text if self.solutions else None]

    def sources(self) -> list[str]:
        """The markdown texts a field may quote (questions, then solutions if any)."""
        return [t for t in self.texts() if t]

    def missing_images(self) -> list[str]:
        """Image links, as written, that name no file."""
        return [i.link for m in (self.questions, self.solutions) if m for i in m.images if i.path is None]

    def metadata(self) -> dict[str, str]:
        """The questions document's metadata as pandoc read it (``title``, ``author``,
        ``date``, …; plain text), from its ``Metadata`` warnings; ``{}`` when it has none."""
        return {w.key: w.text for w in self.questions.warnings if w.kind == "Metadata" and w.key}

    def warnings(self) -> dict[str, list[ConversionWarning]]:
        """What conversion reported losing, by role (``source``, ``solutions``)."""
        out = {"source": self.questions.warnings}
        if self.solutions is not None:
            out["solutions"] = self.solutions.warnings
        return out
