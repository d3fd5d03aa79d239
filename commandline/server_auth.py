"""The kept server's password file (:data:`commandline.server.AUTH_NAME`): made once, kept private."""

from __future__ import annotations

import os
import sys


def auth_string(path, private_home, recorded) -> str:
    """The kept server's ``user:password``, generated on first use (32 random bytes, URL-safe)
    into ``path`` (:func:`commandline.server.auth_file`; ``private_home`` and ``recorded`` are
    :mod:`commandline.server`'s, given so this module imports it not), created 0600 and never rewritten, except when it was found readable by other
    users: then ``PREFECT_HOME`` is made private again (``private_home()``) and, when no kept server
    is recorded, a new password is made (else a warning says how to rotate it); raises ``OSError`` when it cannot
    be read or made."""
    import secrets

    try:
        text = path.read_text(encoding="utf-8").strip()
        if text and not (os.stat(path).st_mode & 0o077):
            return text
        if text:  # readable by others (issue 23): PREFECT_HOME made private again, storage/ included
            private_home()
            if recorded() is not None:  # a kept server runs with it: kept, and the user told how to rotate it
                print(f"warning: {path} was readable by other users; it is 0600 now: to change the password, run "
                      f"`sheet2lambda server stop`, then remove {path}", file=sys.stderr)
                return text
            path.unlink()  # no server uses it: rotated below
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
