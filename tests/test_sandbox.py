"""The route B sandbox: hostile filters are refused or stopped with their reason, and
nothing they try to write appears anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.sheet import SheetSet
from tasks.errors import FilterError
from tasks.read.sandbox import run_filter

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"

SHEET = "# Sheet\n\n## Question 1\n\nA cart rolls down a ramp. How fast is it at the bottom?\n"

GOOD = """
function Pandoc(doc)
  return sheet.emit({ { title = 'Q', main_text = 'A cart rolls down a ramp.', parts = {} } })
end
"""


@pytest.fixture()
def watched(tmp_path, monkeypatch):
    """Run in an empty cwd and return (cwd, a target path that must stay absent)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    target = tmp_path / "pwned.txt"
    return cwd, target


def refused(source: str, watched, *, timeout: float = 10.0, memory_bytes: int = 1 << 30, stopped_by: str = "") -> str:
    cwd, target = watched
    source = source.replace("TARGET", str(target))
    with pytest.raises(FilterError) as info:
        run_filter(source, SHEET, "questions", timeout=timeout, memory_bytes=memory_bytes)
    assert not target.exists(), "the filter wrote its target file"
    assert list(cwd.iterdir()) == [], "the filter left something in the cwd"
    reason = info.value.reason
    assert "\n" not in reason
    assert info.value.stopped_by == stopped_by, f"stopped by {info.value.stopped_by!r}, not {stopped_by!r}"
    return reason


def test_a_good_filter_runs(watched):
    out = run_filter(GOOD, SHEET, "questions")
    assert out.root[0].main_text == "A cart rolls down a ramp."
    assert out.root[0].parts == []


