"""The OCR cache: one folder per PDF and conversion options, shared by every run.

A PDF is sent to Mathpix once. Its entry, ``<root>/<key>/``, holds

- ``mathpix.md``: the markdown exactly as Mathpix served it (remote image links, its
  delimiters), so a change in how it is read needs no new conversion;
- ``media/``: every image it links, downloaded;
- ``entry.json``: :class:`schemas.ocr.OcrEntry` (the key, the PDF's sha256, the options,
  Mathpix's ``pdf_id`` and page count, link → file name, when it was written).

``key`` is the sha256 over the PDF's sha256 and the request options
(:data:`tasks.convert.mathpix.REQUEST_OPTIONS`), never over a name, a path or a
credential. An entry is built in a temporary folder beside the others and renamed into
place when complete, so a conversion that fails leaves nothing, and a reader never sees
half an entry. Reading an entry needs no credentials and makes no call.

The root is ``SHEET2LAMBDA_OCR_CACHE`` (environment or ``.env``), else
``$XDG_CACHE_HOME/sheet2lambda/ocr``, else ``~/.cache/sheet2lambda/ocr``. An entry is this
user's alone (files 0600, folders 0700); one that is a link, another user's or writable by
others, or whose markdown is over a sheet's size, is never used (:func:`entry_problem`): the
PDF is converted again (one warning line; the new entry replaces it, or, when another user's
entry cannot be moved aside, is used once and not cached) or, offline, fails in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from schemas.ocr import MathpixConversion, OcrEntry, OcrResult
from tasks.convert.mathpix import (MAX_IMAGES, MAX_MARKDOWN_BYTES, REQUEST_OPTIONS, MathpixError, convert_pdf,
                                   dollar_maths)
from tasks.errors import InputError
from tasks.llm.secrets import setting

MEDIA = "media"
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def cache_root() -> Path:
    """The cache's folder (not created here): ``SHEET2LAMBDA_OCR_CACHE``, else the user's
    cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/sheet2lambda/ocr``."""
    chosen = setting("SHEET2LAMBDA_OCR_CACHE")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sheet2lambda" / "ocr"


def entry_key(data: bytes, options: dict | None = None) -> str:
    """sha256 hex over the PDF's sha256 and the conversion options (canonical JSON)."""
    payload = json.dumps({"pdf": hashlib.sha256(data).hexdigest(), "options": options or REQUEST_OPTIONS},
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _not_ours(path: Path) -> str | None:
    """Why ``path`` (not followed if a link) is not this user's alone, or ``None``."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return f"{path.name} is a link"
    if st.st_uid != os.getuid():
        return f"{path.name} belongs to another user (uid {st.st_uid})"
    if stat.S_IMODE(st.st_mode) & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path.name} is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def entry_problem(folder: Path) -> str | None:
    """Why the entry in ``folder`` may not be used although it is there, or ``None``: the
    folder, its ``entry.json``, ``mathpix.md``, ``media/`` or a file in it is a link, another
    user's or writable by others (in a shared ``SHEET2LAMBDA_OCR_CACHE`` another account could
    plant an entry: its markdown would become the sheet; attack8), or ``mathpix.md`` is larger
    than a sheet of text may be (:data:`tasks.convert.mathpix.MAX_MARKDOWN_BYTES`)."""
    try:
        parts = [folder, *(folder / n for n in ("entry.json", "mathpix.md", MEDIA) if os.path.lexists(folder / n))]
        if (folder / MEDIA).is_dir() and not (folder / MEDIA).is_symlink():
            parts += sorted((folder / MEDIA).iterdir())[:MAX_IMAGES + 1]
        for part in parts:
            why = _not_ours(part)
            if why:
                return why
        if (folder / "mathpix.md").is_file() and (folder / "mathpix.md").stat().st_size > MAX_MARKDOWN_BYTES:
            return f"mathpix.md is larger than {MAX_MARKDOWN_BYTES >> 20} MiB, the most a sheet of text may be"
    except OSError:
        return None  # not there (or gone meanwhile): no entry, nothing to say
    return None


def read_entry(folder: Path) -> OcrResult | None:
    """The entry in ``folder``, read (no call, no credential), or ``None`` when it is not
    a complete entry (missing or unreadable ``entry.json``/``mathpix.md``, or an image it
    names is missing) or may not be used (:func:`entry_problem`)."""
    if not os.path.lexists(folder) or entry_problem(folder) is not None:
        return None
    try:
        entry = OcrEntry.model_validate_json((folder / "entry.json").read_text(encoding="utf-8"))
        raw = (folder / "mathpix.md").read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    names = list(dict.fromkeys(entry.images.values()))
    if not all((folder / MEDIA / n).is_file() for n in names):
        return None
    return OcrResult(markdown=readable(raw, entry.images), folder=str(folder), entry=entry, images=names, cached=True)


def readable(raw: str, images: dict[str, str]) -> str:
    """Mathpix's markdown as the routes read it: each downloaded image's link written
    ``media/<file>`` and the maths delimited by ``$``/``$$`` (:func:`dollar_maths`)."""
    for url in sorted(images, key=len, reverse=True):
        raw = raw.replace(url, f"{MEDIA}/{images[url]}")
    return dollar_maths(raw)


def looks_like_pdf(data: bytes) -> bool:
    """A PDF has ``%PDF-`` in its first 1024 bytes (ISO 32000-1, 7.5.2 and its implementation notes)."""
    return b"%PDF-" in data[:1024]


def fresh_setting() -> bool:
    """``SHEET2LAMBDA_FRESH_OCR`` (environment or ``.env``) is ``1``, ``true`` or ``yes``:
    every PDF is converted again, as with ``fresh=True``."""
    return (setting("SHEET2LAMBDA_FRESH_OCR") or "").strip().lower() in ("1", "true", "yes")


def ocr_context(data: bytes, fresh: bool | None = None, root: Path | None = None) -> str:
    """A cache-key context for the markdown stage of a PDF: the entry's key and creation
    time when the cache holds it, else (or when ``fresh``, by default
    :func:`fresh_setting`) a value never seen before, so that the markdown stage's own
    cache never keeps a failed or superseded conversion."""
    if not (fresh_setting() if fresh is None else fresh):
        got = read_entry((root or cache_root()) / entry_key(data))
        if got is not None:
            return f"ocr:{got.entry.key}:{got.entry.created}"
    return f"ocr-pending:{uuid.uuid4().hex}"


def ocr_pdf(
    data: bytes,
    name: str,
    *,
    fresh: bool | None = None,
    offline: bool = False,
    root: Path | None = None,
    convert: Callable[..., MathpixConversion] = convert_pdf,
    progress: Callable[[str], None] | None = None,
) -> OcrResult:
    """The markdown of a PDF: from the cache, else converted by Mathpix and cached.

    ``data``: the PDF's bytes; ``name``: its file name (for messages and the upload);
    ``fresh``: convert again even when cached, replacing the entry (default
    :func:`fresh_setting`, ``SHEET2LAMBDA_FRESH_OCR``); ``offline``: make no call (a run
    with ``--offline``): a PDF not in the cache (or ``fresh``) is refused;
    ``root``: the cache folder (default :func:`cache_root`); ``convert``: the client
    (:func:`tasks.convert.mathpix.convert_pdf`).

    Raises :class:`MathpixError` (one line): not a PDF (no ``%PDF-`` header; no call made),
    or the conversion failed (its reason; for an encrypted PDF, a hint to save an
    unprotected copy), or ``offline`` and the PDF is not cached. Nothing is written into the
    cache then.
    """
    if not looks_like_pdf(data):
        raise MathpixError("not a PDF (no %PDF- header in its first 1024 bytes)")
    fresh = fresh_setting() if fresh is None else fresh
    root = root or cache_root()
    key = entry_key(data)
    final = root / key
    if not fresh and (got := read_entry(final)) is not None:
        return got
    untrusted = entry_problem(final)
    if untrusted and offline and not fresh:
        raise MathpixError(f"its OCR cache entry {final} is not used ({untrusted}), and an offline run sends nothing "
                           "to Mathpix: set SHEET2LAMBDA_OCR_CACHE to a folder of your own")
    if offline:
        raise MathpixError("not in the OCR cache, and an offline run sends nothing to Mathpix: run it once "
                           "without --offline (MATHPIX_APP_ID and MATHPIX_APP_KEY set) to convert and cache it"
                           if not fresh else "--fresh-ocr converts with Mathpix, which an offline run does not call")
    if untrusted and not fresh:
        print(f"warning: {name}: its OCR cache entry {final} is not used ({untrusted}): converting it again",
              file=sys.stderr)
    with _lock(key):
        if not fresh and (got := read_entry(final)) is not None:  # another thread wrote it meanwhile
            return got
        try:
            conv = convert(data, name, progress=progress)
        except MathpixError as e:
            if b"/Encrypt" in data:
                raise MathpixError(f"{e.reason} (the PDF is encrypted: save a copy without a password)") from None
            raise
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=root))
        try:
            entry = _write(work, key, data, conv)
            _put(work, final)
        except PermissionError:
            if not untrusted:
                shutil.rmtree(work, ignore_errors=True)
                raise
            # Another user's entry in a shared (sticky) cache cannot be moved aside: this conversion
            # is read from its own folder, removed once read (ocr_markdown), and not cached.
            return OcrResult(markdown=readable(conv.markdown, entry.images), folder=str(work), entry=entry,
                             images=list(dict.fromkeys(entry.images.values())), cached=False, temporary=True)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return OcrResult(markdown=readable(conv.markdown, entry.images), folder=str(final), entry=entry,
                     images=list(dict.fromkeys(entry.images.values())), cached=False)


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _write(work: Path, key: str, data: bytes, conv: MathpixConversion) -> OcrEntry:
    media = work / MEDIA
    media.mkdir(mode=0o700)
    for file_name, blob in conv.images.values():
        _private(media / file_name).write_bytes(blob)
    _private(work / "mathpix.md").write_text(conv.markdown, encoding="utf-8")
    entry = OcrEntry(
        key=key, pdf_sha256=hashlib.sha256(data).hexdigest(), options=REQUEST_OPTIONS, pdf_id=conv.pdf_id,
        pages=conv.pages, images={url: file_name for url, (file_name, _) in conv.images.items()},
        created=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
    )
    _private(work / "entry.json").write_text(entry.model_dump_json(indent=1), encoding="utf-8")
    return entry


def _private(path: Path) -> Path:
    """``path`` created empty with mode 0600 (whatever the umask: an entry others may write is
    never used, :func:`entry_problem`)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.chmod(path, 0o600)
    return path


