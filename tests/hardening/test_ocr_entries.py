"""5. An OCR cache entry is used only when it is this user's alone (attack8, unclear: an entry
another account planted in a shared 1777 ``SHEET2LAMBDA_OCR_CACHE`` became the sheet). An entry
that is a link, another user's, writable by others or whose markdown is over a sheet's size is
not used: the PDF is converted again (one warning line) or, offline, fails in one line."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tasks.convert import ocr_cache
from tasks.convert.bounds import MAX_TEXT_BYTES
from tasks.convert.mathpix import MathpixError
from tasks.convert.ocr_cache import entry_key, ocr_pdf, read_entry
from tests.fakes.mathpix_api import FakeMathpix, Job
from tests.hardening.test_ocr_reply import PDF, cache  # noqa: F401 - a fixture

CATEGORY = "5 cache"


def _planted(cache, markdown: str = "## Question 1\n\nPLANTED text.\n"):
    """A complete entry for :data:`PDF`, as another account could write it."""
    folder = cache / entry_key(PDF)
    (folder / "media").mkdir(parents=True)
    (folder / "mathpix.md").write_text(markdown)
    (folder / "entry.json").write_text(json.dumps({
        "key": entry_key(PDF), "pdf_sha256": "0" * 64, "options": {}, "pdf_id": "p", "pages": 1, "images": {},
        "created": "2026-12-01T00:00:00+00:00"}))
    for p in (folder, folder / "media"):
        os.chmod(p, 0o700)
    for p in (folder / "mathpix.md", folder / "entry.json"):
        os.chmod(p, 0o600)
    return folder


def _spoil(folder, how, monkeypatch):
    if how == "another user's":
        real = os.getuid()
        monkeypatch.setattr(ocr_cache.os, "getuid", lambda: real + 1)
    elif how == "markdown writable by others":
        os.chmod(folder / "mathpix.md", 0o666)
    elif how == "folder writable by group":
        os.chmod(folder, 0o770)
    elif how == "a link to another folder":
        elsewhere = folder.with_name("elsewhere")
        shutil.move(folder, elsewhere)
        folder.symlink_to(elsewhere)
    elif how == "markdown over a sheet's size":
        (folder / "mathpix.md").write_text("x" * (MAX_TEXT_BYTES + 1))


SPOILS = ["another user's", "markdown writable by others", "folder writable by group", "a link to another folder",
          "markdown over a sheet's size"]


@pytest.mark.parametrize("how", SPOILS)
def test_an_entry_not_ours_alone_fails_offline_in_one_line(cache, monkeypatch, how):
    folder = _planted(cache)
    assert read_entry(folder) is not None  # as planted: a complete entry
    _spoil(folder, how, monkeypatch)
    assert read_entry(folder) is None
    with pytest.raises(MathpixError) as e:
        ocr_pdf(PDF, "sheet.pdf", offline=True)
    assert str(folder) in e.value.reason and "is not used" in e.value.reason and "\n" not in e.value.reason


@pytest.mark.parametrize("how", ["another user's", "markdown writable by others"])
def test_an_entry_not_ours_alone_is_converted_again(cache, monkeypatch, capsys, how):
    folder = _planted(cache)
    _spoil(folder, how, monkeypatch)
    with FakeMathpix(Job(markdown="## Question 1\n\nThe real sheet.\n")) as fake:
        monkeypatch.setenv("MATHPIX_BASE_URL", fake.url)
        got = ocr_pdf(PDF, "sheet.pdf")
        assert len(fake.uploads) == 1
    assert "The real sheet." in got.markdown and "PLANTED" not in got.markdown
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not used" in err[0] and "converting it again" in err[0]


def test_an_entry_another_user_holds_in_a_sticky_folder_is_used_once_not_cached(cache, monkeypatch, capsys):
    folder = _planted(cache)
    _spoil(folder, "another user's", monkeypatch)
    real_put = ocr_cache._put

    def sticky(work, final):  # the shared folder's sticky bit: another user's entry cannot be moved
        if final == folder:
            raise PermissionError(1, "Operation not permitted", str(final))
        return real_put(work, final)

    monkeypatch.setattr(ocr_cache, "_put", sticky)
    media = cache.parent / "media"
    with FakeMathpix(Job(markdown="## Question 1\n\nThe real sheet.\n")) as fake:
        monkeypatch.setenv("MATHPIX_BASE_URL", fake.url)
        text, _ = ocr_cache.ocr_markdown("sheet.pdf", PDF, str(media), False, False)
    assert "The real sheet." in text
    assert sorted(p.name for p in cache.iterdir()) == [folder.name]  # no leftover folder of ours
    assert (folder / "mathpix.md").read_text().startswith("## Question 1\n\nPLANTED")


def test_an_entry_we_wrote_is_ours_alone_whatever_the_umask(cache, monkeypatch):
    old = os.umask(0o002)
    try:
        with FakeMathpix(Job()) as fake:
            monkeypatch.setenv("MATHPIX_BASE_URL", fake.url)
            ocr_pdf(PDF, "sheet.pdf")
    finally:
        os.umask(old)
    folder = cache / entry_key(PDF)
    assert ocr_cache.entry_problem(folder) is None and read_entry(folder) is not None
    assert {p.stat().st_mode & 0o777 for p in [folder, *folder.rglob("*")]} <= {0o600, 0o700}
