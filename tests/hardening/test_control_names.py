"""7. A file name holding control characters (attacker round 8, break9: ESC and BEL to retitle
the terminal, clear it, turn it red) is printed escaped (``\\x1b``) in every line the product
prints: a refusal, a progress line, the FAILED table, and in ``report.csv``
(:func:`tasks.errors.visible`)."""

from __future__ import annotations

import pytest

from commandline.logs import say
from tasks.errors import InputError, visible
from tests.hardening.support import write_sheet

CATEGORY = "7 one-line errors"

NASTY = "esc\x1b]2;TITLE\x07\x1b[2J\x1b[31mred\x9b\x7f"


def _raw(text: str) -> bool:
    return any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) < 0xa0 for c in text)


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x00", "\r", "\n", "\x7f", "\x85", "\x9b"])
def test_every_control_character_is_escaped(char):
    shown = visible(f"a{char}b.md")
    assert not _raw(shown.replace("\n", "\x00")) and shown == f"a\\x{ord(char):02x}b.md"


def test_a_refusal_and_a_printed_line_show_the_name_escaped(capsys):
    assert "\x1b" not in str(InputError(NASTY + ".md", "not a sheet")) and "\\x1b]2;TITLE\\x07" in str(
        InputError(NASTY + ".md", "not a sheet"))
    say(f"failed     {NASTY}.md: not a sheet", err=True)
    err = capsys.readouterr().err
    assert not _raw(err) and "\\x1b[2J" in err


def test_a_folder_run_prints_and_reports_the_name_escaped(tmp_path, prefect_server, capsys):
    from flows.folder import folder_flow

    course = tmp_path / "course"
    write_sheet(course, NASTY, solutions=False)
    write_sheet(course, "plain", solutions=False)
    (course / f"{NASTY}-broken.md").write_bytes(b"a\x00b\n")  # refused: a FAILED row naming it
    out = tmp_path / "out"
    folder_flow(str(course), out=str(out), offline=True, return_state=True)
    printed = capsys.readouterr()
    assert NASTY not in printed.out + printed.err and "\\x1b]2;TITLE" in printed.out + printed.err
    csv = (out / "report.csv").read_text(encoding="utf-8")
    assert not _raw(csv.replace("\n", "")) and "\\x1b]2;TITLE" in csv


def test_the_command_lines_refusal_before_any_run_shows_the_name_escaped(tmp_path, capsys):
    from commandline.options import precheck

    sheet = tmp_path / f"{NASTY}-nul.md"
    sheet.write_bytes(b"a\x00b\n")
    with pytest.raises(SystemExit) as e:
        precheck("document", [str(sheet)])
    err = capsys.readouterr().err
    assert e.value.code == 1 and not _raw(err.rstrip("\n")) and "\\x1b]2;TITLE\\x07" in err and "NUL" in err


def test_a_newline_in_a_folder_sheets_name_never_starts_a_line_of_its_own(tmp_path, prefect_server, capsys):
    # attack 9, break6: the progress line printed the name's newline raw ("[1/2] a" then a line
    # the file name chose); the reason, the FAILED table and report.csv were escaped.
    from flows.folder import folder_flow

    course = tmp_path / "course"
    write_sheet(course, "a\nFAKE LINE", solutions=False)
    (course / "b\nFAKE TOO.md").write_bytes(b"a\x00b\n")  # refused: its progress line names it too
    folder_flow(str(course), out=str(tmp_path / "out"), offline=True, return_state=True)
    printed = capsys.readouterr()
    lines = (printed.out + printed.err).splitlines()
    assert not [line for line in lines if line.startswith("FAKE")]
    assert [line for line in lines if "a\\x0aFAKE LINE" in line and line.startswith("[")]
    assert [line for line in lines if "b\\x0aFAKE TOO" in line and line.startswith("[")]


def test_a_printed_out_folder_shows_its_newline_escaped(tmp_path, monkeypatch):
    # the "out  <folder>/" lines of document and folder runs name --out through shown_path
    from commandline.terminal import shown_path

    monkeypatch.chdir(tmp_path)
    assert shown_path(tmp_path / "o\nFAKE") == "o\\x0aFAKE"
    assert shown_path("/elsewhere/o\nFAKE") == "/elsewhere/o\\x0aFAKE"


# Attacker round 10, C35: a right-to-left override in a name (`--name $'\u202egnp.tes'`) was taken,
# and every line printing the name showed it reversed.
@pytest.mark.parametrize("char", ["\u202e", "\u202d", "\u2066", "\u200f", "\u061c"])
def test_a_bidirectional_formatting_character_is_escaped_and_refused_in_a_set_name(char):
    from tasks.write.manifest import check_set_name

    assert visible(f"a{char}b.md") == f"a\\u{ord(char):04x}b.md"
    with pytest.raises(InputError, match="cannot be a set's name"):
        check_set_name(f"{char}gnp.tes", "--name")
    check_set_name("café-Übung 3", "--name")  # letters outside ASCII stay names
