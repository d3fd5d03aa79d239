"""Where a paused run's review page is, for its owner only (standard library alone).

A document run paused for review serves the review page on 127.0.0.1 behind a token
(:mod:`tasks.review.page`). Its log and its description (markdown, in the Prefect UI) name the
page without the token: every reader of a shared server's runs reads them, and the token lets
whoever holds it decide the flags (attack 11, C46). The address with the token goes into a
file only this user can read, ``PREFECT_HOME/sheet2lambda-review-pages/<key>.json`` (folder
0700, file 0600; the key is a digest of the output folder's real path), for as long as the page
is served; ``sheet2lambda review OUT`` (:func:`flows.review.page_review`) finds it there and
opens that page, whose Finish resumes the run, instead of serving one of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
from pathlib import Path
from urllib.parse import urlsplit

from commandline.server import prefect_home
from tasks.owners import shared_folder
from tasks.safe_json import json_loads

FOLDER = "sheet2lambda-review-pages"
"""The folder of ``PREFECT_HOME`` holding the served pages' addresses."""


def _file(out: str | Path) -> Path:
    real = os.path.realpath(out)
    return prefect_home() / FOLDER / (hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json")


def note(out: str | Path, url: str) -> Path | None:
    """Record ``url`` (the page's address, token included) as the page served for the output
    folder ``out``: a new 0600 file (one left from an earlier run replaced); returns it, or
    ``None`` when it cannot be written (the page is then opened by its address alone)."""
    path = _file(out)
    old = os.umask(0o077)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if path.parent.is_symlink() or shared_folder(path.parent) is not None:
            return None  # another user's, or others may add to it: used for nothing, changed in nothing (attack20 C05)
        os.chmod(path.parent, 0o700)
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"out": os.path.realpath(out), "url": url, "pid": os.getpid()}, fh)
        return path
    except OSError:
        return None
    finally:
        os.umask(old)


def forget(path: Path | None) -> None:
    """Remove a :func:`note` file once its page is no longer served (nothing when ``None``)."""
    if path is not None:
        try:
            path.unlink()
        except OSError:
            pass


def noted(out: str | Path) -> str | None:
    """The address, token included, of the review page a paused run serves for ``out``, or
    ``None``: no such file, one that is not this user's own 0600 regular file, names another
    folder, or whose page no longer answers (its run ended without removing it)."""
    path = _file(out)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077 or st.st_size > 4096:
            return None
        data = json_loads(os.read(fd, 4096))
        url = data["url"]
        if data["out"] != os.path.realpath(out) or not isinstance(url, str) or not url.startswith("http://127.0.0.1:"):
            return None
        os.kill(int(data["pid"]), 0)  # its run still lives
    except (OSError, ValueError, KeyError, TypeError, OverflowError):
        return None
    finally:
        os.close(fd)
    try:
        with socket.create_connection(("127.0.0.1", urlsplit(url).port or 80), timeout=2):
            return url
    except (OSError, ValueError):
        return None


def without_token(url: str) -> str:
    """The page's address without its token: ``http://127.0.0.1:PORT/``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"
