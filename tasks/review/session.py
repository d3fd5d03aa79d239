"""The review page's state: one run's output folder, each decision applied at once, undo.

A :class:`ReviewSession` answers the page (:mod:`tasks.review.page`): :meth:`~ReviewSession.view`
is one flag as the page shows it (rendered by :mod:`tasks.review.render`, placed in the sheet by
:mod:`tasks.review.lines`); :meth:`~ReviewSession.decide` makes one decision
(:mod:`tasks.review.decisions`) and applies it at once (:func:`tasks.review.apply.apply_decisions`:
``review.json`` written, the set rebuilt), the same record the terminal, ``--decisions`` and the
Prefect pause write; :meth:`~ReviewSession.undo` takes the last decision of this session back,
restoring what the flag had before (:func:`tasks.review.apply.rebuild`). The folder is read
again for every request, so a decision made elsewhere meanwhile is seen.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from schemas.review import Decision, ReviewEntry, ReviewForm
from schemas.sheet import iter_fields
from tasks.llm import Backend, NoBackend
from tasks.review.apply import apply_decisions, decide_form, media_files, rebuild
from tasks.review.decisions import get_field
from tasks.review.form import ReviewRun, flag_entry, load_run
from tasks.review.lines import Document, place_flag, place_text
from tasks.review.render import diff_marks, render_field

LABELS = {"A": "Take route A", "B": "Take route B", "keep": "Keep as it is", "source": "Use the selected passage",
          "note": "Correct an equation", "page": "Take the page's reading"}
"""The page's button for each choice."""

KEYS = {"A": "a", "B": "b", "keep": "k", "source": "s", "note": "n", "page": "p"}
"""The keyboard shortcut of each choice (the page also takes ``u`` for undo, ``←``/``→`` to move)."""

HINTS = {
    "disputed": "Route A and route B read this field differently. Compare them with the sheet (its lines are "
                "highlighted on the right) and take the one that matches it, or select the passage in the sheet.",
    "not_verbatim": "A reading of this field is not a quote of the sheet. Take the route that copies the sheet, or "
                    "select the passage in the sheet.",
    "structural": "The routes cut this part of the sheet differently. Check that the field holds what the sheet has.",
    "stray_minus": "A minus sign stands alone at the start or end of the maths, often a line break of the sheet read "
                   "as a minus. Check it against the sheet: keep it if the sheet has it.",
    "uncovered": "These lines of the sheet are in no field, so the set leaves them out. Keep if they do not belong "
                 "in the set.",
    "conversion_loss": "The conversion lost something here. Check the field against the sheet.",
    "area": "No answer box holds this part's answer. Keep to accept the part as it is.",
    "structure": "The questions or parts here do not follow the sheet's own numbering. Check the field against the "
                 "sheet.",
    "katex": "The platform cannot show this maths (it would appear as red source). Check it against the sheet.",
    "ocr": "The PDF's page shows something other than the OCR read here (the crop of the page is below). Take the "
           "page's reading if the crop bears it out, else keep the field as it is.",
}
"""What a person does about a flag of each kind, shown under its reason."""

RELOAD = ("the set was built again since this page loaded (a document run into the same --out), so this "
          "page shows another build's flags: reload the page")
"""The one line a decision (or undo) made on an older build gets (attack14 C36: the old tab's decision
was applied to the new build's flag of the same number)."""

SAID = {"A": "route A's text taken", "B": "route B's text taken", "keep": "kept as it is",
        "source": "the selected passage of the sheet taken", "note": "the equation corrected from your note",
        "page": "the page's reading taken"}


