"""What the conversion lost, as flags on the fields it concerns or notes for the report.

A conversion warning (:class:`schemas.markdown.ConversionWarning`) concerns a field when the
piece it lost sat next to that field's text; then it is a ``conversion_loss`` flag there (one
flag per field, one per skipped command however often the sheet uses it). What concerns no
field is a line of ``report.json``'s ``conversion`` (:func:`conversion_notes`), never a flag:
the preamble, packages, page layout and metadata (:func:`sheet_wide`), and a lost piece no
field's words are near (the sheet's head, a heading) or that has no place at all.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.markdown import ConversionWarning
from schemas.sheet import SheetSet, iter_fields

SHEET_KINDS = frozenset({"Metadata", "MetadataNotKept", "HiddenDropped", "UnknownMacro", "CouldNotLoadIncludeFile"})
"""Conversion warnings that concern no field, whatever their ``about``: the document's
metadata, what the conversion left out on purpose (text under ``\\answersfalse``, a
``comment`` environment, a placeholder solution), how a command or environment no file here
defines was read (its text kept), and a macro or setup file pandoc could not load (what it
lacks shows as undefined maths, flagged on each field that uses it)."""


def sheet_wide(w: ConversionWarning) -> bool:
    """Whether a conversion warning concerns no field: ``about == "sheet"`` (the preamble,
    packages, page layout, metadata) or a kind of :data:`SHEET_KINDS`. Such a warning goes to
    ``report.json`` (:func:`conversion_notes`), never to ``flags.json``."""
    return w.about == "sheet" or w.kind in SHEET_KINDS


def conversion_notes(warnings: dict[str, list[ConversionWarning]], settled: SheetSet | None = None) -> list[str]:
    """``report.json``'s ``conversion``: one line per warning that concerns no field
    (:func:`sheet_wide`, and with ``settled`` those :func:`unplaced` in it),
    ``"<role>: <message>"``, in order, duplicates dropped."""
    lines = [f"{role}: {w.message}" for role, ws in warnings.items() for w in ws if sheet_wide(w)]
    if settled is not None:
        lines += [f"{role}: {w.message}" for role, ws in warnings.items() for w in unplaced(role, ws, settled)]
    return list(dict.fromkeys(lines))


_WORDS = re.compile(r"[A-Za-z]{4,}")


def _locate(w: ConversionWarning, fields: list[tuple[str, str]]) -> str | None:
    """The field a lost piece of the sheet sits in: the field holding the longest run of the
    sheet's words just before it (``w.near``, else the words of ``w.text``), the closest words
    first, at least three of them (all when fewer); the first such field. ``None`` when no
    field holds enough of them."""
    words = (w.near or " ".join(_WORDS.findall(w.text))).split()
    if not words:
        return None
    need = min(3, len(words))
    best, best_k = None, 0
    for key, text in fields:
        have = set(_WORDS.findall(text or ""))
        k = 0
        while k < len(words) and words[-1 - k] in have:
            k += 1
        if k > best_k:
            best, best_k = key, k
    return best if best_k >= need else None


def _what_was_lost(w: ConversionWarning) -> str:
    """A plain sentence for a person: what the conversion lost, and where in the sheet."""
    where = f" (line {w.line} of the sheet)" if w.line else ""
    snippet = " ".join((w.text or "").split())
    snippet = snippet if len(snippet) <= 80 else snippet[:79] + "…"
    if w.kind == "OptionsUnsure":  # a doubt of the reading, not a loss (tasks.convert.tex_options)
        return w.message.removeprefix("[sheet2lambda] ")
    if w.kind == "SkippedContent":
        return (f"the conversion skipped {snippet!r}{where}, next to this field's text: compare the field with the "
                "sheet and add what it lacks (text, maths or a drawing), or keep it if nothing is missing")
    return (f"the conversion may have lost something{where} next to this field's text ({w.message}): compare the "
            "field with the sheet and add what it lacks, or keep it if nothing is missing")


PLACED_OR_NOTED = frozenset({"SkippedContent", "ContentLost", "MathNotKept", "UndefinedMaths", "RawTeX", "Shortcode"})
"""Losses that are a flag only on the field they sit in: one no field's words are near (in the
sheet's head before any field, in a heading) or with no place at all is a note of the report.
Other kinds (a file refused, a Word equation, exam markers lost) are a flag even unplaced."""


def _fields(role: str, settled: SheetSet | None) -> list[tuple[str, str]]:
    fields = [(k, t) for k, t in iter_fields(settled)] if settled is not None else []
    if role == "solutions":
        fields = [(k, t) for k, t in fields if k.endswith((".answer", ".worked_solution"))]
    return fields


def _placed(w: ConversionWarning, fields: list[tuple[str, str]]) -> list[str]:
    """The fields a content warning concerns: those holding an undefined command or a Word
    equation's picture, else the one the lost piece sits in (:func:`_locate`)."""
    if w.kind == "UndefinedMaths" and w.text:
        command = re.compile(re.escape(w.text) + r"(?![A-Za-z@])")
        return [key for key, text in fields if text and command.search(text)]
    if w.kind == "EquationNotRead" and w.text:  # the picture's link
        return [key for key, text in fields if text and w.text in text]
    key = _locate(w, fields)
    return [key] if key else []