def test_scratch_directory_is_removed(watched, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(FilterError):
        run_filter("error('boom')", SHEET, "questions")
    run_filter(GOOD, SHEET, "questions")
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize(
    "source, name",
    [
        ("local f = io.open('TARGET', 'w') f:write('x') f:close()", "io"),
        ("local f = io.open('/etc/passwd') return f:read('a')", "io"),
        ("os.execute('touch TARGET')", "os"),
        ("local p = io.popen('id') p:read('a')", "io"),
        ("function Pandoc(doc) pandoc.pipe('sh', {'-c', 'touch TARGET'}, '') end", "pandoc.pipe"),
        ("return { Pandoc = function(d) d.meta.x = os.getenv('HOME') return d end }", "os"),
        ("function Pandoc(d) pandoc.mediabag.fetch('http://example.com/') end", "pandoc.mediabag"),
        ("local m = require('socket')", "require"),
        ("package.loadlib('/lib/x86_64-linux-gnu/libc.so.6', 'system')", "package"),
        ("function Pandoc(d) return pandoc.utils.run_lua_filter(d, 'TARGET') end", "pandoc.utils.run_lua_filter"),
        ("function Pandoc(d) pandoc.system.with_temporary_directory('x', print) end", "pandoc.system"),
        ("dofile('/etc/passwd')", "dofile"),
        ("local g = debug.getregistry()", "debug"),
        ("local f = load('return 1')", "load"),
        ("local f = load(string.dump(function() end), 'x', 'b')", "load"),
        ("local s = string.dump(function() end)", "string.dump"),
        ("local s = ('x').dump(function() end)", "string.dump"),
        ("function Pandoc(d) pandoc.path.join({'a'}) end", "pandoc.path"),
        ("function Pandoc(d) pandoc.template.compile('$x$') end", "pandoc.template"),
    ],
)
def test_forbidden_globals_are_refused_by_name(source, name, watched):
    reason = refused(source, watched)
    assert reason == f"filter breaks a sandbox rule: {name} is not available"


def test_bytecode_chunk_is_refused(watched):
    reason = refused("\x1bLua\x54\x00\x19\x93\r\n\x1a\nrest", watched)
    assert reason.startswith("filter breaks a sandbox rule: bytecode")


def test_pandoc_write_to_a_lua_writer_file_is_refused(watched):
    cwd, target = watched
    target.with_suffix(".lua").write_text(f"function Writer() os.execute('touch {target}') end")
    source = f"function Pandoc(d) return pandoc.Pandoc({{pandoc.CodeBlock(pandoc.write(d, '{target.with_suffix('.lua')}'))}}) end"
    reason = refused(source, watched)
    assert reason.startswith("filter breaks a sandbox rule: pandoc.write to format")
    reason = refused("function Pandoc(d) return pandoc.write(d, 'evil.lua') end", watched)
    assert "pandoc.write to format 'evil.lua'" in reason


def test_pandoc_write_with_a_template_option_is_refused(watched):
    reason = refused(
        "function Pandoc(d) return pandoc.write(d, 'markdown', {template = '${ x() }'}) end", watched
    )
    assert reason == "filter breaks a sandbox rule: pandoc.write option template is not available"


def test_pandoc_read_of_a_non_markdown_format_is_refused(watched):
    reason = refused("function Pandoc(d) return pandoc.read('x', 'latex') end", watched)
    assert reason == "filter breaks a sandbox rule: pandoc.read to format 'latex' is not available"


def test_pcall_cannot_hide_a_sandbox_rule_but_the_filter_gets_no_access(watched):
    # pcall catches the refusal (an ordinary error), but the access still fails.
    source = """
    local ok, err = pcall(function() return os.execute('touch TARGET') end)
    function Pandoc(d) error('after: ' .. tostring(ok)) end
    """
    reason = refused(source, watched)
    assert reason.startswith("filter error: ") and "after: false" in reason


def test_an_endless_loop_is_stopped_by_the_time_limit(watched):
    reason = refused("function Pandoc(d) while true do end end", watched, timeout=2, stopped_by="runner")
    assert reason == "filter ran past the 2 s time limit"


def test_pcall_cannot_swallow_the_time_limit(watched):
    source = "function Pandoc(d) while true do pcall(function() while true do end end) end end"
    reason = refused(source, watched, timeout=2, stopped_by="runner")
    assert reason == "filter ran past the 2 s time limit"


def test_a_loop_inside_a_coroutine_is_stopped(watched):
    source = "function Pandoc(d) coroutine.wrap(function() while true do end end)() end"
    reason = refused(source, watched, timeout=2, stopped_by="runner")
    assert reason == "filter ran past the 2 s time limit"


@pytest.mark.parametrize(
    "source,stopped_by",
    [
        ("function Pandoc(d) local s = 'x' while true do s = s .. s end end", "runner"),
        ("function Pandoc(d) local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i, i} end end", "runner"),
        ("function Pandoc(d) local s = string.rep('x', 1073741824) end", "runner"),
    ],
)
def test_unbounded_allocation_is_stopped_by_the_memory_limit(source, stopped_by, watched):
    reason = refused(source, watched, timeout=20, memory_bytes=512 << 20, stopped_by=stopped_by)
    assert reason == "filter ran out of memory"


def test_a_lua_error_is_reported_with_its_message(watched):
    reason = refused("function Pandoc(d) local x = nil; return x.y end", watched)
    assert reason.startswith("filter error: ")
    assert "attempt to index" in reason


def test_a_syntax_error_is_reported(watched):
    reason = refused("function Pandoc(d) return end end", watched)
    assert reason.startswith("filter error: ") and "filter:" in reason


def test_a_filter_that_prints_garbage_and_returns_the_document_fails(watched):
    reason = refused("function Pandoc(d) print('garbage', d) return d end", watched)
    assert reason.startswith("filter output is not a JSON list: the document holds")


def test_a_code_block_that_is_not_json_fails(watched):
    reason = refused("function Pandoc(d) return pandoc.Pandoc({pandoc.CodeBlock('{not json')}) end", watched)
    assert reason.startswith("filter output is not a JSON list: ")


def test_a_json_object_is_not_a_list(watched):
    reason = refused("function Pandoc(d) return pandoc.Pandoc({pandoc.CodeBlock('{\"a\": 1}')}) end", watched)
    assert reason == "filter output is not a JSON list: got a JSON dict"


def test_json_that_does_not_validate_fails(watched):
    bad = json.dumps([{"title": "x", "main_text": "y", "parts": [{"content": 3, "colour": "red"}]}])
    source = f"function Pandoc(d) return pandoc.Pandoc({{pandoc.RawBlock('json', {json.dumps(bad)})}}) end"
    reason = refused(source, watched)
    assert reason.startswith("filter output does not validate: 0.parts.0.")


def test_a_returned_filter_table_and_a_filter_list_are_applied(watched):
    table = "return { Pandoc = function(d) return sheet.emit({ { main_text = 'one' } }) end }"
    assert run_filter(table, SHEET, "questions").root[0].main_text == "one"
    listed = """
    return {
      { Str = function(s) return pandoc.Str(s.text:upper()) end },
      { Pandoc = function(d) return sheet.emit({ { main_text = pandoc.utils.stringify(d.blocks[2]) } }) end },
    }
    """
    assert run_filter(listed, SHEET, "questions").root[0].main_text == "QUESTION 1"


def test_the_role_reaches_the_filter(watched):
    source = "function Pandoc(d) return sheet.emit({ { title = sheet.role(d), main_text = pandoc.utils.stringify(d.meta.in2lambda_role) } }) end"
    out = run_filter(source, SHEET, "solutions")
    assert (out.root[0].title, out.root[0].main_text) == ("solutions", "solutions")


def test_the_runner_metadata_is_hidden_from_the_filter(watched):
    source = "function Pandoc(d) local k = {} for key in pairs(d.meta) do k[#k+1] = key end table.sort(k) return sheet.emit({ { main_text = table.concat(k, ',') } }) end"
    assert run_filter(source, SHEET, "questions").root[0].main_text == "in2lambda_role"


@pytest.mark.skipif(not (CORPUS / "ci-sheet").is_dir(), reason="the shared corpus (../shared/corpus) is absent")
def test_ci_sheet_filter_through_the_sandbox_gives_filter_output(watched):
    from tasks.read.route_b import merge_by_position

    d = CORPUS / "ci-sheet"
    source = (d / "filter.lua").read_text(encoding="utf-8")
    questions = run_filter(source, (d / "sheet.md").read_text(encoding="utf-8"), "questions")
    solutions = run_filter(source, (d / "sheet_solutions.md").read_text(encoding="utf-8"), "solutions")
    merged = merge_by_position(questions, solutions)
    expected = SheetSet.model_validate_json((d / "filter-output.json").read_text(encoding="utf-8"))
    assert merged.model_dump() == expected.model_dump()


def test_pandoc_state_is_refused(watched):
    source = "function Pandoc(d) return sheet.emit({ { main_text = tostring(PANDOC_STATE.input_files) } }) end"
    reason = refused(source, watched)
    assert reason == "filter breaks a sandbox rule: PANDOC_STATE is not available"
