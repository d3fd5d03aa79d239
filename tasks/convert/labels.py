"""List labels for the TeX pre-pass: explicit ``\\item[(c)]`` labels read as a numbering
style and start, counters formatted as LaTeX prints them, enumitem key lists split."""

from __future__ import annotations

import re

_STYLES = {"a": "abcdefghijklmnopqrstuvwxyz", "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi",
          "xvii", "xviii", "xix", "xx"]


def _value_of(label: str) -> tuple[str, int] | None:
    """``c`` → ("a", 3), ``iv`` → ("i", 4), ``12`` → ("1", 12): a label's style and value."""
    if label.isdigit():
        return "1", int(label)
    if len(label) == 1 and label.lower() in _STYLES["a"]:
        return ("a" if label.islower() else "A"), _STYLES["a"].index(label.lower()) + 1
    if label.lower() in _ROMAN:
        return ("i" if label.islower() else "I"), _ROMAN.index(label.lower()) + 1
    return None


_WORD_NUMBER = re.compile(r"\s*([A-Za-z]+)\.?\s?(\d+)\s*[.:)]?\s*")


def word_numbers(labels: list[str]) -> bool:
    """Are the item labels one word with numbers that count on (``Q4:``, ``Q5:``; ``Step
    1``, ``Step 2``)? Such items are run-in headings the sheet numbers itself, not a list."""
    found = [_WORD_NUMBER.fullmatch(text) for text in labels]
    if len(labels) < 1 or not all(found) or len({m.group(1).lower() for m in found}) != 1:
        return False
    ns = [int(m.group(2)) for m in found]
    return all(b == a + 1 for a, b in zip(ns, ns[1:]))


def label_sequence(labels: list[str]) -> tuple[str, int] | None:
    """Explicit item labels that count on in one style, as (pandoc enumerate template,
    start), e.g. ``["(c)", "(d)"]`` → ``("(a)", 3)``; None when they do not."""
    parsed = []
    for text in labels:
        m = re.fullmatch(r"\s*(\(?)([A-Za-z]+|\d+)([).]?)\s*", text)
        if not m or (m.group(1) and m.group(3) != ")"):
            return None
        parsed.append((m.group(1), m.group(2), m.group(3)))
    if len({(o, c) for o, _, c in parsed}) != 1:
        return None
    open_, close = parsed[0][0], parsed[0][2] or "."
    for style_first in ("a", "i", "1"):
        values = []
        for _, body, _ in parsed:
            v = _value_of(body)
            if v is None:
                break
            style, n = v
            if style_first == "a" and len(body) == 1 and body.isalpha():
                style, n = ("a" if body.islower() else "A"), _STYLES["a"].index(body.lower()) + 1
            if style.lower() != style_first and not (style_first == "1" and style == "1"):
                break
            values.append((style, n))
        else:
            if len({s for s, _ in values}) == 1 and all(b[1] == a[1] + 1 for a, b in zip(values, values[1:])):
                return f"{open_}{values[0][0]}{close}", values[0][1]
    return None


def fmt(style: str, n: int) -> str:
    if style in ("alph", "Alph"):
        s = _STYLES["a"][(n - 1) % 26] if n > 0 else ""
        return s.upper() if style == "Alph" else s
    if style in ("roman", "Roman"):
        s = _ROMAN[n - 1] if 0 < n <= len(_ROMAN) else str(n)
        return s.upper() if style == "Roman" else s
    return str(n)


def split_keys(opt: str) -> list[str]:
    """``label=(\\alph*), start=3`` → its keys, split at commas outside braces."""
    out, depth, cur = [], 0, []
    for ch in opt:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [k for k in out if k.strip()]




_LITERAL = re.compile(r"([(\[]?)([b-hj-zB-HJ-Z])([)\].:]?)")


def literal_start(option: str, items: int) -> tuple[str, int] | None:
    """The short label of the enumerate package (``\\begin{enumerate}[(d)]``) when its letter
    is no counter (only ``a A i I 1`` count there, so ``(d)`` prints "(d)" at each item), on a
    list of one item: pandoc's template (``(a)``) and start (4). An Org-mode export writes a
    result list split per letter so; several items all printed "(d)" are left as they are
    (``None``)."""
    m = _LITERAL.fullmatch(option.strip())
    if not m or items != 1:
        return None
    letter = m.group(2)
    style = "a" if letter.islower() else "A"
    return f"{m.group(1)}{style}{m.group(3)}", _STYLES["a"].index(letter.lower()) + 1


def scoped_label(env, depth: int, template, definition) -> str:
    """The list label a ``\\renewcommand{\\labelenumi}{…}`` inside the list itself (before its
    first ``\\item``) sets, as pandoc's enumerate option (``A.``): TeX keeps it to that list,
    so two lists of one sheet each print their own (bold 1.–3., then A.–B.). ``template``
    turns a label's TeX into the option (:func:`tasks.convert.latex.label_template`),
    ``definition`` reads a definer node; "" when the list renews no label of its depth."""
    name = "labelenum" + "i" * depth
    for node in env.nodelist or []:
        if getattr(node, "macroname", None) == "item":
            break
        d = definition(node) if getattr(node, "macroname", None) in ("renewcommand", "def") else None
        if d is not None and getattr(d, "name", None) == name:
            return template(d.body)
    return ""
