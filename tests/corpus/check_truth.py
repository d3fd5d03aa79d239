#!/usr/bin/env python3
"""Check every hand-counted truth.json of this corpus against its sheet.

Usage: python3 tests/corpus/check_truth.py [FOLDER ...]
  With no argument every folder beside this script that holds a truth.json is checked.

For each truth file it checks that the file parses and has the shape described in
tests/corpus/README.md (set, questions_file, solutions_file, solutions, notes, questions
with number, title, main_text_starts and parts with label, content_starts, has_answer,
has_worked_solution, multiple_choice_options), that the files it names exist, and that
every non-empty main_text_starts / content_starts, folded the way the shared truthscore
tool folds text (the names of \\textbf, \\emph, \\textit, \\textrm, \\text dropped, then
lower-case letters and digits only), occurs in the folded questions file, each one after
the previous one (sheet order). A .docx questions file is read as the text of its
paragraphs (word/document.xml), so Word sheets are checked the same way.

Prints one line per problem and a last line "N truth files, M problems"; exits 1 when
any problem was found, 0 otherwise. Standard library only, so CI can run it as is.
"""
from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = {"set", "questions_file", "solutions_file", "solutions", "notes", "questions"}
QUESTION = {"number", "title", "main_text_starts", "parts"}
PART = {"label", "content_starts", "has_answer", "has_worked_solution", "multiple_choice_options"}


def fold(s: str) -> str:
    """Fold as ../shared/tools/truthscore.py does: macro names dropped, [a-z0-9] kept."""
    s = re.sub(r"\\(textbf|emph|textit|textrm|text)\b", "", s or "")
    return re.sub(r"[^a-z0-9]", "", s.lower())


def sheet_text(path: Path) -> str:
    """The text a truth quotes: a .docx's paragraphs (the ``w:t`` and ``m:t`` runs of word/document.xml,
    one line per ``w:p``), any other file as UTF-8 text. Raises OSError when it cannot be read."""
    if path.suffix.lower() != ".docx":
        return path.read_text(encoding="utf-8", errors="replace")
    try:
        with zipfile.ZipFile(path) as z:
            xml = z.read("word/document.xml").decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, KeyError) as exc:
        raise OSError(f"{path.name} is not a Word document: {exc}") from exc
    paras = re.split(r"</w:p>", xml)
    return "\n".join("".join(re.findall(r"<[wm]:t(?:\s[^>]*)?>([^<]*)</[wm]:t>", para)) for para in paras)


def check(folder: Path) -> list[str]:
    """Return the problems found in one folder's truth.json (empty when it is right)."""
    where = folder.name
    try:
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{where}: truth.json does not parse: {exc}"]
    problems: list[str] = []
    if set(truth) != TOP:
        problems.append(f"{where}: top-level keys {sorted(truth)} are not {sorted(TOP)}")
    if truth.get("set") != where:
        problems.append(f"{where}: set is {truth.get('set')!r}, not the folder name")
    if truth.get("solutions") not in ("separate", "inline", "none"):
        problems.append(f"{where}: solutions is {truth.get('solutions')!r}")
    sheet = folder / str(truth.get("questions_file"))
    if not sheet.is_file():
        return problems + [f"{where}: questions_file {sheet.name} is missing"]
    sol = truth.get("solutions_file")
    if sol is not None and not (folder / sol).is_file():
        problems.append(f"{where}: solutions_file {sol} is missing")
    if (sol is None) != (truth.get("solutions") != "separate"):
        problems.append(f"{where}: solutions_file and solutions disagree")
    try:
        text = fold(sheet_text(sheet))
    except OSError as exc:
        return problems + [f"{where}: {exc}"]
    cursor = 0
    for q in truth.get("questions", []):
        if set(q) != QUESTION:
            problems.append(f"{where}: question {q.get('number')!r} keys {sorted(q)}")
            continue
        parts = q["parts"]
        if not parts:
            problems.append(f"{where}: question {q['number']!r} has no parts")
        if len(parts) == 1 and parts[0].get("label") == "" and parts[0].get("content_starts") != "":
            problems.append(f"{where}: question {q['number']!r}: an unlabelled part must have no content_starts")
        starts = [("main text", q["main_text_starts"])]
        for p in parts:
            if set(p) != PART:
                problems.append(f"{where}: question {q['number']!r} part keys {sorted(p)}")
                continue
            if not isinstance(p["has_answer"], bool) or not isinstance(p["has_worked_solution"], bool):
                problems.append(f"{where}: question {q['number']!r} part {p['label']!r}: flags must be booleans")
            if not isinstance(p["multiple_choice_options"], int) or p["multiple_choice_options"] < 0:
                problems.append(f"{where}: question {q['number']!r} part {p['label']!r}: bad option count")
            if truth.get("solutions") == "none" and (p["has_answer"] or p["has_worked_solution"]):
                problems.append(f"{where}: question {q['number']!r} part {p['label']!r}: a solution on a sheet with none")
            starts.append((f"part {p['label']!r}", p["content_starts"]))
        for what, s in starts:
            key = fold(s)
            if not key:
                continue
            at = text.find(key, cursor)
            if at < 0:
                earlier = text.find(key)
                how = "out of sheet order" if earlier >= 0 else "not in the sheet"
                problems.append(f"{where}: question {q['number']!r} {what}: {s!r} is {how}")
                continue
            cursor = at + len(key)
    return problems


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv] or sorted(p.parent for p in HERE.glob("*/truth.json"))
    problems: list[str] = []
    for folder in folders:
        problems += check(folder.resolve())
    for line in problems:
        print(line)
    print(f"{len(folders)} truth files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
