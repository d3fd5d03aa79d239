"""Publishing a run's outputs into ``--out``, crash-safe: written whole in a staging folder on
``--out``'s own file system, synced, then swapped in by renames under ``--out``'s lock, so that
``--out`` holds the last good outputs or the new ones after any crash, never a mix or a
truncated zip (:func:`publish`)."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tasks.errors import InputError, system_error, system_problem, visible
from tasks.pids import alive
from tasks.write.manifest import MANIFEST, OUTPUT_NAMES, check_out, entry_kind, our_entries, source_id, usable

PUBLISHING = threading.Lock()
"""Held while this process moves outputs into an ``--out``: an interrupted run waits for it
(:func:`commandline.signals.interruptible`), so ``--out`` is left as it was or complete."""

LOCK = ".sheet2lambda.lock"
"""Held (``flock``) while a run publishes into its output folder: two runs into one
``--out`` never mix; the second waits up to :data:`LOCK_WAIT` seconds, then is refused."""

LOCK_WAIT = 120.0
"""Seconds a run waits for another run publishing into the same ``--out``."""


FOLDER_MODE = 0o755
"""The mode an output folder is made with (:func:`make_folders`): writable by its owner alone,
whatever the umask (mkdir(2) clears the umask's bits from it, never adds any)."""

SHARED_WRITE = stat.S_IWGRP | stat.S_IWOTH
"""The bits no output has (:func:`_sync_tree` clears them): under ``umask 000`` every output was
0777/0666, which the ownership checks (:func:`tasks.write.manifest.usable`, a review's) then
refused for ever (round 19)."""


def make_folders(path: Path) -> None:
    """Make ``path`` and each missing folder above it with :data:`FOLDER_MODE` (so none is
    writable by group or others, whatever the umask; ``Path.mkdir(parents=True)`` makes the
    parents 0777 less the umask); an existing folder is left as it is. Raises ``OSError``
    (``FileExistsError`` when a part is a file)."""
    path = Path(path)
    for part in [*reversed(path.parents), path]:
        if part.is_dir():
            continue
        try:
            part.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if not part.is_dir():
                raise


@contextmanager
def out_lock(out: Path, wait: float | None = None, name: str = LOCK):
    """Hold ``out``'s publishing lock (:data:`LOCK`; another lock file of ``out`` by ``name``,
    as a review's), waiting up to ``wait`` seconds (default :data:`LOCK_WAIT`) for another
    run; raises :class:`InputError` past it."""
    make_folders(out)
    wait = LOCK_WAIT if wait is None else wait
    try:
        fd = os.open(out / name, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise (refused(e, out) or InputError(str(out), f"cannot lock --out ({e.strerror or e}): nothing in --out was "
                                                       "replaced")) from None
    st = os.fstat(fd)
    if st.st_uid == os.getuid() and st.st_mode & 0o077:  # readable by others, others can hold it (attack17 C22)
        os.fchmod(fd, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise InputError(str(out), f"another run is writing into this --out (waited {wait:g} s): "
                                               "try again when it ends, or choose another --out") from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def inside_roots(path: Path | str, roots: Sequence[Path | str]) -> bool:
    """Whether ``path`` (every link followed) lies inside, or is, each of ``roots`` (also
    resolved); ``True`` when ``roots`` is empty (nothing confines the run)."""
    real = Path(path).resolve()
    return all(real == (r := Path(root).resolve()) or r in real.parents for root in roots)


def outside_root(out: Path | str, roots: Sequence[Path | str]) -> InputError:
    """The one line for an ``--out`` that is no longer inside the deployment's root when the
    run writes into it (a folder swapped for a link after the run's start was checked)."""
    return InputError(str(out), f"out is outside this deployment's root {', '.join(str(r) for r in roots)} now "
                                "(changed since the run started?): nothing was written there")


@contextmanager
def pinned(out: Path, roots: Sequence[Path | str] | None = None) -> Iterator[Path]:
    """``out`` as the run writes into it: with no ``roots``, ``out`` itself. Confined (a
    deployment's run: :mod:`commandline.confine`), the folder is made when missing and opened
    once, the opened folder's own path (``/proc/self/fd/N``, the kernel's name of the
    descriptor's folder) is checked inside every root, and what is yielded is that
    descriptor's path, through which every write then goes: a folder of ``out``'s path
    swapped for a link to elsewhere after the check (attacker round 10, C32) cannot redirect
    a write, which lands in the folder checked or nowhere. Raises :class:`InputError`
    (:func:`outside_root`) when ``out`` lies outside a root when opened."""
    if not roots:
        yield out
        return
    if not inside_roots(out, roots):  # nothing made outside: checked before the folder is made
        raise outside_root(out, roots)
    try:
        make_folders(out)
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise (refused(e, out) or InputError(str(out), f"cannot open --out ({e.strerror or e})")) from None
    try:
        here = Path(f"/proc/self/fd/{fd}")
        try:
            opened = os.readlink(here)
        except OSError:  # no /proc: a confined run is refused rather than written unchecked
            raise InputError(str(out), "cannot check that --out is inside this deployment's root (no "
                                       "/proc/self/fd on this system): nothing was written") from None
        if not inside_roots(opened, roots):
            raise outside_root(out, roots)
        yield here
    finally:
        os.close(fd)


STAGING_PREFIX = ".sheet2lambda-new-"
"""A run writes its new outputs into ``out/.sheet2lambda-new-<pid>-…`` (:func:`staging_dir`): on
``out``'s own file system, so that publishing is renames only; hidden, so it is never an output."""

OLD_PREFIX = ".sheet2lambda-old-"
"""Where :func:`publish` moves the entries it replaces until the new ones are all in place."""


def _sweep_leftovers(out: Path, keep: Path) -> None:
    """Remove the staging and replaced-entry folders a run killed before it finished left in
    ``out`` (their names carry the pid that made them; a live pid's are left alone, and so is
    ``keep``, the staging folder being published)."""
    for entry in out.iterdir() if out.is_dir() else ():
        if entry == keep:
            continue
        for prefix in (STAGING_PREFIX, OLD_PREFIX):
            if entry.name.startswith(prefix) and entry.is_dir() and not entry.is_symlink():
                pid = entry.name[len(prefix):].split("-", 1)[0]
                if pid.isdigit() and int(pid) != os.getpid() and not alive(int(pid)):
                    shutil.rmtree(entry, ignore_errors=True)


def no_space(err: OSError) -> bool:
    """Whether ``err`` says the file system is full (ENOSPC) or a quota is spent (EDQUOT)."""
    return err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


WRITE_REFUSED = {
    errno.EPERM: "--out refuses new files (an immutable folder, chattr +i, or one of /proc or /sys)",
    errno.EACCES: "--out refuses new files (no permission to write in it)",
    errno.EXDEV: ("--out's old outputs cannot be moved aside within its file system (an overlay's lower layer, a "
                  "container's image: rename gives EXDEV); give --out a new folder, or one made since the container "
                  "started"),
}
"""The ``OSError`` numbers of a folder that will not take a new file (open(2), mkdir(2),
rename(2): EPERM, EACCES; rename's EXDEV on overlayfs, attack18 C03): one line, as a read-only or full file system is (attack7 row 22:
``chattr +i`` on ``--out`` gave a 37-line traceback)."""


BUSY = {
    errno.EBUSY: "is in use and cannot be replaced (a mount point on it, or a file system's own busy entry)",
    errno.ETXTBSY: "is a program being run and cannot be replaced",
}
"""The ``OSError`` numbers of an old output that cannot be moved aside (rename(2): EBUSY for a
mount point, ETXTBSY): the old set is kept (:func:`_swap` puts back what it moved) and the
refusal is one line naming the entry (attack17 C08: Prefect's 25-line traceback came first)."""


def refused(err: OSError, out: Path | str) -> InputError | None:
    """The one line for an ``OSError`` of the machine's refusal while writing into ``out``
    (:data:`tasks.errors.SYSTEM_ERRNOS`): :func:`full_disk`'s for a full disk or a spent quota,
    ``out`` and what refused for a folder that takes no new file (:data:`WRITE_REFUSED`), the
    entry that is busy (:data:`BUSY`), else the file and what was refused (a file-size limit,
    a read-only file system, too many open files), saying nothing in --out was replaced;
    ``None`` for any other error."""
    if no_space(err):
        return full_disk(out)
    if err.errno in BUSY:
        entry = Path(os.fsdecode(err.filename)).name if err.filename else "an entry"
        return InputError(str(out), f"{visible(entry)} {BUSY[err.errno]} ({errno.errorcode[err.errno]}) while "
                                    "writing the new outputs: nothing in --out was replaced")
    if err.errno in WRITE_REFUSED:
        return InputError(str(out), f"{WRITE_REFUSED[err.errno]} ({errno.errorcode[err.errno]}) while writing the "
                                    "new outputs: nothing in --out was replaced")
    if system_problem(err) is None:
        return None
    e = system_error(err, str(out))
    return InputError(e.file, f"{e.problem} while writing the new outputs: nothing in --out was replaced")


def full_disk(out: Path | str) -> InputError:
    """The one line for a full file system while writing into ``out``: nothing was replaced."""
    return InputError(str(out), "no space left on the file system of --out while writing the new outputs: "
                                "nothing in --out was replaced; free some space and run again")


@contextmanager
def staging_dir(out: Path, roots: Sequence[Path | str] | None = None):
    """A fresh hidden folder inside ``out`` (created with its parents) to write a run's new
    outputs in, removed on leaving whatever happened; an ``OSError`` of a full disk inside the
    block becomes :func:`full_disk`'s one line. Yields the folder's path; given ``roots`` (a
    deployment's run), that path goes through ``out``'s descriptor (:func:`pinned`), so its
    ``parent`` is the output folder as checked, to read the run's older entries from."""
    usable(out)
    if not roots:
        try:
            make_folders(out)
        except OSError as e:
            raise (refused(e, out) or InputError(str(out), f"cannot make --out: {e.strerror}")) from None
    with pinned(out, roots) as here:
        try:  # nothing written yet: whatever refuses the first new file is one line
            path = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=here))
        except OSError as e:
            raise (refused(e, out) or InputError(str(out), f"--out takes no new file ({e.strerror or e}): nothing "
                                                           "in --out was replaced")) from None
        try:
            yield path
        except OSError as e:
            line = refused(e, out)
            if line is not None:
                raise line from None
            raise
        finally:
            shutil.rmtree(path, ignore_errors=True)


def _sync_tree(root: Path) -> None:
    """``fsync`` every file and folder under ``root`` (and ``root``): the new outputs are on
    disk before any old one is replaced; each one group or others may write loses those bits
    (:data:`SHARED_WRITE`) first, whatever umask made it."""
    for p in sorted(root.rglob("*"), reverse=True) + [root]:
        if p.is_symlink():
            continue
        fd = os.open(p, os.O_RDONLY | (os.O_DIRECTORY if p.is_dir() else 0))
        try:
            if (mode := os.fstat(fd).st_mode) & SHARED_WRITE:  # made under a umask that let them be (round 19)
                os.fchmod(fd, stat.S_IMODE(mode) & ~SHARED_WRITE)
            os.fsync(fd)
        finally:
            os.close(fd)


def publish_files(out: Path, files: dict[str, bytes], roots: Sequence[Path | str] | None = None) -> None:
    """A folder or sweep run's own files (``files``: plain name -> bytes) into ``out``, all or
    nothing: written into a :func:`staging_dir` of ``out`` and synced, then each renamed over
    the old one (through ``out``'s descriptor given ``roots``). A full disk, or an ``out`` that
    refuses new files, while writing is one line (:class:`InputError`) with every old file as it
    was (attack13 C43: a failed run's ``report.json`` and an empty ``flags.md`` replaced the last
    good run's). A staging folder a killed run left in ``out`` goes (attack16 C13), as
    :func:`publish`'s do."""
    with staging_dir(out, roots) as near:
        _sweep_leftovers(near.parent, near)
        for name, data in files.items():
            (near / name).write_bytes(data)
        _sync_tree(near)
        for name in files:
            os.replace(near / name, near.parent / name)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` by a synced temporary file beside it and a rename, so
    ``path`` is the old file or the new one after any crash, never a truncated one. A full disk
    is :func:`full_disk`'s one line (the old file kept)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        line = refused(e, path.parent)
        if line is not None:
            raise line from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove(target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()


def publish(staging: Path, out: Path, source: str | None = None,
            roots: Sequence[Path | str] | None = None) -> list[str]:
    """Move every entry of ``staging`` into ``out``, under ``out``'s lock; returns the names
    moved, sorted. Given ``roots`` (a deployment's run), ``out`` is opened once and checked
    inside them as it is published into, and every rename goes through that descriptor
    (:func:`pinned`): a swap of ``out`` for a link after the run's start cannot redirect it.

    Only entries an earlier run wrote (listed in ``out``'s manifest) and that this run's
    outputs can have (a fixed output name or a name in ``staging``; always a plain name)
    are replaced or, when this run did not write them again, removed; anything else in
    ``out`` is the user's and is never touched (:func:`check_out` refuses a clash first,
    and a manifest written by another document's run is refused when ``source`` is given).

    Crash-safe: the new entries are synced to disk first; when ``staging`` is on another file
    system (or mount: :func:`_renames_into`) than ``out`` they are first copied (and synced) into a :func:`staging_dir` of
    ``out``; only then are the old entries renamed aside, the new ones renamed in and the
    manifest replaced by a rename. A process killed before that point leaves ``out`` exactly
    as it was (its leftovers are removed by the next run); a full disk is one line
    (:func:`full_disk`), with ``out`` as it was.
    """
    names = {e.name for e in staging.iterdir()}
    with pinned(out, roots) as here:
        if here == out:
            return _publish(staging, out, names, source)
        try:
            return _publish(staging, here, names, source)
        except InputError as e:  # named as the user gave it, not by its descriptor
            raise InputError(str(out), e.problem) if e.file == str(here) else e from None


def _publish(staging: Path, out: Path, names: set[str], source: str | None) -> list[str]:
    """:func:`publish` into ``out`` (the folder itself or its descriptor's path)."""
    with out_lock(out), PUBLISHING:
        check_out(out, names, source, {e.name: entry_kind(e) for e in staging.iterdir()})
        _sweep_leftovers(out, staging)
        if staging.parent.resolve() != out.resolve() and not _renames_into(staging, out):
            with staging_dir(out) as near:
                for entry in staging.iterdir():
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.copytree(entry, near / entry.name, symlinks=True)
                    else:
                        shutil.copy2(entry, near / entry.name, follow_symlinks=False)
                return _swap(near, out, source)
        try:
            return _swap(staging, out, source)
        except OSError as e:
            line = refused(e, out)
            if line is not None:
                raise line from None
            raise


def _renames_into(staging: Path, out: Path) -> bool:
    """Whether ``staging``'s entries can be renamed into ``out``: the same ``st_dev`` and a probe
    renamed there without EXDEV (a bind mount keeps ``st_dev``, yet rename(2) across mounts gives
    EXDEV: round 19). Any other refusal is left to the renames themselves (one line, old set kept)."""
    if os.stat(staging).st_dev != os.stat(out).st_dev:
        return False
    probe = f"{STAGING_PREFIX}{os.getpid()}-probe"
    try:
        (staging / probe).touch()
        os.rename(staging / probe, out / probe)
        os.unlink(out / probe)
    except OSError as e:
        return e.errno != errno.EXDEV
    finally:
        (staging / probe).unlink(missing_ok=True)
    return True


def _swap(staging: Path, out: Path, source: str | None) -> list[str]:
    """:func:`publish`'s renames, ``staging`` being on ``out``'s file system (lock held)."""
    _sync_tree(staging)
    manifest = {"source": source_id(source) if source else None, "entries": sorted(e.name for e in staging.iterdir())}
    manifest["kinds"] = {name: entry_kind(staging / name) for name in manifest["entries"]}  # what is replaced next time
    (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    _sync_tree(staging / MANIFEST)
    allowed = OUTPUT_NAMES | set(manifest["entries"])
    old = Path(tempfile.mkdtemp(prefix=f"{OLD_PREFIX}{os.getpid()}-", dir=out))
    moved: list[str] = []
    written: list[str] = []
    try:
        for name in sorted(our_entries(out) & allowed):
            if (out / name).exists() or (out / name).is_symlink():
                os.rename(out / name, old / name)
                moved.append(name)
        for name in manifest["entries"]:
            os.rename(staging / name, out / name)
            written.append(name)
        os.replace(staging / MANIFEST, out / MANIFEST)
    except BaseException:
        for name in written:
            _remove(out / name)
        for name in moved:  # put back what was there: out as it was
            os.rename(old / name, out / name)
        shutil.rmtree(old, ignore_errors=True)
        raise
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    shutil.rmtree(old, ignore_errors=True)
    return written