def unplaced(role: str, warnings: list[ConversionWarning], settled: SheetSet | None) -> list[ConversionWarning]:
    """The content warnings of ``role`` no field of ``settled`` can be named for, of the kinds
    that are then a note of the report, not a flag (:data:`PLACED_OR_NOTED`)."""
    fields = _fields(role, settled)
    return [w for w in warnings if not sheet_wide(w) and w.kind in PLACED_OR_NOTED and not _placed(w, fields)]


_COMMAND = re.compile(r"\\([A-Za-z@]+)\*?(?=[\s{\[]|$)")


def _skipped_command(w: ConversionWarning) -> str | None:
    """The command a ``SkippedContent`` warning skipped (``\\topicbadge{1.7}`` → ``\\topicbadge``),
    ``None`` for an environment or anything else."""
    m = _COMMAND.match((w.text or "").strip()) if w.kind == "SkippedContent" else None
    return None if m is None or m.group(1) in ("begin", "end") else "\\" + m.group(1)


def conversion_loss_flags(role: str, warnings: list[ConversionWarning], settled: SheetSet | None = None) -> list[Flag]:
    """``conversion_loss`` flags for what the conversion lost of the document ``role``, one per
    field (the causes on one field joined), for the warnings that concern content
    (:func:`sheet_wide` ones go to the report instead):

    - ``UndefinedMaths`` (maths using a command nobody defines): once per question for all its
      commands, on the first field of ``settled`` holding one, naming the question's others
      (:func:`_undefined_flags`; ``a``: the commands, one per line; KaTeX's flags for the same
      command in that question are folded into it, :func:`tasks.write.katex.katex_flags`);
    - ``EquationNotRead`` (a Word equation kept only as a metafile picture,
      :func:`tasks.convert.docx.equation_warnings`): on each field holding its picture's link;
    - a command skipped at several places (a class's ``\\topicbadge{…}`` after every question's
      title): one cause, one flag, on the first field it sits next to, naming the others;
    - any other: on the field the lost piece sits in (:func:`_locate`: the sheet's words just
      before it; for ``solutions`` only answers and worked solutions), ``a`` what was lost.

    A loss no field can be named for is a note of the report when it is of a kind that only a
    field can place (:data:`PLACED_OR_NOTED`, :func:`unplaced`), else one flag
    ``<role>:conversion`` (sheet-wide: a file refused, exam markers lost).
    """
    fields = _fields(role, settled)
    by_field: dict[str, list[tuple[str, str | None]]] = {}
    undefined: dict[str, list[str]] = {}
    repeated: dict[str, list[tuple[ConversionWarning, list[str]]]] = {}
    for w in warnings:
        if sheet_wide(w):
            continue
        keys = _placed(w, fields)
        if not keys:
            if w.kind not in PLACED_OR_NOTED:
                by_field.setdefault(f"{role}:conversion", []).append((w.message, w.text or None))
            continue
        if w.kind == "UndefinedMaths":
            for key in keys:
                undefined.setdefault(key, []).append(w.text)
        elif w.kind == "EquationNotRead":
            for key in keys:
                by_field.setdefault(key, []).append((w.message, w.text))
        elif (command := _skipped_command(w)) is not None:
            repeated.setdefault(command, []).append((w, keys))
        else:
            by_field.setdefault(keys[0], []).append((_what_was_lost(w), w.text or None))
    for command, found in repeated.items():
        w, keys = found[0]
        others = list(dict.fromkeys(k for _, ks in found[1:] for k in ks if k != keys[0]))
        if not others:  # one field: each skip a cause of its own on it
            for x, ks in found:
                by_field.setdefault(ks[0], []).append((_what_was_lost(x), x.text or None))
            continue
        lines = ", ".join(dict.fromkeys(str(x.line) for x, _ in found if x.line))
        by_field.setdefault(keys[0], []).append((
            f"the conversion skipped {command} (a command no file here defines) at {len(found)} places of the sheet"
            f"{f' (lines {lines})' if lines else ''}, next to this field's text and to {', '.join(others)}'s: "
            "one cause: give the file that defines it (beside the sheet, or --tex-root) and run again, or compare "
            "these fields with the sheet and keep them if nothing is missing", "\n".join(x.text for x, _ in found)))
    order = {key: i for i, (key, _) in enumerate(fields)}
    flags = _undefined_flags(dict(sorted(undefined.items(), key=lambda kv: order.get(kv[0], len(order)))))
    for key, causes in by_field.items():
        reasons = list(dict.fromkeys(r for r, _ in causes))
        lost = [a for _, a in causes if a]
        flags.append(Flag(field=key, kind="conversion_loss", reason="; ".join(reasons),
                          a="\n".join(dict.fromkeys(lost)) or None))
    return flags


