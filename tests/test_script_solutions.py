"""Formats met in batch 11 of the truth corpus, each a kind written small for its test:
a solutions script in the literate styles Jupytext reads (tasks/convert/scripts.py), a
bracket after a layout command that takes no argument (tasks/convert/tex_blanks.py), and
solutions numbered by question and part at once (tasks/read/joined_labels.py)."""

from __future__ import annotations

import pytest

from schemas.sheet import Part, Question, SheetSet
from tasks.convert.markdown import to_markdown
from tasks.convert.scripts import line_comments
from tasks.read.joined_labels import names_a_part, split_joined
from tasks.read.route_b import merge_solutions as pair

JULIA = """## Exercise 1

using Statistics

function centre(v)
    return v .- mean(v)
end

## Exercise 2

#=
a. the second column, as a vector
b. an error: there is no fifth row
=#
"""

PERCENT = """# %% [markdown]
# ## Task 1
# The mean of the sample is $\\bar x = 4$.

# %%
xs = [2, 4, 6]
print(sum(xs) / len(xs))
"""


def test_julia_script_reads_comments_as_prose_and_code_as_code():
    text = to_markdown("key.jl", JULIA.encode(), "solutions").text
    assert "# Exercise 1" in text and "# Exercise 2" in text
    assert "``` julia\nfunction centre(v)" in text
    # the block comment's prose is prose, not code, and not its delimiters
    assert "the second column, as a vector" in text and "#=" not in text and "=#" not in text
    assert text.index("the second column") > text.index("# Exercise 2")


def test_percent_script_reads_its_markdown_cells():
    text = to_markdown("key.py", PERCENT.encode(), "solutions").text
    assert "## Task 1" in text and "$\\bar x = 4$" in text
    assert "print(sum(xs) / len(xs))" in text and "%%" not in text


def test_block_comment_beside_code_stays_code():
    src = "x = 1 #= inline =# + 2\n#=\nprose\n=#\n"
    assert line_comments(src, ".jl") == "x = 1 #= inline =# + 2\n\n# prose\n\n"
    assert line_comments("#=\nprose\n=#\n", ".py") == "#=\nprose\n=#\n"  # no block comments in Python


@pytest.mark.parametrize("command", ["noindent", "medskip", "quad"])
def test_bracket_after_a_layout_command_is_text(command):
    src = (f"\\documentclass{{article}}\n\\begin{{document}}\nFind the root.\n\n\\{command}\n"
           "[\\textbf{Hint:} the root lies in $[1,2]$, so bisect.]\n\nAfter the hint.\n\\end{document}\n")
    text = to_markdown("s.tex", src.encode(), "questions").text
    assert "**Hint:** the root lies in $[1,2]$, so bisect." in text
    assert "After the hint." in text


def test_a_break_priority_stays_an_argument():
    src = ("\\documentclass{article}\n\\begin{document}\nOne line\\linebreak[3] two lines.\n\\end{document}\n")
    text = to_markdown("s.tex", src.encode(), "questions").text
    assert "[3]" not in text and "two lines." in text


def _sol(text: str) -> Question:
    return Question(parts=[Part(worked_solution=text)])


def test_solutions_numbered_by_question_and_part_are_that_questions_parts():
    q_numbers = [("1", ["(a)", "(b)"]), ("2", [])]
    sols = SheetSet(root=[_sol("code for a"), _sol("code for b"), _sol("answer two")])
    s_numbers = [("1a", []), ("1b", []), ("2", [])]
    got, numbers = split_joined(sols, s_numbers, q_numbers)
    assert numbers == [("1", ["(a)", "(b)"]), ("2", [])]
    assert [p.worked_solution for p in got.root[0].parts] == ["code for a", "code for b"]
    questions = SheetSet(root=[Question(main_text="Write it.", parts=[Part(content="First."), Part(content="Second.")]),
                               Question(main_text="Say it.")])
    merged, pairing = pair(questions, sols, q_numbers, s_numbers)
    assert [p.worked_solution for p in merged.root[0].parts] == ["code for a", "code for b"]
    assert not pairing.flags


def test_a_number_the_sheet_has_is_never_split():
    assert names_a_part("1a", {"1", "2"}) and names_a_part("2(c)", {"2"})
    assert not names_a_part("1a", {"1", "1a"}) and not names_a_part("3b", {"1", "2"})
    sols = SheetSet(root=[_sol("x")])
    assert split_joined(sols, [("1a", [])], [("1a", []), ("1", [])])[0] is sols
