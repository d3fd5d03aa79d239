"""1. A sheet reads only files inside its own folder tree (or --tex-root DIR, or a folder or
sweep run's root); /proc, /dev, /sys and hidden files never; each refused file a flag
naming it. pandoc itself reads nothing (--sandbox)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tasks.convert.inputs import tex_context
from tasks.convert.images import resolve_images
from tasks.convert.markdown import to_markdown
from tasks.convert.tex_files import MAX_IMAGE_BYTES, inline
from tasks.settle.tiers import conversion_loss_flags
from tests.hardening.support import tex

CATEGORY = "1 file access"

CANARY = "CANARY-WORDS-" + "outsidefile"


@pytest.fixture
def course(tmp_path):
    """course/common/shared.tex, course/week3/ (the sheet's folder), outside/secret.tex."""
    (tmp_path / "course" / "common").mkdir(parents=True)
    (tmp_path / "course" / "week3" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.tex").write_text(CANARY + "\n")
    (tmp_path / "outside" / "code.py").write_text("print('" + CANARY + "')\n")
    (tmp_path / "outside" / "pkg.sty").write_text("\\newcommand{\\leak}{" + CANARY + "}\n")
    (tmp_path / "course" / "common" / "shared.tex").write_text("Shared course words.\n")
    (tmp_path / "course" / "week3" / "sub" / "inner.tex").write_text("Inner allowed words.\n")
    (tmp_path / "course" / "week3" / ".hidden.tex").write_text(CANARY + "\n")
    (tmp_path / "course" / "week3" / "listing.py").write_text("x = 42  # allowed listing\n")
    return tmp_path


def convert(course: Path, body: str, roots=None):
    linkdir = course / "course" / "week3" / "linkdir"
    if not linkdir.is_symlink():
        linkdir.symlink_to(course / "outside", target_is_directory=True)
    sheet = course / "course" / "week3" / "sheet.tex"
    sheet.write_text(tex(body))
    return to_markdown(sheet.name, sheet.read_bytes(), "questions", base_dir=str(sheet.parent), roots=roots)


REFUSED = [
    ("\\input{/etc/hostname}", "/etc/hostname"),
    ("\\input{../../outside/secret}", "../../outside/secret"),
    ("\\input{../common/shared}", "../common/shared"),  # outside the sheet's folder without --tex-root
    ("\\include{../../outside/secret}", "../../outside/secret"),
    ("\\lstinputlisting{/etc/passwd}", "/etc/passwd"),
    ("\\lstinputlisting{/proc/self/environ}", "/proc/self/environ"),
    ("\\lstinputlisting{/dev/zero}", "/dev/zero"),
    ("\\lstinputlisting{/sys/kernel/hostname}", "/sys/kernel/hostname"),
    ("\\inputminted{python}{../../outside/code.py}", "../../outside/code.py"),
    ("\\input{.hidden}", ".hidden"),
    ("\\includegraphics{/etc/passwd}", "/etc/passwd"),
    ("\\input /etc/hostname", "/etc/hostname"),
    ("\\usepackage{../../outside/pkg}\\leak", "../../outside/pkg"),
    # found when trying to break it again: a path through an allowed folder, a linked folder
    ("\\input{sub/../../../outside/secret}", "sub/../../../outside/secret"),
    ("\\lstinputlisting{linkdir/secret.tex}", "linkdir/secret.tex"),
    # attack7: dropped with no flag (pandoc, sandboxed, reads nothing)
    ("\\verbatiminput{/tmp/../etc/hostname}", "/tmp/../etc/hostname"),
    ("\\verbatiminput{../../outside/secret.tex}", "../../outside/secret.tex"),
]


@pytest.mark.parametrize("command,name", REFUSED, ids=[c for c, _ in REFUSED])
def test_a_file_outside_the_sheet_is_refused_and_named(course, command, name):
    md = convert(course, f"Before. {command} After.")
    refused = [w for w in md.warnings if w.kind == "FileRefused"]
    assert refused and refused[0].text == name, md.warnings
    assert CANARY not in md.text
    assert os.uname().nodename not in md.text or os.uname().nodename in ("Before", "After")
    flags = conversion_loss_flags("questions", md.warnings)
    assert any(name.split("/")[-1] in f.reason for f in flags), [f.reason for f in flags]


def test_a_link_inside_the_folder_to_a_file_outside_is_refused(course):
    link = course / "course" / "week3" / "link.tex"
    link.symlink_to(course / "outside" / "secret.tex")
    md = convert(course, "A \\input{link} B")
    assert CANARY not in md.text
    assert [w.text for w in md.warnings if w.kind == "FileRefused"] == ["link"]


def test_files_inside_the_folder_tree_are_read(course):
    md = convert(course, "A \\input{sub/inner} B\n\n\\lstinputlisting[language=Python]{listing.py}\n\n"
                         "\\verbatiminput{sub/inner.tex}")
    assert "Inner allowed words." in md.text and "x = 42" in md.text
    assert md.text.count("Inner allowed words.") == 2  # the \verbatiminput, in place as a verbatim block
    assert not [w for w in md.warnings if w.kind == "FileRefused"]


def test_tex_root_allows_a_courses_shared_folder(course):
    md = convert(course, "A \\input{../common/shared} B", roots=[str(course / "course")])
    assert "Shared course words." in md.text
    still = convert(course, "A \\input{../../outside/secret} B", roots=[str(course / "course")])
    assert CANARY not in still.text


def test_commands_in_comments_and_verbatim_are_text_not_reads(course):
    md = convert(course, "% \\input{../../outside/secret}\nA\n\\begin{verbatim}\n\\input{../../outside/secret}\n\\end{verbatim}\n")
    assert CANARY not in md.text
    assert not [w for w in md.warnings if w.kind == "FileRefused"]


def test_an_input_loop_stops(course):
    (course / "course" / "week3" / "loop.tex").write_text("again \\input{loop}\n")
    md = convert(course, "A \\input{loop} B")
    assert md.text.count("again") <= 13
    assert any("nested deeper" in w.message for w in md.warnings)


def test_pandoc_itself_reads_nothing(course):
    """What the inliner does not resolve (a form it does not know) pandoc cannot read either:
    pandoc runs with --sandbox, so a missing or unknown include is at most a warning."""
    md = convert(course, "A \\input{\\detokenize{../../outside/secret}} B")
    assert CANARY not in md.text


def test_the_cache_key_holds_every_file_read_wherever_it_is(course):
    sheet = course / "course" / "week3" / "sheet.tex"
    sheet.write_text(tex("\\input{../common/shared} \\includegraphics{fig}"))
    (course / "course" / "week3" / "fig.png").write_bytes(b"\x89PNG one")
    roots = [str(course / "course")]
    first = tex_context(sheet, roots)
    (course / "course" / "common" / "shared.tex").write_text("Changed shared words.\n")
    second = tex_context(sheet, roots)
    (course / "course" / "week3" / "fig.png").write_bytes(b"\x89PNG two")
    third = tex_context(sheet, roots)
    assert len({first, second, third}) == 3
    assert tex_context(sheet, roots) == third  # unchanged files: the same key


def test_a_local_package_file_counts_and_is_put_in_place(course):
    (course / "course" / "week3" / "mymacros.sty").write_text("\\newcommand{\\speed}{fast}\n")
    md = convert(course, "It goes \\speed{} now.".replace("\\begin", ""), roots=None)
    # the macro file was not named yet: the command is unknown, so pandoc keeps no "fast"
    sheet = course / "course" / "week3" / "sheet.tex"
    sheet.write_text(tex("It goes \\speed{} now.", preamble="\\usepackage{mymacros}\n"))
    md = to_markdown(sheet.name, sheet.read_bytes(), "questions", base_dir=str(sheet.parent))
    assert "It goes fast now." in md.text
    assert any(p.endswith("mymacros.sty") for p in inline(sheet.read_text(), sheet.parent).files)


@pytest.mark.parametrize("body", ["\\input{|\"cat ../../outside/secret.tex\"}", "\\input|cat",
                                  "\\subfile{../../outside/secret}", "\\import{../../outside/}{secret}"])
def test_forms_the_inliner_does_not_know_read_nothing_either(course, body):
    from tasks.errors import InputError

    try:
        md = convert(course, f"A {body} B")
    except InputError as e:  # pandoc cannot parse it: one line, nothing read
        assert CANARY not in str(e) and "\n" not in str(e)
    else:
        assert CANARY not in md.text


# --- found when trying to break it again (issue 11's last point): image links --------------
# A markdown (or LaTeX, or HTML) image link is a file the sheet reads: its file is copied into
# the set's media/ and the zip. The same rule as \input holds for it.

IMAGE_LINKS = [
    ("![](.env)", ".env"),                          # a hidden file holding keys, into the set's zip
    ("![diagram](.git/config)", ".git/config"),     # inside a hidden folder
    ('<img src="./.env">', "./.env"),                # raw HTML, a path that spells the same file
    ("![](sub/../.env)", "sub/../.env"),
    ("![](../../outside/pic.png)", "../../outside/pic.png"),
    ("![](linkdir/pic.png)", "linkdir/pic.png"),    # a linked folder leading out
    ("![](/proc/self/environ)", "/proc/self/environ"),
    ("![](huge.png)", "huge.png"),                  # over the image bound
]


@pytest.mark.parametrize("link,name", IMAGE_LINKS, ids=[n for _, n in IMAGE_LINKS])
def test_an_image_link_the_sheet_may_not_read_is_refused_and_named(course, link, name):
    week = course / "course" / "week3"
    (week / ".env").write_text("OPENAI_API_KEY=" + CANARY + "\n")
    (week / ".git").mkdir(exist_ok=True)
    (week / ".git" / "config").write_text(CANARY)
    (course / "outside" / "pic.png").write_bytes(b"\x89PNG" + CANARY.encode())
    linkdir = week / "linkdir"
    if not linkdir.is_symlink():
        linkdir.symlink_to(course / "outside", target_is_directory=True)
    with open(week / "huge.png", "wb") as f:
        f.truncate(MAX_IMAGE_BYTES + 1)  # sparse
    md = to_markdown("sheet.md", f"## Question 1\n\nA cart {link} rolls.\n".encode(), "questions",
                     base_dir=str(week))
    assert [i.path for i in md.images] == [None]
    refused = [w for w in md.warnings if w.kind == "FileRefused"]
    assert [w.text for w in refused] == [name], md.warnings
    flags = conversion_loss_flags("questions", md.warnings)
    assert any(name in f.reason for f in flags)
    sheet = week / "sheet.md"
    sheet.write_bytes(f"## Question 1\n\nA cart {link} rolls.\n".encode())
    # the sheet's images are resolved again each run: the refusal holds there too
    again = resolve_images(md, str(week))
    assert [i.path for i in again.images] == [None]
    assert [w.text for w in again.warnings if w.kind == "FileRefused"] == [name]


def test_an_image_inside_the_folder_is_found_and_a_large_one_is_not_refused_as_text(course):
    week = course / "course" / "week3"
    (week / "photo.png").write_bytes(b"\x89PNG" + b"\0" * (3 << 20))  # 3 MiB: over a text file's bound
    md = to_markdown("sheet.md", b"## Question 1\n\n![](photo.png) ![](photo)\n", "questions", base_dir=str(week))
    assert [i.path for i in md.images] == [str((week / "photo.png").resolve())] * 2
    tex_md = convert(course, "A \\includegraphics{photo} B")
    assert not [w for w in tex_md.warnings if w.kind == "FileRefused"], tex_md.warnings
    assert "photo.png" in tex_md.text


def test_a_hidden_class_file_is_not_read_by_the_tex_pre_pass(course):
    week = course / "course" / "week3"
    (week / ".hid.cls").write_text("\\LoadClass{article}\\newcommand{\\leak}{" + CANARY + "}\n")
    sheet = week / "sheet.tex"
    sheet.write_text("\\documentclass{.hid}\n\\begin{document}\nA \\leak{} B\n\\end{document}\n")
    md = to_markdown(sheet.name, sheet.read_bytes(), "questions", base_dir=str(week))
    assert CANARY not in md.text


def test_solutions_found_by_name_that_lead_out_of_the_folder_are_not_read(course):
    """A document run found cart_solutions.md beside the sheet and read it, though it was a
    link to a file anywhere (sent to the model as the solutions)."""
    from tasks.convert.inputs import read_inputs

    week = course / "course" / "week3"
    (week / "cart.md").write_text("## Question 1\n\nA cart rolls.\n")
    (week / "cart_solutions.md").symlink_to(course / "outside" / "secret.tex")
    inputs = read_inputs(str(week / "cart.md"))
    assert inputs.solutions_bytes is None and inputs.solutions is None
    assert "cart_solutions.md" in inputs.solutions_note and "outside its folder" in inputs.solutions_note
    named = read_inputs(str(week / "cart.md"), solutions=str(week / "cart_solutions.md"))  # the user's own choice
    assert named.solutions_bytes and CANARY.encode() in named.solutions_bytes


def test_solutions_in_a_folder_beside_the_sheets_folder_are_read_when_a_plain_file(course):
    """The documented pairing exercises/main.md → solutions/main.md never worked in a document
    run: the sibling solutions/ folder lies outside the sheet's folder, so the plain file was
    refused and called a link."""
    from tasks.convert.inputs import read_inputs

    top = course / "course"
    (top / "exercises").mkdir()
    (top / "solutions").mkdir()
    (top / "exercises" / "main.md").write_text("## Question 1\n\nA cart rolls.\n")
    (top / "solutions" / "main.md").write_text("## Question 1\n\nIt rolls downhill.\n")
    inputs = read_inputs(str(top / "exercises" / "main.md"))
    assert inputs.solutions == top / "solutions" / "main.md"
    assert inputs.solutions_bytes == b"## Question 1\n\nIt rolls downhill.\n"
    assert not inputs.solutions_note


def test_solutions_in_a_folder_beside_the_sheets_folder_that_lead_out_are_not_read(course):
    """The sibling solutions/ folder is allowed, not anything it points to: a linked file and a
    linked folder leading out are refused, and only the linked file is called a link."""
    from tasks.convert.inputs import read_inputs

    top = course / "course"
    (top / "exercises").mkdir()
    (top / "exercises" / "main.md").write_text("## Question 1\n\nA cart rolls.\n")
    (top / "exercises" / "secret.tex").write_text("## Question 1\n\nA cart rolls.\n")
    (top / "solutions").mkdir()
    (top / "solutions" / "main.md").symlink_to(course / "outside" / "secret.tex")
    linked_file = read_inputs(str(top / "exercises" / "main.md"))
    assert linked_file.solutions_bytes is None and linked_file.solutions is None
    assert "is a link to a file outside" in linked_file.solutions_note
    (top / "solutions" / "main.md").unlink()
    (top / "solutions").rmdir()
    (top / "solutions").symlink_to(course / "outside", target_is_directory=True)  # holds secret.tex
    linked_folder = read_inputs(str(top / "exercises" / "secret.tex"))
    assert linked_folder.solutions_bytes is None and linked_folder.solutions is None
    assert "linked folder" in linked_folder.solutions_note and "is a link" not in linked_folder.solutions_note


def _docx_with_picture(tmp_path: Path, target: str | None, external: bool) -> bytes:
    """A docx made by pandoc holding one picture; its relationship re-pointed at ``target``."""
    import re
    import zipfile

    from tasks.convert.pandoc import run_pandoc

    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c"
                        "6360000002000100e221bc330000000049454e44ae426082")
    (tmp_path / "pic.png").write_bytes(png)
    run = run_pandoc(["-f", "markdown", "-t", "docx", "-o", "base.docx"],
                     stdin=b"## Question 1\n\nA cart ![beam](pic.png) rolls.\n", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    src = zipfile.ZipFile(tmp_path / "base.docx")
    rels = src.read("word/_rels/document.xml.rels").decode()
    if target is not None:
        rels = re.sub(r'(<Relationship [^>]*Target=")(media/[^"]+)(")',
                      lambda m: m.group(1) + target + m.group(3) + (' TargetMode="External"' if external else ""), rels)
    out = tmp_path / "made.docx"
    with zipfile.ZipFile(out, "w") as z:
        for n in src.namelist():
            z.writestr(n, rels if n == "word/_rels/document.xml.rels" else src.read(n))
    return out.read_bytes()


@pytest.mark.parametrize("target,external", [("file:///etc/passwd", True), ("../figs/beam.png", True),
                                             ("http://127.0.0.1:9/beam.png", True), ("media/gone.png", False)],
                         ids=["file-url", "relative", "http", "missing-member"])
def test_a_docx_picture_from_outside_it_is_named_not_dropped(tmp_path, target, external):
    """Found trying again: pandoc (--sandbox) reads none of these, which is right, but drops
    the picture without a word; the set lacked it silently."""
    md = to_markdown("sheet.docx", _docx_with_picture(tmp_path, target, external), "questions",
                     media_dir=str(tmp_path / "media"))
    assert "root:" not in md.text and md.images == []
    refused = [w for w in md.warnings if w.kind == "FileRefused"]
    assert [w.text for w in refused] == [target], md.warnings
    assert any(target in f.reason for f in conversion_loss_flags("questions", md.warnings))
    again = resolve_images(md, None, str(tmp_path / "media"))  # kept when the run resolves images again
    assert [w.text for w in again.warnings if w.kind == "FileRefused"] == [target]


def test_a_docx_holding_its_picture_has_no_warning(tmp_path):
    md = to_markdown("sheet.docx", _docx_with_picture(tmp_path, None, False), "questions",
                     media_dir=str(tmp_path / "media"))
    assert len(md.images) == 1 and md.images[0].path and not md.warnings
