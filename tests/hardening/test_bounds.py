"""2. Every external process (pandoc) runs under memory and time limits; zip members are
size-checked before reading; the KaTeX check has a per-span and per-run budget; a sheet over
a stated size is refused with one line."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from tasks.check.compare import read_export_files
from tasks.convert import bounds
from tasks.convert.inputs import read_inputs
from tasks.convert.pandoc import run_pandoc
from tasks.errors import InputError
from tasks.write.katex import KatexBudget, check_maths

CATEGORY = "2 bounds"


def test_pandoc_runs_under_a_memory_limit_by_default():
    """Reading 40 MB of markdown takes pandoc several GB: with a 200 MB cap it stops."""
    big = ("word " * 8_000_000).encode()
    run = run_pandoc(["-f", "markdown", "-t", "json"], stdin=big, memory_bytes=200 << 20, timeout=60)
    assert run.returncode != 0


def test_pandoc_runs_under_a_time_limit():
    t = time.monotonic()
    run = run_pandoc(["-f", "markdown", "-t", "json"], stdin=("x " * 3_000_000).encode(), timeout=0.5)
    assert run.timed_out and time.monotonic() - t < 10


@pytest.mark.parametrize("suffix,size", [(".md", bounds.MAX_TEXT_BYTES + 1), (".tex", bounds.MAX_TEXT_BYTES + 1),
                                         (".docx", bounds.MAX_DOCX_BYTES + 1), (".pdf", bounds.MAX_PDF_BYTES + 1)])
def test_a_sheet_over_the_stated_size_is_refused_with_one_line(tmp_path, suffix, size):
    sheet = tmp_path / f"big{suffix}"
    with open(sheet, "wb") as f:
        f.truncate(size)  # sparse: nothing is written, the size is what counts
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet))
    assert "too large" in str(e.value) and "\n" not in str(e.value) and str(sheet) in str(e.value)


def test_a_scanned_pdf_of_megabytes_is_not_refused_for_its_size(tmp_path):
    # The text limit (2 MiB) once applied to PDFs too, refusing most scanned sheets.
    sheet = tmp_path / "scanned.pdf"
    with open(sheet, "wb") as f:
        f.write(b"%PDF-1.4\n")
        f.truncate(5 << 20)
    try:
        read_inputs(str(sheet))
    except InputError as e:
        assert "too large" not in str(e)


def _bomb(member: str, size: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open(member, "w", force_zip64=True) as f:
            chunk = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                f.write(chunk)
    return buf.getvalue()


def test_a_docx_whose_document_inflates_past_the_bound_is_refused(tmp_path):
    sheet = tmp_path / "bomb.docx"
    sheet.write_bytes(_bomb("word/document.xml", bounds.MAX_MEMBER_BYTES + (1 << 20)))
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet))
    assert "inflates" in str(e.value) and "\n" not in str(e.value)


def test_a_high_ratio_member_is_refused_even_under_the_size_bound(tmp_path):
    sheet = tmp_path / "ratio.docx"
    sheet.write_bytes(_bomb("word/document.xml", 32 << 20))
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet))
    assert "inflates" in str(e.value)


def test_an_export_zip_with_a_huge_member_is_refused_before_reading(tmp_path):
    export = tmp_path / "set_Big.zip"
    export.write_bytes(_bomb("set_Big/set_Big.json", bounds.MAX_MEMBER_BYTES + (1 << 20)))
    t = time.monotonic()
    with pytest.raises(InputError) as e:
        read_export_files(export)
    assert "inflates" in str(e.value) and time.monotonic() - t < 5


def test_a_member_that_lies_about_its_size_is_stopped(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("set_X/set_X.json", b"{}")
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        info = zf.getinfo("set_X/set_X.json")
        info.file_size = 1  # the directory says 1 byte, the member holds 2
        with pytest.raises((InputError, zipfile.BadZipFile)):
            bounds.read_member(zf, "set_X/set_X.json", "x.zip")


@pytest.fixture
def slow_katex(monkeypatch):
    """KaTeX taking 1 s per span (a span that is slow to render, stated, not searched for)."""
    import tasks.write.katex as k

    def slow(tex, display):
        time.sleep(1.0)
        return None

    monkeypatch.setattr(k, "_render", slow)
    return k


def test_the_katex_check_has_a_per_span_budget(slow_katex):
    budget = KatexBudget(run_seconds=30, span_seconds=0.2)
    t = time.monotonic()
    warnings = check_maths("$a_{span}+1$ and $b_{span}+2$", "q1.main_text", budget)
    assert time.monotonic() - t < 1.5
    assert len(warnings) == 2 and all(w.message.startswith("not checked") for w in warnings)


def test_the_katex_check_has_a_per_run_budget(slow_katex):
    spans = " ".join(f"$c_{{run}}+{i}$" for i in range(20))
    budget = KatexBudget(run_seconds=1.0, span_seconds=0.5)
    t = time.monotonic()
    warnings = check_maths(spans, "q1.main_text", budget)
    assert time.monotonic() - t < 2.5
    assert len(warnings) == 20 and all(w.message.startswith("not checked") for w in warnings)
    assert any("budget" in w.message for w in warnings)


def test_an_overlong_span_is_a_warning_not_a_stall():
    t = time.monotonic()
    warnings = check_maths("$" + "a" * 19_990 + "$", "f", KatexBudget())
    assert time.monotonic() - t < 2 and "not checked" in warnings[0].message


def test_a_filter_runs_under_time_and_memory_limits():
    from tasks.errors import FilterError
    from tasks.read.sandbox import run_filter

    with pytest.raises(FilterError):
        run_filter("function Pandoc(d) local t = {} while true do t[#t+1] = string.rep('x', 1e6) end end",
                   "# Q\n\ntext\n", "questions", timeout=5, memory_bytes=256 << 20)


# Found trying again: a sheet nested deeply (a block quote of 20,000 ">", a list 800 deep)
# reached Python's recursion limit reading pandoc's AST: a RecursionError traceback, not a line.
DEEP_SHEETS = [
    ("deep.md", ">" * 20_000 + " x\n"),
    ("deep-quote.md", ">" * 300 + " x\n"),
    ("deep.tex", "\\documentclass{article}\\begin{document}" + "\\begin{itemize}\\item " * 800 + "x"
     + "\\end{itemize}" * 800 + "\\end{document}\n"),
]


@pytest.mark.parametrize("name,text", DEEP_SHEETS, ids=[n for n, _ in DEEP_SHEETS])
def test_a_deeply_nested_sheet_is_one_line(tmp_path, name, text):
    from tasks.convert.markdown import to_markdown

    with pytest.raises(InputError) as e:
        to_markdown(name, text.encode(), "questions", base_dir=str(tmp_path))
    assert "nested too deeply" in str(e.value) and "\n" not in str(e.value) and name in str(e.value)


def test_a_list_ten_levels_deep_is_read():
    from tasks.convert.markdown import to_markdown

    text = "\n".join("  " * i + f"- level {i}" for i in range(10)) + "\n"
    assert "level 9" in to_markdown("ok.md", text.encode(), "questions").text


# Attacker round 11, C31: a deployment's form took in_flight 1,000,000,000 (and any tries or
# pool_wait), which the command line refuses past its bounds: the flows check them the same way.
@pytest.mark.parametrize("values, said", [
    ({"in_flight": 10**9}, "in_flight 1000000000: must be a number from 1 to 1024"),
    ({"tries": 0}, "tries 0: must be a number from 1 to 10"),
    ({"pool_wait": float("nan")}, "pool_wait nan: must be a number from 0.1 to 1440"),
    ({"in_flight": "8"}, "in_flight 8: must be a number"),
    ({"tries": True}, "tries True: must be a number"),
])
def test_a_forms_counts_are_bounded_as_the_options(values, said):
    from commandline.options import form_problem

    assert form_problem(**values).startswith(said)
    assert form_problem(tries=10, in_flight=1024, pool_wait=0.1) is None and form_problem(in_flight=None) is None


def test_the_folder_flow_refuses_a_form_in_flight_past_its_bound(tmp_path):
    from flows.folder import folder_flow

    (tmp_path / "course").mkdir()
    state = folder_flow.fn(str(tmp_path / "course"), out=str(tmp_path / "out"), offline=True, in_flight=10**9)
    assert state.is_failed() and "in_flight 1000000000: must be a number from 1 to 1024" in state.message
    assert not (tmp_path / "out").exists()
