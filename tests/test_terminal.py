"""The short table a folder or sweep prints: columns line up whatever script a sheet is named in."""

from __future__ import annotations

from rich.cells import cell_len

from commandline.terminal import WIDTH, short_table
from schemas.folder import SheetRow


def row(name: str, **kw) -> SheetRow:
    return SheetRow(folder="/c", source=f"/c/{name}", outcome="built", questions=2, parts=5, flagged=1, **kw)


def test_wide_names_keep_the_columns_in_line():
    lines = short_table([row("week1.md"), row("問題2.md"), row("演習問題とその解答のすべて" * 6 + ".md")])
    table = lines[1:]
    # every row, header included, is as wide on the terminal: the counts line up
    assert len({cell_len(line) for line in table}) == 1, table
    assert all(cell_len(line) <= WIDTH for line in lines)
    assert "…" in table[-1] and table[1].startswith("week1.md ")


def test_a_short_name_still_leaves_room_for_the_heading():
    lines = short_table([row("a.md")])
    assert lines[1].startswith("sheet  ") and lines[2].startswith("a.md   ")


def test_a_long_line_wraps_at_100_columns_under_its_label():
    from commandline.logs import fit_lines

    line = "boxes      " + " ".join(["skipped: no model backend and no saved reply"] * 4)
    lines = fit_lines(line, 100)
    assert len(lines) > 1 and all(len(part) <= 100 for part in lines)
    assert all(part.startswith(" " * 11) and part[11] != " " for part in lines[1:])
    assert " ".join(lines).split() == line.split()  # no word cut, none lost
    assert fit_lines(line, None) == [line]  # a pipe gets whole lines


def test_the_width_is_the_terminals_or_columns_else_none(monkeypatch):
    import io

    from commandline.logs import width

    monkeypatch.delenv("COLUMNS", raising=False)
    assert width(io.StringIO()) is None
    monkeypatch.setenv("COLUMNS", "100")
    assert width(io.StringIO()) == 100


def test_plurals_flags_and_the_next_step(monkeypatch, tmp_path):
    from commandline.terminal import counted, flag_lines, next_line
    from schemas.flags import Flag

    assert (counted(1, "question"), counted(2, "question"), counted(0, "flag")) == ("1 question", "2 questions",
                                                                                    "0 flags")
    flags = [Flag(field=f"q{i}.p1.answer", kind="disputed", reason="the routes differ " * 20) for i in range(1, 6)]
    monkeypatch.setenv("COLUMNS", "100")
    lines = flag_lines(flags)
    assert lines[0].startswith("flag       q1.p1.answer disputed: the routes differ")
    assert all(len(line) <= 100 for line in lines) and lines[-1].strip() == "and 2 more flags in flags.json"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out" / "week3").mkdir(parents=True)
    assert next_line(tmp_path / "out" / "week3", "week3.zip", 0) == "next       import out/week3/week3.zip on Lambda Feedback"
    assert next_line("out/week3", "week3.zip", 1) == ("next       read the 1 flag first: sheet2lambda review out/week3; "
                                                      "then import out/week3/week3.zip on Lambda Feedback")


def test_a_folders_next_line_names_the_sheet_to_review(monkeypatch, tmp_path):
    from commandline.terminal import folder_next_line

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out" / "ci-tex"
    assert folder_next_line(out, []) == "next       import each sheet's zip (out/ci-tex/<sheet>/<set>.zip) on Lambda Feedback"
    one = folder_next_line(out, [out / "solutions-2"])
    assert one.endswith("; first read the flags: flags.md, or sheet2lambda review out/ci-tex/solutions-2")
    many = folder_next_line("out/sweep", [f"out/sweep/f/s{i}" for i in range(5)], "each folder's flags.md",
                            "<folder>/<sheet>")
    assert many.startswith("next       import each sheet's zip (out/sweep/<folder>/<sheet>/<set>.zip)")
    assert "each folder's flags.md" in many and "each of the 5 sheets with flags" in many
    assert "out/sweep/f/s2, …" in many and "s3" not in many


def test_the_server_lines_fit_the_terminal(monkeypatch, capsys):
    from commandline.server import _say

    monkeypatch.setenv("COLUMNS", "100")
    _say("prefect    started a server at http://127.0.0.1:4200/api in 12.5 s and left it running for the next "
         "commands (`sheet2lambda server stop` stops it; SHEET2LAMBDA_SERVER=temporary uses a temporary one)")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(len(line) <= 100 for line in lines)
    assert all(line.startswith(" " * 11) for line in lines[1:])


def test_the_command_name_is_no_secret_but_the_servers_password_is(monkeypatch):
    """The kept server's auth string is ``sheet2lambda:PASSWORD``: blanking it whole turned
    every ``sheet2lambda review OUT`` the terminal printed into ``*** review OUT``."""
    import base64

    from commandline.terminal import next_line
    from tasks.llm.secrets import redact

    password = "kept-" + "server-" + "0123456789abcdef"
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", f"sheet2lambda:{password}")
    line = next_line("out/week3", "week3.zip", 2)
    assert redact(line) == line and "sheet2lambda review out/week3" in line
    header = "Authorization: Basic " + base64.b64encode(f"sheet2lambda:{password}".encode()).decode()
    for shown in (f"sheet2lambda:{password}", password[:14], header):
        assert password[:12] not in redact(shown) and "***" in redact(shown)
    assert redact(header).count("***") == 1 and header[-16:] not in redact(header)
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "admin:short")  # a short password: blanked with its name
    assert "short" not in redact("sent admin:short")
