"""Errors a user sees as one line: the file and what is wrong with it."""

from __future__ import annotations

import errno


_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7f, *range(0x80, 0xa0)]}
BIDI_CONTROLS = frozenset([0x061c, 0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a)])
"""Unicode's bidirectional formatting characters (UAX #9, "Explicit Directional Formatting" and the
implicit marks): in a printed name they reorder what the terminal shows (``\\u202e`` shows
``gnp.tes`` as ``set.png``; attacker round 10, C35)."""
_CONTROLS.update({c: f"\\u{c:04x}" for c in BIDI_CONTROLS})


def visible(text: object, keep_lines: bool = False) -> str:
    """``text`` with every control character (C0, DEL, C1: ESC, BEL, NUL, ...) written as
    ``\\xNN``, and every bidirectional formatting character (:data:`BIDI_CONTROLS`) as
    ``\\uNNNN``, so a file name can never drive the terminal (retitle it, clear it, colour it),
    reorder what it shows, nor split a line or a CSV row; ``keep_lines`` keeps line breaks and tabs (a printed line's
    own layout). Every message naming a path goes through it: :class:`InputError`'s file, each
    line :func:`commandline.logs.say` prints, the report's cells (attacker round 8, break9)."""
    table = {k: v for k, v in _CONTROLS.items() if not (keep_lines and k in (9, 10))}
    return str(text).translate(table)


QUOTE_CHARS = 160
"""The most of a sheet-given name or address (an image link, a ``data:`` address, a file name it
names) a line quotes: the rest is counted, not printed (attack14 C43: a 1.3 MB ``data:`` image was
one warning line, on the terminal and in ``report.json``)."""


def quoted(text: object, limit: int = QUOTE_CHARS) -> str:
    """``text`` as a line quotes it: :func:`visible`, and when over ``limit`` characters its first
    ``limit`` and ``… (N characters)``, N its whole length. A name a sheet gives is bounded only by
    the sheet's size; every line that names one quotes it through this."""
    text = visible(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class InputError(Exception):
    """Bad input: printed as ``<file>: <problem>`` on stderr, exit status 1.

    ``file`` names the offending file as the user gave it; ``problem`` says what is
    wrong in a few words.
    """

    def __init__(self, file: str, problem: str):
        self.file = visible(str(file))  # a name holding ESC or BEL is printed escaped, never raw
        self.problem = problem
        super().__init__(f"{self.file}: {problem}")


class FilterError(Exception):
    """A route B filter failed: broke a sandbox rule, errored, ran out of time or memory,
    or printed something that is not the JSON list. ``reason`` is one line; ``stopped_by``
    says which guard stopped a filter that ran too long or too large: ``runner`` (the
    sandbox runner's own Lua hook or heap limit, a clean stop), ``kill`` (the wall-clock
    kill of the process past the limit and its grace) or ``rlimit`` (the address-space
    limit on the process); empty otherwise."""

    def __init__(self, reason: str, stopped_by: str = ""):
        self.reason = reason
        self.stopped_by = stopped_by
        super().__init__(reason)


SYSTEM_ERRNOS = {
    errno.EFBIG: "a file-size limit was reached (ulimit -f, prlimit --fsize)",
    errno.ENOSPC: "no space left on the file system",
    errno.EDQUOT: "the disk quota is spent",
    errno.EROFS: "the file system is read-only",
    errno.EMFILE: "too many open files (ulimit -n)",
    errno.ENFILE: "too many open files on the machine",
}
"""The ``OSError`` numbers that say the machine refused a read or write (a limit, a full or
read-only disk), not that the input is wrong: each is one line (:func:`system_problem`), never
a traceback (errno(3), Linux's ``errno.h``)."""


def _named(err: OSError) -> str | None:
    """The file an ``OSError`` names, in one bounded line (``None`` when it names none)."""
    name = err.filename
    if isinstance(name, bytes):
        name = name.decode("utf-8", "backslashreplace")
    return " ".join(str(name).split())[:300] if isinstance(name, str) and name else None


def _refused(err: OSError) -> str:
    return f"cannot be written or read: {SYSTEM_ERRNOS[err.errno]} ({errno.errorcode[err.errno]})"


def system_problem(err: BaseException, where: str | None = None) -> str | None:
    """One line for an ``OSError`` of :data:`SYSTEM_ERRNOS` — the file it names (else
    ``where``, else "a file") and what the machine refused — or ``None`` for any other error."""
    if not isinstance(err, OSError) or err.errno not in SYSTEM_ERRNOS:
        return None
    return f"{_named(err) or where or 'a file'}: {_refused(err)}"


def system_error(err: OSError, where: str | None = None) -> InputError:
    """:func:`system_problem` as an :class:`InputError` (its file ``err``'s own, else ``where``:
    the folder being written), for code that turns such an ``OSError`` into the command's one
    line; ``err`` must be one of :data:`SYSTEM_ERRNOS`."""
    return InputError(_named(err) or where or "a file", _refused(err))


def write_text(path, text: str) -> None:
    """``Path(path).write_text(text)`` in UTF-8, its ``OSError`` naming ``path`` (Python's own
    names no file when the write itself fails: EFBIG, ENOSPC)."""
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        if e.filename is None:
            raise type(e)(e.errno, e.strerror, str(path)) from None
        raise



def validation_line(e, keyed: bool = False) -> str:
    """One line for a pydantic ``ValidationError`` ``e``: where its first error is (pydantic's
    ``loc`` as a path: ``entries[3].take``; with ``keyed`` the first part is a key of the file's
    top object, quoted: ``'a.md'.flagged``) and what is wrong there (its ``msg``), e.g.
    ``at entries[0].flag: Input should be a valid integer``; the ``msg`` alone at the top."""
    first = e.errors()[0]
    msg = str(first.get("msg", "")).removeprefix("Value error, ")
    where = ""
    for i, part in enumerate(first.get("loc", ())):
        if isinstance(part, int):
            where += f"[{part}]"
        elif i == 0 and keyed:
            where += repr(part)
        else:
            where += f".{part}" if where else str(part)
    return f"at {where}: {msg}" if where else msg
