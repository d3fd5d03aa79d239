"""The KaTeX check: finding maths spans as pandoc's reader does, and rendering them."""

from __future__ import annotations

import json

import pytest

from schemas.sheet import SheetSet, iter_fields
from tasks.write import katex
from tasks.write.katex import check_maths, find_maths
from tasks.convert.pandoc import READ_FORMAT, run_pandoc
from tests.conftest import corpus


def spans(text: str) -> list[tuple[str, str]]:
    return [(s.delim, s.tex) for s in find_maths(text)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("the speed $v$ of the cart", [("$", "v")]),
        ("energy $$E = mc^2$$ holds", [("$$", "E = mc^2")]),
        ("first\n$$\n\\int_0^1 f\n$$\nafter", [("$$", "\n\\int_0^1 f\n")]),
        (r"a ticket costs \$5 and a meal \$6", []),
        ("prices $5 and $10 today", []),  # the closing $ follows a space
        ("code `$x$` is not maths, $y$ is", [("$", "y")]),
        ("```\n$inside$ a fence\n```\nthen $z$", [("$", "z")]),
        ("<!-- $hidden$ --> shown $w$", [("$", "w")]),
        ("<div>\n$raw$\n</div>\n\n$kept$", [("$", "kept")]),
        (r"$a\$b$", [("$", r"a\$b")]),
        (r"\\$x$", [("$", "x")]),  # an escaped backslash, then maths
        ("$a\n\nb$", []),  # maths never crosses a blank line
        ("$ x$", []),
        (r"$\mathbf{B$ in components", []),  # braces must balance
        ("$\\text{a $b$ c}$", [("$", "\\text{a $b$ c}")]),
        # commonmark_x has no tex_math_single_backslash: these are escaped brackets, as pandoc
        # writes a sheet's literal [..] (a bracketed hint holding maths keeps only its $ spans)
        (r"inline \(x+1\) and display \[y^2\]", []),
        (r"\[**Hint:** each $v_i$ lies in \[0,1\].\]", [("$", "v_i")]),
    ],
)
def test_maths_spans_are_found(text, expected):
    assert spans(text) == expected


def test_display_flag_follows_the_delimiter():
    found = find_maths(r"$a$ $$b$$ \(c\) \[d\]")
    assert [s.display for s in found] == [False, True]


def test_span_offsets_cover_the_delimiters():
    text = "see $$x$$ and $y$"
    assert [text[s.start : s.end] for s in find_maths(text)] == ["$$x$$", "$y$"]


def test_a_tex_error_and_an_unknown_macro_are_reported_a_valid_formula_is_not():
    warnings = check_maths(r"bad $\frac{1}$, unknown $\notamacro x$, good $\frac{1}{2}$", "q3.p2.answer")
    assert [w.tex for w in warnings] == [r"\frac{1}", r"\notamacro x"]
    assert all(w.field == "q3.p2.answer" for w in warnings)
    assert "Unexpected end of input" in warnings[0].message
    assert "Undefined control sequence" in warnings[1].message and "\\notamacro" in warnings[1].message
    assert "\u0332" not in warnings[1].message  # KaTeX's underline marks are removed
    assert check_maths(r"$$\begin{aligned} a &= b \\ c &= d \end{aligned}$$") == []


def test_display_mode_is_passed_to_katex():
    # \tag is only allowed in display maths.
    assert check_maths(r"$$x \tag{1}$$") == []
    assert [w.tex for w in check_maths(r"$x \tag{1}$")] == [r"x \tag{1}"]


def test_an_unbalanced_brace_means_no_maths():
    # Inside $…$ an unbalanced brace means no maths (pandoc shows the text as written).
    assert check_maths(r"$\frac{1}{$") == []


def test_backslash_brackets_are_text_not_maths():
    # \(…\) and \[…\] are escaped brackets in commonmark_x: KaTeX never sees them.
    assert check_maths(r"\(x^\) and \[\undefinedthing\]") == []


def test_a_bracketed_hint_of_a_latex_sheet_is_text_as_pandoc_reads_it():
    r"""A sheet's literal [..] around a hint comes out of pandoc as \[..\]; read back, pandoc
    finds only the $ spans inside it, and so must the maths finder (before: one display span
    from \[ to \], whose inner $ KaTeX refused)."""
    tex = "\\documentclass{article}\\begin{document}\nShow it.\n\n[\\textbf{Hint:} take $k \\ge 1$ and $x_k$.]\n\\end{document}\n"
    run = run_pandoc(["-f", "latex", "-t", READ_FORMAT], stdin=tex.encode())
    assert run.returncode == 0, run.stderr
    markdown = run.stdout.decode() if isinstance(run.stdout, bytes) else run.stdout
    assert "\\[**Hint:**" in markdown
    assert [(s.display, s.tex) for s in find_maths(markdown)] == _pandoc_maths(markdown) == [
        (False, "k \\ge 1"), (False, "x_k")]
    assert check_maths(markdown) == []


def test_what_pykatex_raises_outside_katex_is_a_warning_not_a_crash():
    # pykatex refuses a NUL (ValueError) and a lone surrogate (UnicodeEncodeError).
    messages = [w.message for w in check_maths("$a\x00b$ and $c\ud800$")]
    assert len(messages) == 2
    assert messages[0].startswith("ValueError") and messages[1].startswith("UnicodeEncodeError")