def _undefined_flags(undefined: dict[str, list[str]]) -> list[Flag]:
    """``conversion_loss`` flags for maths commands no file defines (``undefined``: field key →
    the command names its maths uses, the keys in the set's field order), one cause, one flag per question: every
    command its fields use is named in one flag, on the first of its fields that uses any, with the
    other fields each command is in (a style file left out makes every field using its macros red
    source: one file to give, not a flag per part or per macro). ``a`` holds the commands, one a
    line (:func:`tasks.write.katex.katex_flags` drops the question's spans failing only on them).
    The fields of one question share a key's first segment (``q3.main_text``, ``q3.p2.content``)."""
    by_question: dict[str, dict[str, list[str]]] = {}
    first: dict[str, str] = {}
    for key, commands in undefined.items():
        for name in dict.fromkeys(commands):
            first.setdefault(key.split(".")[0], key)
            by_question.setdefault(key.split(".")[0], {}).setdefault(name, []).append(key)
    flags = []
    for question, names in by_question.items():
        groups: dict[tuple[str, ...], list[str]] = {}
        for name, keys in names.items():
            groups.setdefault(tuple(keys), []).append(name)
        if len(groups) == 1:
            (keys, group), = groups.items()
            also = f" (in this field and in {', '.join(keys[1:])}: one cause)" if len(keys) > 1 else ""
            uses = f"{', '.join(group)}, which no file here defines (a class or package we do not have){also}"
        else:
            def fields(keys: tuple[str, ...]) -> str:
                named = ["this field" if k == first[question] else k for k in keys]
                return ", ".join(named)
            uses = " and ".join(f"{', '.join(group)} (in {fields(keys)})" for keys, group in groups.items())
            uses += ", which no file here defines (a class or package we do not have): one cause"
        flags.append(Flag(field=first[question], kind="conversion_loss", a="\n".join(names), reason=(
            f"the maths uses {uses}, so the platform shows it as red source: give the file that defines it (beside "
            "the sheet, or --tex-root) and run again, or write the maths out with a note")))
    return flags
