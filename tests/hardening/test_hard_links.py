"""16. A hard link inside the sheet's folder to a file outside it (attack5 case 18: copied into
the set's media/). A hard link is the file itself, so the rule is on what can be seen: a
regular file with more than one name owned by another user is refused (one ``FileRefused``
line, not read, not copied); one's own is read, since making it needed access to the file
already (Linux's ``fs.protected_hardlinks``); a device or FIFO is never read, however it is
named (:func:`tasks.convert.tex_files.refusal`)."""

from __future__ import annotations

import os

from tasks.convert import opener, tex_files
from tasks.convert.images import image_file

CATEGORY = "16 links out of folders"


def _linked(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(b"\x89PNG private")
    folder = tmp_path / "course"
    folder.mkdir()
    os.link(outside / "secret.png", folder / "hard.png")
    return folder


def test_a_hard_link_to_another_users_file_is_refused(tmp_path, monkeypatch):
    folder = _linked(tmp_path)
    owner = (folder / "hard.png").stat().st_uid
    monkeypatch.setattr(opener.os, "geteuid", lambda: owner + 1)  # the run is not the file's owner
    path, why = image_file("hard.png", str(folder))
    assert path is None and why.startswith("a hard link to another user's file"), why
    assert tex_files.refusal(folder / "hard.png", [folder]) == why


def test_ones_own_hard_link_and_a_single_named_file_of_another_user_are_read(tmp_path, monkeypatch):
    folder = _linked(tmp_path)
    assert image_file("hard.png", str(folder)) == (str((folder / "hard.png").resolve()), None)
    (folder / "plain.png").write_bytes(b"\x89PNG mine")
    owner = (folder / "plain.png").stat().st_uid
    monkeypatch.setattr(opener.os, "geteuid", lambda: owner + 1)
    assert image_file("plain.png", str(folder))[1] is None  # one name only: a course's shared file


def test_a_fifo_or_device_named_as_an_image_is_never_read(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    os.mkfifo(folder / "pipe.png")
    (folder / "zero.png").symlink_to("/dev/zero")
    assert image_file("pipe.png", str(folder)) == (None, "not a regular file")
    assert image_file("zero.png", str(folder))[0] is None
