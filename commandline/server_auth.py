"""The kept server's password file (:data:`commandline.server.AUTH_NAME`): made once, kept private."""

from __future__ import annotations

import os
import sys


def auth_string(path, private_home, recorded) -> str:
    """The kept server's ``user:password``, generated on first use (32 random bytes, URL-safe)
    into ``path`` (:func:`commandline.server.auth_file`; ``private_home`` and ``recorded`` are
    :mod:`commandline.server`'s, given so this module imports it not), created 0600 and never rewritten, except when it was found readable by other
    users: then ``PREFECT_HOME`` is made private again (``private_home()``, which says so in one line:
    :func:`exposed_line`) or, when no kept server is recorded, a new password is made (one line); raises ``OSError`` when it cannot
    be read or made."""
    import secrets

    try:
        text = path.read_text(encoding="utf-8").strip()
        if text and not (os.stat(path).st_mode & 0o077):
            return text
        if text:  # readable by others (issue 23): PREFECT_HOME made private again, storage/ included
            if recorded() is not None:  # a kept server runs with it: kept, made 0600 and said (private_home)
                private_home()
                return text
            mode = os.stat(path).st_mode & 0o777
            path.unlink()  # no server uses it: rotated below
            print(f"warning: {path} was readable by other users (mode {mode:o}): a new password is made, 0600",
                  file=sys.stderr)
    except FileNotFoundError:
        pass
    private_home()
    value = f"sheet2lambda:{secrets.token_urlsafe(32)}"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another command made it first
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value + "\n")
    return value


def exposed_line(path, mode: int) -> str:
    """The one line when the password file ``path`` was found readable by others (``mode``) and made
    0600 with its password kept (a kept server may use it): what to do to change it (attack13 C01:
    it was made 0600 silently)."""
    return (f"warning: {path} was readable by other users (mode {mode & 0o777:o}); it is 0600 now: to change the "
            f"password, run `sheet2lambda server stop`, then remove {path}")