def test_strict_mode_warnings_are_not_printed(capfd):
    # KaTeX's default strict="warn" prints a console warning for unicode text in maths.
    assert check_maths("$\u00e9t\u00e9 = 1$") == []
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_an_over_long_span_is_reported_as_not_checked(monkeypatch):
    monkeypatch.setattr(katex, "MAX_TEX_CHARS", 10)
    katex.katex_error.cache_clear()
    [warning] = check_maths("$" + "x+" * 10 + "y$")
    assert warning.message.startswith("not checked: 21 characters")
    katex.katex_error.cache_clear()


def test_a_repeated_span_is_reported_each_time_it_occurs():
    # KaTeX's verdict is cached per TeX string: the second occurrence must still be a warning of its own.
    katex.katex_error.cache_clear()
    warnings = check_maths(r"$\badmacro$ and again $\badmacro$ and $\alpha$")
    assert [w.tex for w in warnings] == [r"\badmacro", r"\badmacro"]
    assert warnings[0].message == warnings[1].message and "badmacro" in warnings[0].message


def _pandoc_maths(text: str) -> list[tuple[bool, str]]:
    run = run_pandoc(["-f", READ_FORMAT, "-t", "json"], stdin=text.encode())
    assert run.returncode == 0, run.stderr
    found: list[tuple[bool, str]] = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("t") == "Math":
                found.append((node["c"][0]["t"] == "DisplayMath", node["c"][1]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(run.stdout))
    return found


def test_spans_agree_with_pandoc_on_the_me2_markdown_and_reply():
    """Every $/$$ span found in the ME2 documents and route A reply is one pandoc finds."""
    texts = [corpus("me2", "questions.md").read_text(), corpus("me2", "questions_solutions.md").read_text()]
    reply = SheetSet.model_validate_json(corpus("me2", "replies", "route-a.json").read_text())
    texts += [text for _, text in iter_fields(reply) if "$" in text][:20]
    for text in texts:
        mine = [(s.display, s.tex) for s in find_maths(text) if s.delim in ("$", "$$")]
        assert mine == _pandoc_maths(text)


def test_every_maths_span_of_the_me2_reply_renders():
    reply = SheetSet.model_validate_json(corpus("me2", "replies", "route-a.json").read_text())
    found = [s for _, text in iter_fields(reply) for s in find_maths(text)]
    assert len(found) > 100
    assert [w for key, text in iter_fields(reply) for w in check_maths(text, key)] == []


def test_katex_checks_from_many_threads_agree_with_the_first():
    """Prefect runs tasks in worker threads; pykatex fails off its first thread unless wrapped."""
    from concurrent.futures import ThreadPoolExecutor

    from tasks.write.katex import check_maths

    check_maths("$x^2$ and $\\frac{a}{b}$")
    texts = [f"$\\sqrt{{{i}}} + y_{{{i}}}$ and $$\\int_0^{i} t\\,dt$$" for i in range(40)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(check_maths, texts))
    assert results == [[] for _ in texts]
    assert check_maths("$\\notamacro x$")[0].message.startswith("Undefined control sequence")


def test_katex_flags_are_one_per_field_and_fold_into_the_undefined_commands_flag():
    from schemas.build import KatexWarning
    from schemas.flags import Flag
    from tasks.write.katex import katex_flags

    warnings = [KatexWarning(field="q1.main_text", tex="\\bp{x}", message="Undefined control sequence: \\bp at position 1"),
                KatexWarning(field="q1.main_text", tex="\\frac{", message="Expected group after '\\frac'"),
                KatexWarning(field="q2.p1.content", tex="\\bp{y}", message="Undefined control sequence: \\bp at position 1"),
                KatexWarning(field="q3.p1.content", tex="\\zz", message="Undefined control sequence: \\zz at position 1")]
    known = [Flag(field="q1.main_text", kind="conversion_loss", reason="the maths uses \\bp", a="\\bp"),
             Flag(field="q2.p1.content", kind="conversion_loss", reason="the maths uses \\bp", a="\\bp")]
    flags = katex_flags(warnings, known)
    # q1 keeps its other fault, q2's only fault is the named command, q3's command no flag names
    assert [(f.field, f.a) for f in flags] == [("q1.main_text", "\\frac{"), ("q3.p1.content", "\\zz")]
    alone = katex_flags(warnings)
    assert [f.field for f in alone] == ["q1.main_text", "q2.p1.content", "q3.p1.content"]
    assert alone[0].a == "\\bp{x}\n\\frac{" and "2 maths spans" in alone[0].reason
    # the command named once for question 2 (on its main text) covers its parts too; question 3 it does not
    part = [KatexWarning(field="q2.p3.content", tex="\\bp{z}", message="Undefined control sequence: \\bp at position 1"),
            KatexWarning(field="q3.p3.content", tex="\\bp{z}", message="Undefined control sequence: \\bp at position 1")]
    named_once = [Flag(field="q2.main_text", kind="conversion_loss", reason="the maths uses \\bp", a="\\bp")]
    assert [f.field for f in katex_flags(part, named_once)] == ["q3.p3.content"]


def test_an_indented_code_block_holds_no_maths_but_a_list_items_indented_lines_do():
    text = ("Fit the model to $n$ rows.\n\n    fit <- lm(y ~ x, data = df$train)\n    df$pred <- predict(fit)\n\n"
            "1.  Give $\\hat y$.\n\n    Then give $r^2$ too.\n\nA line\n    run on with $z$.\n")
    assert [t for _, t in spans(text)] == ["n", "\\hat y", "r^2", "z"]