def _put(work: Path, final: Path) -> None:
    """Rename the finished ``work`` folder to ``final``; an entry already there is moved
    aside first and removed after (a fresh conversion replaces it)."""
    old = None
    if final.exists():
        old = final.with_name(f".old-{final.name[:12]}-{uuid.uuid4().hex[:8]}")
        os.replace(final, old)
    try:
        os.replace(work, final)
    except OSError:
        if read_entry(final) is None:  # not another process's complete entry: a real failure
            raise
        shutil.rmtree(work, ignore_errors=True)  # another process put the same entry first
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def ocr_markdown(name: str, data: bytes, media_dir: str | None, fresh: bool, offline: bool) -> tuple[str, int]:
    """A PDF's Mathpix markdown from the OCR cache (or Mathpix), its images copied into
    ``media_dir``, and the pages Mathpix converted for it now (0 from the cache)."""
    try:
        got = ocr_pdf(data, name, fresh=True if fresh else None, offline=offline)  # None: SHEET2LAMBDA_FRESH_OCR decides
    except MathpixError as e:
        raise InputError(name, e.reason) from None
    if not got.markdown.strip():
        raise InputError(name, "Mathpix found no text in it (a blank page, or a scan it could not read)")
    try:
        if media_dir and got.images:
            Path(media_dir).mkdir(parents=True, exist_ok=True)
            for file_name in got.images:
                if not (Path(media_dir) / file_name).exists():
                    shutil.copyfile(Path(got.folder) / MEDIA / file_name, Path(media_dir) / file_name)
    finally:
        if got.temporary:
            shutil.rmtree(got.folder, ignore_errors=True)
    text = got.markdown.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text, 0 if got.cached else (got.entry.pages or 0)
