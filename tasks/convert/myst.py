r"""MyST directives as the student sees them, written in the markers both routes read.

MyST markdown (Jupyter Book, MyST-NB, Jupytext notebooks saved as ``.md``) writes
directives as fences whose info string is ``{name}``, with ``:key: value`` option lines (or
a ``---`` YAML block) after the opening line::

    ```{exercise} Falling stone
    :label: ex-stone
    How long does it fall?
    ```

    :::{solution} ex-stone
    About 1.4 s.
    :::

``commonmark_x`` reads a backtick directive as a code block (the question shows as code)
and a colon one as a paragraph of colons. :func:`directives` rewrites each directive as
the Jupyter Book extensions render it, adding no word of the author's (the rules follow
the MyST syntax guide, "Directives", and the sphinx-exercise and sphinx-togglebutton
documentation):

- ``{exercise}`` (and ``{exercise-start}`` … ``{exercise-end}``): a paragraph opening with
  the marker sphinx-exercise prints, ``**Exercise N.**``, its title after it in
  parentheses, then the body; exercises are numbered in order, ``:nonumber:`` ones not.
  When every exercise of the page is ``:nonumber:`` and there are two or more, the author
  numbers none of them on purpose: they are the steps of the page's one question, each a
  ``part`` div (its title, if any, its first paragraph; a heading just before it, which
  groups the steps, inside it) that the reader opens a part at;
- ``{solution}`` (and ``{solution-start}`` … ``{solution-end}``): a ``solution`` div (the
  worked solution; the "Solution to Exercise N" title the extension prints is chrome);
- ``{admonition}``, ``{dropdown}``, ``{toggle}`` and the named admonitions (``{note}``,
  ``{hint}`` …): the body (a title given is a paragraph before it); when the title is a
  solution word (``Solution``, ``Answer``, ``Lösung``) or a class option names
  ``solution``/``answer``, the body is a ``solution`` div instead (the usual way a course
  hides its answers in a dropdown);
- ``{code-cell}``, ``{code-block}``, ``{code}``: code already (the reader takes the fence for
  a code block), copied as written; a cell tagged ``remove-cell`` or ``remove-input`` is left
  out (the student never sees it);
- ``{math}``: display maths ``$$…$$``; ``{figure}``/``{image}``: an image of its path,
  the body its caption;
- containers (``{div}``, ``{tab-item}`` …): the body, unwrapped, an argument before it;
- a fence naming anything else (a Quarto or R Markdown chunk ``{r}``) is left as it is.

Directives nest (a longer fence holds shorter ones) and may be indented under a list
item; their bodies are read again for directives. Ordinary code fences are copied as
they are, directives inside them too. A line opening with ``%`` outside a fence is a MyST
comment (``% solution_start``): the student never sees it, so it is left out.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[A-Za-z][\w:.-]*)\}[ \t]*(?P<arg>.*?)[ \t]*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):[ \t]*(?P<value>.*?)[ \t]*$")
_COMMENT = re.compile(r"^%")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")

SOLUTION_WORDS = ("solution", "solutions", "answer", "answers", "lösung", "lösungen", "antwort", "solución", "réponse")
"""First words of an admonition or dropdown title that make its body a worked solution."""

ADMONITIONS = {"admonition", "dropdown", "toggle", "note", "tip", "hint", "important", "warning", "caution",
               "attention", "danger", "error", "seealso", "margin", "sidebar", "topic", "card"}
CODE = {"code-cell", "code-block", "code", "sourcecode"}
HIDDEN_TAGS = ("remove-cell", "remove-input")
CONTAINERS = {"div", "container", "tab-set", "tab-item", "grid", "grid-item", "grid-item-card", "epigraph",
              "pull-quote", "rubric", "only", "task", "question", "problem", "class"}
"""Directives whose body is markdown shown as it is (sphinx-design, docutils); their argument,
if any, is a paragraph before it (not docutils' ``class``, whose argument names classes)."""
GATES = {"exercise", "exercise-start", "exercise-end", "solution", "solution-start", "solution-end", "math",
         "figure", "image"}
KNOWN = ADMONITIONS | CODE | CONTAINERS | GATES
"""Every directive rewritten; a fence with another ``{name}`` (a Quarto or R Markdown chunk
``{r}``, ``{python}``) is left as it is."""


def directives(markdown: str) -> str:
    """``markdown`` with every MyST directive rewritten as the module docstring says; a
    text without ``{`` fences is returned as it is. Never raises."""
    if not re.search(r"^[ \t]*(?:`{3,}|~{3,}|:{3,})\{", markdown, re.M):
        return markdown
    lines = markdown.split("\n")
    myst = any((m := _OPEN.match(ln)) and m.group("name").lower().split(":")[-1] in KNOWN for ln in lines)
    return "\n".join(_Rewriter(steps=_unnumbered_steps(lines), comments=myst).lines(lines))


def _unnumbered_steps(lines: list[str]) -> bool:
    """Every ``{exercise}`` directive of ``lines`` is ``:nonumber:`` and there are two or more
    (the options read as :func:`_options` reads them; ``:nonumber: false`` numbers)."""
    seen = unnumbered = 0
    for i, line in enumerate(lines):
        m = _OPEN.match(line)
        if not m or m.group("name").lower().split(":")[-1] != "exercise":
            continue
        seen += 1
        options, _ = _options(_dedent(lines[i + 1:i + 12], m.group("indent")))
        if "nonumber" in options and options["nonumber"].strip().lower() not in ("false", "no", "0"):
            unnumbered += 1
    return seen >= 2 and unnumbered == seen


def _next_opens_exercise(lines: list[str], start: int) -> bool:
    """The next line of ``lines`` from ``start`` that is neither blank nor a comment opens an
    ``{exercise}`` directive."""
    for line in lines[start:]:
        if not line.strip() or _COMMENT.match(line):
            continue
        m = _OPEN.match(line)
        return bool(m) and m.group("name").lower().split(":")[-1] == "exercise"
    return False


class _Rewriter:
    def __init__(self, steps: bool = False, comments: bool = False) -> None:
        self.exercises = 0
        self.steps = steps
        self.comments = comments
        """The page is MyST (a directive it knows): ``%`` lines are comments."""
        """Every exercise of the page is ``:nonumber:`` and there are two or more: each is a part."""
        self.held: list[str] = []

    def lines(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if self.comments and _COMMENT.match(line):
                i += 1
                continue
            if self.steps and _HEADING.match(line) and _next_opens_exercise(lines, i + 1):
                self.held.append(line)  # the heading grouping the next steps goes inside the next part
                i += 1
                continue
            m = _OPEN.match(line)
            if m and m.group("name").lower().split(":")[-1] in KNOWN:
                end = _closing(lines, i + 1, m.group("fence"))
                out += self.directive(m, lines[i + 1:end], lines[end] if end < len(lines) else "")
                i = end + 1
                continue
            f = _FENCE.match(line)
            if f:  # an ordinary code fence: copied whole
                end = _closing(lines, i + 1, f.group("fence"))
                out += lines[i:end + 1]
                i = end + 1
                continue
            out.append(line)
            i += 1
        return out

    def directive(self, m: re.Match, body: list[str], closer: str = "") -> list[str]:
        indent, name, arg = m.group("indent"), m.group("name").lower(), m.group("arg")
        raw = body
        options, body = _options(_dedent(body, indent))
        name = name.split(":")[-1]  # {prf:exercise}, {exercise:solution}
        inner = self.lines(body)

        def placed(block: list[str]) -> list[str]:
            return [indent + ln if ln.strip() else ln for ln in block]

        if name == "exercise" and self.steps:
            held, self.held = self.held, []
            head = [*held, ""] if held else []
            return placed(["::: {.part}", *head, *([arg, ""] if arg else []), *inner, ":::"])
        if name in ("exercise", "exercise-start"):
            return placed(self.exercise(arg, options) + [""] + inner)
        if name in ("exercise-end", "solution-end"):
            return placed([":::"]) if name == "solution-end" else []
        if name == "solution-start":
            return placed(["::: {.solution}", *inner])
        if name == "solution" or (name in ADMONITIONS and _is_solution(arg, options)):
            return placed(["::: {.solution}", *inner, ":::"])
        if name in CODE:  # code already: copied as written, unless the student never sees it
            hidden = any(t in options.get("tags", "") for t in HIDDEN_TAGS)
            return [] if hidden else [m.group(0), *raw, *([closer] if closer else [])]
        if name == "math":
            return placed(["$$", *[ln for ln in body if ln.strip()], "$$"])
        if name in ("figure", "image"):
            caption = " ".join(ln.strip() for ln in inner if ln.strip())
            return placed([f"![{caption}]({arg})"]) if arg else placed(inner)
        if name == "class":  # its argument names classes; a blank line keeps the body a paragraph
            return placed([*inner, ""])
        if arg and name in ADMONITIONS | CONTAINERS:
            return placed([arg, "", *inner])
        return placed(inner)

    def exercise(self, title: str, options: dict[str, str]) -> list[str]:
        if "nonumber" in options:
            return [f"**Exercise** ({title})" if title else "**Exercise**"]
        self.exercises += 1
        marker = f"**Exercise {self.exercises}.**"
        return [f"{marker} ({title})" if title else marker]


def _is_solution(title: str, options: dict[str, str]) -> bool:
    words = re.findall(r"\w+", title.lower())
    if words and words[0] in SOLUTION_WORDS:
        return True
    classes = re.findall(r"[\w-]+", options.get("class", "").lower())
    return any(c in ("solution", "answer", "solutions", "answers") for c in classes)


def _closing(lines: list[str], start: int, fence: str) -> int:
    """Index of the line closing ``fence`` (the same character, at least as long, alone on
    its line), or the last line when none closes it (an unclosed fence runs to the end)."""
    close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
    depth = 0
    for j in range(start, len(lines)):
        inner = _OPEN.match(lines[j])
        if fence[0] == ":" and inner and inner.group("fence") == fence:
            depth += 1  # a colon directive of the same length opens inside: its closer is its own
            continue
        if close.match(lines[j]):
            if depth:
                depth -= 1
                continue
            return j
    return len(lines)


def _dedent(body: list[str], indent: str) -> list[str]:
    return [ln[len(indent):] if ln.startswith(indent) else ln.lstrip() for ln in body]


def _options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    """The directive's options (``:key: value`` lines or a ``---`` YAML block at the top)
    and the body after them."""
    options: dict[str, str] = {}
    i = 0
    if body and body[0].strip() == "---":
        end = next((j for j in range(1, len(body)) if body[j].strip() == "---"), None)
        if end is not None:
            for ln in body[1:end]:
                key, _, value = ln.partition(":")
                options[key.strip().lower()] = value.strip()
            return options, body[end + 1:]
    while i < len(body) and (m := _OPTION.match(body[i])):
        options[m.group("key").lower()] = m.group("value")
        i += 1
    return options, body[i:]