@dataclass
class ReviewSession:
    """One review page's state: ``out`` the output folder; ``backend`` answers equation notes
    (``None``: no model configured, so the page offers no note); ``undone`` the decisions
    of this session, last last, each with what its flag held before (``None``: open) and the
    build it was made on (:attr:`tasks.review.form.ReviewRun.build`)."""

    out: Path
    backend: Backend | None = None
    undone: list[tuple[int, Decision | None, Decision, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    roots: list[str] = field(default_factory=list)
    """A deployment's roots (:attr:`tasks.review.form.ReviewRun.roots`; ``[]``: none)."""

    def run(self) -> ReviewRun:
        """The output folder read now (:func:`tasks.review.form.load_run`; raises its
        :class:`InputError`)."""
        return load_run(self.out, self.roots)

    def choices(self, entry: ReviewEntry) -> list[str]:
        """The choices the page offers for ``entry``: those the flag allows, a note only
        when a model is configured."""
        return [c for c in entry.choices if c != "note" or self.backend is not None]

    def overview(self) -> dict:
        """The run as the page opens it: ``set_name``, ``flags`` (per flag its ``n``,
        ``field``, ``kind`` and ``choice`` decided or ``None``), ``first`` the first flag no
        decision resolved (else 1; 0 when the run has no flag), ``documents`` the converted
        sheet (``name``, ``lines``), ``zip`` whether the set's zip is there."""
        run = self.run()
        flags = []
        for n, f in enumerate(run.record.flags, 1):
            d = run.decision(n)
            flags.append({"n": n, "field": f.field, "kind": f.kind,
                          "choice": d.choice if d is not None and d.resolved else None})
        first = next((f["n"] for f in flags if f["choice"] is None), 1 if flags else 0)
        docs = [{"name": d.name, "lines": d.text.splitlines()} for d in self._documents(run)]
        return {"set_name": run.record.set_name, "build": run.build, "flags": flags, "first": first, "documents": docs,
                "zip": self.zip_path(run).is_file(), "model": self.backend is not None,
                "keys": KEYS, "labels": LABELS}

    def _documents(self, run: ReviewRun) -> list[Document]:
        names = ["source.md", "solutions.md"][: len(run.sources)]
        return [Document.of(name, text) for name, text in zip(names, run.sources)]

    def image_urls(self, run: ReviewRun) -> dict[str, str]:
        """Each image link the run kept → the page's URL for it (``image/N``)."""
        return {link: f"image/{i}" for i, link in enumerate(sorted(media_files(run)))}

    def image_file(self, i: int) -> Path | None:
        """The file of image ``i`` of :meth:`image_urls`, or ``None``."""
        run = self.run()
        files = media_files(run)
        links = sorted(files)
        return Path(files[links[i]]) if 0 <= i < len(links) else None

    def crop_file(self, n: int, run: ReviewRun | None = None) -> Path | None:
        """The page crop of flag ``n`` (an ``ocr`` flag's ``spot.crop`` under the run's
        ``pages/``, a plain file name only), or ``None``."""
        from tasks.write.manifest import plain_name

        run = run or self.run()
        if not 1 <= n <= len(run.record.flags):
            return None
        spot = run.record.flags[n - 1].spot
        if spot is None or not plain_name(spot.crop):
            return None
        path = run.out / "pages" / spot.crop
        return path if path.is_file() and not path.is_symlink() and not (run.out / "pages").is_symlink() else None

    def zip_path(self, run: ReviewRun | None = None) -> Path:
        """The set's zip in the output folder (rebuilt after every decision)."""
        run = run or self.run()
        return run.out / f"{run.record.set_name}.zip"

    def view(self, n: int) -> dict:
        """Flag ``n`` (1-based) as the page shows it: ``n``, ``total``, ``field``, ``kind``,
        ``reason``, ``hint`` (what a person does about its kind); ``decided`` (the resolving decision recorded: its ``choice`` and ``at``)
        or ``None``; ``choices`` (``key``, ``label``, ``shortcut``); ``shown`` the field's
        text now rendered as the platform shows it (``shown_what`` says what it is);
        ``routes`` (``a``/``b`` the two routes' texts, rendered with their differences
        marked), ``readings`` (an ``ocr`` flag: the OCR's and the page's readings as text,
        the page's number and document) with ``crop`` (the URL of the page cropped around
        it, or ``None``), or ``passage`` (the passage the flag is about, rendered); ``place`` where in
        the sheet it came from (``document`` index, ``lines`` ranges, ``whole``) or
        ``None``; ``also`` the line ranges of the other route's reading not in ``place``;
        ``equations`` in the field. Raises ``IndexError`` for no such flag."""
        run = self.run()
        entry = flag_entry(run, n)
        flag = run.record.flags[n - 1]
        now = run.current()
        images = self.image_urls(run)
        text = get_field(now, flag.field)
        d = run.decision(n)
        out: dict = {"n": n, "build": run.build, "total": len(run.record.flags), "field": flag.field, "kind": flag.kind,
                     "reason": flag.reason, "hint": HINTS.get(flag.kind, ""), "equations": entry.equations,
                     "decided": {"choice": d.choice, "at": d.at.isoformat()} if d is not None and d.resolved else None,
                     "choices": [{"key": c, "label": LABELS[c], "shortcut": KEYS[c]} for c in self.choices(entry)]}
        whole = _whole(now, flag.field) if text is None else None
        if text is not None:
            out["shown"], out["shown_what"] = render_field(text, images), "the field as the platform will show it"
        elif whole:
            out["shown"], out["shown_what"] = render_field(whole[1], images), whole[0]
        else:
            out["shown"], out["shown_what"] = "", "this flag is on no single text field"
        if flag.routes:
            ma, mb = diff_marks(flag.a, flag.b)
            out["routes"] = {"a": render_field(flag.a, images, ma) if flag.a is not None else None,
                             "b": render_field(flag.b, images, mb) if flag.b is not None else None}
        elif flag.kind == "ocr":
            out["readings"] = {"ocr": flag.a or "", "page": flag.b or "",
                               "page_number": flag.spot.page if flag.spot else None,
                               "document": flag.spot.document if flag.spot else ""}
            out["crop"] = f"crop/{n}" if self.crop_file(n, run) is not None else None
        elif flag.a:
            out["passage"] = render_field(flag.a, images)
        qi = _question(flag.field)
        question = [t for k, t in iter_fields(now) if qi is not None and k.startswith(f"q{qi}.") and t]
        docs = self._documents(run)
        place = place_flag(docs, flag.field, [text, whole[1] if whole else None, entry.current, flag.a, flag.b], question)
        out["place"] = None if place is None else {"document": place.document, "lines": place.lines,
                                                   "whole": place.whole}
        also: list[tuple[int, int]] = []
        for other in (flag.a, flag.b) if flag.routes and place is not None else ():
            there = place_text(docs, other, place.document) if other and other != text else None
            if there is not None and there.document == place.document:
                also += [r for r in there.lines if r not in place.lines]
        out["also"] = sorted(also)
        return out

    def decide(self, n: int, choice: str, passage: str = "", note: str = "", equation: int | None = None,
               build: str | None = None) -> dict:
        """Make and apply one decision on flag ``n``: ``{"ok": True, "said": …}`` once
        recorded and the set rebuilt, or ``{"ok": False, "said": why}`` when the choice is
        not offered, is incomplete or is refused (a passage not a whole quote of the sheet,
        a refused note, ``build`` not the folder's build now: the page was loaded on a set
        built again since, :data:`RELOAD`): then nothing is recorded. ``build`` ``None``: not
        checked (a caller in this process that read the folder itself; the page always sends
        one). Raises ``IndexError`` for no such flag, :class:`tasks.errors.InputError` when the
        folder cannot be written."""
        with self.lock:
            run = self.run()
            if build is not None and build != run.build:
                return {"ok": False, "stale": True, "said": f"flag {n}: not decided: {RELOAD}"}
            entry = flag_entry(run, n)
            if choice not in self.choices(entry):
                return {"ok": False, "said": f"flag {n}: {choice!r} is not a choice for this flag"}
            try:
                filled = ReviewEntry.model_validate({**entry.model_dump(), "choice": choice, "passage": passage,
                                                     "note": note, "equation": equation})
            except ValidationError as e:
                return {"ok": False, "said": str(e.errors()[0]["msg"]).removeprefix("Value error, ")}
            (d,) = decide_form(run, ReviewForm(set_name=run.record.set_name, entries=[filled]),
                               self.backend or NoBackend())
            if not d.resolved:
                return {"ok": False, "said": f"flag {n}: not taken: {d.reason}"}
            before = run.decision(n)
            apply_decisions(run, [d])
            self.undone.append((n, before, d, run.build))
            return {"ok": True, "n": n, "said": f"flag {n} of {len(run.record.flags)}: {SAID[choice]}; the set was "
                                                f"rebuilt (u: undo)"}

    def undo(self) -> dict:
        """Take back this session's last decision: the flag gets back the decision it had
        before (or is open again) and the set is rebuilt. ``{"ok": False, …}`` when there
        is nothing to undo."""
        with self.lock:
            if not self.undone:
                return {"ok": False, "said": "nothing to undo"}
            n, before, made, build = self.undone[-1]
            run = self.run()
            if build != run.build:  # its flag numbers are another build's: nothing of this session to take back
                self.undone.clear()
                return {"ok": False, "stale": True, "said": f"nothing undone: {RELOAD}"}
            self.undone.pop()
            record = [x for x in run.log.decisions if x.flag != n] + ([before] if before is not None else [])
            rebuild(run, record, [])
            state = f"back to {SAID[before.choice]}" if before is not None else "open again"
            return {"ok": True, "n": n, "said": f"flag {n}: {SAID[made.choice]} undone: {state}"}


def _whole(questions, key: str) -> tuple[str, str] | None:
    """For a flag on a part (``q2.p1``) or a question (``q2``): what the page shows of it
    (a heading, the markdown: the part's content and options, the question's main text)."""
    m = re.fullmatch(r"q([1-9]\d*)(?:\.p([1-9]\d*))?", key)
    if not m or int(m[1]) > len(questions.root):
        return None
    q = questions.root[int(m[1]) - 1]
    if m[2] is None:
        return "the question's main text as the platform will show it", q.main_text
    if int(m[2]) > len(q.parts):
        return None
    part = q.parts[int(m[2]) - 1]
    options = "\n".join(f"- {o}" for o in part.options)
    return ("the part as the platform will show it (its text and options)",
            "\n\n".join(t for t in (part.content, options) if t))


def _question(field_key: str) -> int | None:
    head = field_key.split(".", 1)[0]
    return int(head[1:]) if head.startswith("q") and head[1:].isdigit() else None

