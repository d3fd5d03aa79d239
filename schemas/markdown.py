"""The markdown a document becomes, which both routes read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Role = Literal["questions", "solutions"]


class ConversionWarning(BaseModel):
    """Something pandoc skipped or could not convert (from its ``--verbose`` log).

    ``kind`` is pandoc's message type (``SkippedContent``, ``CouldNotConvertTeXMath``, ...),
    ``text`` the source it concerns, ``message`` the whole line pandoc wrote.
    """

    kind: str
    text: str = ""
    message: str


class ImageLink(BaseModel):
    """An image the markdown links to.

    ``link`` is the target as written in the markdown; ``path`` the file found for it
    (absolute), or ``None`` when no file exists: a warning, never a failure.
    """

    link: str
    path: str | None = None


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


class Converted(BaseModel):
    """The markdown stage's outcome: the markdown, or what is wrong with the file (``error``).

    ``media`` holds the images a docx carried, by file name in the media folder, so that a
    cached run can put them back without converting again.
    """

    markdown: Markdown | None = None
    error: str | None = None
    media: dict[str, bytes] = Field(default_factory=dict)
