"""The printed summary of a document run (tasks/check/report.py)."""

from __future__ import annotations

from schemas.report import Report, RouteSummary
from tasks.check.report import summary_lines


def report(a: str, b: str) -> Report:
    return Report(source="sheet.md", set_name="sheet", route_a=RouteSummary(status=a), route_b=RouteSummary(status=b))


def test_a_single_route_run_says_first_that_nothing_was_cross_checked():
    first = summary_lines(report("skipped", "ran"))[0]
    assert first.startswith("NOT CROSS-CHECKED") and "only route B" in first
    assert summary_lines(report("replayed", "failed"))[0].startswith("NOT CROSS-CHECKED: only route A")
    assert summary_lines(report("failed", "failed"))[0] == "NOT CROSS-CHECKED: neither route read this sheet"


def test_a_two_route_run_opens_with_the_set():
    lines = summary_lines(report("ran", "replayed"))
    assert lines[0].startswith("set ") and not any("CROSS-CHECKED" in line for line in lines)


def test_the_folder_flags_show_each_text_as_written_as_the_document_artifact_does():
    from tasks.check.folder_report import flags_markdown

    md = flags_markdown({"sheet.md": [{"field": "q1.p2.content", "kind": "disputed", "reason": "routes differ — read both",
                                       "a": "Find $\\rho$ | the density\n\n$$x^2$$", "b": None}],
                         "other.md": []})
    assert "## sheet\\.md" in md and "### 1. q1.p2.content — disputed" in md
    assert "routes differ — read both" in md and "\\u2014" not in md
    assert "```text\nFind $\\rho$ | the density\n\n$$x^2$$\n```" in md  # whole, every character as written
    assert "No field needs a person." in md


def test_artifact_keys_of_sets_named_in_other_scripts_stay_apart():
    from tasks.write.artifacts import artifact_key

    assert artifact_key("inclined-plane", "summary") == "inclined-plane-summary"
    keys = {artifact_key(n, "summary") for n in ("問題 2", "問題 3", "演習", "Übung 2")}
    assert len(keys) == 4 and all(__import__("re").fullmatch(r"[a-z0-9-]+", k) for k in keys)


def test_what_concerns_no_field_is_a_count_on_the_terminal_and_lines_in_the_report():
    r = report("ran", "ran").model_copy(update={
        "conversion": ["source: [INFO] Skipped '\\RequirePackage{exam}' at line 2 column 1",
                       "source: [sheet2lambda] the document's title “Statics” is metadata: kept in report.json"],
        "metadata": {"title": "Statics"}})
    lines = summary_lines(r)
    assert [ln for ln in lines if ln.startswith("conversion")] == [
        "conversion 2 notes on no field (preamble, packages, page layout, metadata): in report.json, not flags"]
    assert not [ln for ln in summary_lines(report("ran", "ran")) if ln.startswith("conversion")]
    one = r.model_copy(update={"conversion": r.conversion[:1]})
    assert [ln for ln in summary_lines(one) if ln.startswith("conversion")] == [
        "conversion 1 note on no field (preamble, packages, page layout, metadata): in report.json, not flags"]
    from tasks.write.artifacts import report_rows
    rows = {row["measure"]: row["value"] for row in report_rows(r)}
    assert rows["title"] == "Statics" and rows["conversion notes (no field: preamble, packages, layout, metadata)"] == "2"


def test_the_flags_artifact_says_each_flag_in_words_with_its_whole_reason():
    from schemas.flags import Flag
    from tasks.write.artifacts import flags_markdown

    reason = "the routes read this part differently " * 12  # longer than any table cell
    md = flags_markdown("w3", [Flag(field="q1.p1.answer", kind="disputed", reason=reason, a="$x^2$", b="$x^3$"),
                               Flag(field="q2.main_text", kind="katex", reason="KaTeX cannot render it",
                                    a="\\sqrtt{k}")])
    assert reason in md and "## 1. q1.p1.answer — disputed" in md
    assert "**route A's text**" in md and "**route B's text**" in md
    assert "**the passage**\n\n```text\n\\sqrtt{k}\n```" in md  # not a route's text; backslashes kept
    assert "| a |" not in md and "No flags" in flags_markdown("w3", [])


def test_a_reason_quoting_latex_shows_as_written_in_the_ui():
    """A stray_minus reason quotes LaTeX: in the UI its underscores became italics and its
    backslashes vanished. Rendered by a CommonMark renderer (markdown-it, rich's), the
    paragraph's text is the reason as written."""
    import html
    import re

    from markdown_it import MarkdownIt

    from schemas.flags import Flag
    from tasks.write.artifacts import flags_markdown

    reason = "display maths begins with a minus: '-\\dot{m}_{a d}=\\dot{m}_{a b}+*x*' <b> [1](y) # `z` | ~w~"
    page = MarkdownIt("commonmark").render(flags_markdown("w3", [Flag(field="q2.p1.worked_solution",
                                                                      kind="stray_minus", reason=reason)]))
    (paragraph,) = [p for p in re.findall(r"<p>(.*?)</p>", page, re.S) if "minus" in p]
    assert html.unescape(paragraph) == reason


def test_the_report_table_puts_relative_paths_last(tmp_path, monkeypatch):
    from tasks.write.artifacts import report_rows

    monkeypatch.chdir(tmp_path)
    r = Report(source=str(tmp_path / "course" / "week3.md"), set_name="week3", route_a=RouteSummary(status="ran"),
               route_b=RouteSummary(status="ran"))
    rows = report_rows(r)
    assert rows[0]["measure"] == "set_name" and rows[-1] == {"measure": "solutions", "value": "None"}
    assert {"measure": "source", "value": "course/week3.md"} in rows[-2:]
