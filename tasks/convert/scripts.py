r"""A script published as a sheet or its solutions (``.jl``, ``.py``, ``.R``) becomes a notebook.

Courses publish worked solutions as plain scripts written in the literate styles Jupytext
reads (its documentation, "Formats for scripts"): the *light* style, where a run of comment
lines (``# Problem 1a``) is a markdown cell and the code between them code cells, and the
*percent* style, where ``# %%`` / ``# %% [markdown]`` lines open the cells. Jupytext
(:func:`jupytext.reads`) reads both, choosing the style from the text as it does for a file
it opens; the notebook it gives is then read by the notebook path the product already has
(:mod:`tasks.convert.notebooks`), so a comment reads as prose and code as a code block.

One thing Jupytext leaves as code is a language's block comment: Julia's ``#=`` … ``=#``
(the Julia manual, "Comments": a multi-line comment) holds prose exactly as a run of ``#``
lines does. A block comment whose opener and closer each stand alone on their line is
written as ``#`` lines first, so its prose is a markdown cell too; one that opens or closes
beside code is left as it is (code).

Raises :class:`tasks.errors.InputError` naming the file when Jupytext cannot read the text.
"""

from __future__ import annotations

import re

from tasks.errors import InputError

SCRIPTS = {".jl": "julia", ".py": "python", ".r": "R"}
"""Script suffixes read as notebooks (lower case) and the language Jupytext gives each."""

BLOCK_COMMENTS = {".jl": ("#=", "=#")}
"""A language's block-comment opener and closer (Julia's ``#=`` ``=#``), by suffix."""


def line_comments(text: str, suffix: str) -> str:
    """``text`` with each block comment whose opener and closer stand alone on their lines
    written as ``#`` comment lines (a blank line stays blank; each other line ``# `` + line):
    the prose Jupytext reads as markdown. Other text is returned unchanged.

    >>> line_comments("x = 1\n#=\nit is two\n=#\n", ".jl")
    'x = 1\n\n# it is two\n\n'
    """
    if suffix not in BLOCK_COMMENTS:
        return text
    opener, closer = (re.escape(s) for s in BLOCK_COMMENTS[suffix])
    block = re.compile(rf"^[ \t]*{opener}[ \t]*\n(.*?)^[ \t]*{closer}[ \t]*$", re.M | re.S)

    def commented(m: re.Match) -> str:
        body = m.group(1).rstrip("\n").split("\n")
        return "\n" + "\n".join(f"# {ln}" if ln.strip() else "" for ln in body) + "\n"

    return block.sub(commented, text)


def script_notebook(name: str, text: str, suffix: str) -> bytes:
    """The notebook (nbformat 4 JSON, UTF-8) Jupytext reads from the script ``text`` of
    suffix ``suffix`` (one of :data:`SCRIPTS`, lower case), its block comments read as
    comment lines first (:func:`line_comments`). Raises :class:`InputError` naming ``name``
    when Jupytext cannot read it."""
    import jupytext  # imported here: only a script run needs it
    import nbformat

    try:
        notebook = jupytext.reads(line_comments(text, suffix), fmt=suffix.lstrip(".") if suffix != ".r" else "R")
    except Exception as e:  # noqa: BLE001 - whatever Jupytext raises, the file is named in one line
        raise InputError(name, f"cannot be read as a {SCRIPTS[suffix]} script: {str(e).splitlines()[0][:200]}") from None
    notebook.metadata.setdefault("kernelspec", {"name": SCRIPTS[suffix], "language": SCRIPTS[suffix],
                                                "display_name": SCRIPTS[suffix]})
    return nbformat.writes(notebook).encode("utf-8")
