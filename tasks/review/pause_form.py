"""The Prefect pause's form: the flags in the run's description, one choice per flag in the form.

A document run with ``review`` on pauses (:func:`flows.review.pause_for_review`) with the
input type :func:`pause_input` makes. The paused run's description (markdown, shown above the
form in the Prefect UI) holds every open flag with its context — field, kind, reason, both
routes' texts or the passage flagged — and the link to the review page the run serves
meanwhile (:mod:`tasks.review.page`). The form itself holds only the choice per flag, a
drop-down of the choices that flag allows that need no text (``A``, ``B``, ``page``, ``keep``, or
:data:`OPEN`): nothing in it is context a person could edit by mistake. A passage of the sheet
and an equation note need text: they are taken on the review page, which writes the same
``review.json``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, create_model

from schemas.review import ReviewEntry, ReviewForm

OPEN = "leave open"
"""The form's choice that decides nothing: the flag stays open."""

FORM_CHOICES = ("A", "B", "page", "keep")
"""The choices the form offers (those needing no text); a flag's own allowed ones only."""

SHOWN_CHARS = 600
"""A text longer than this is cut in the description (the review page shows it whole)."""


def field_name(flag: int) -> str:
    """The form's field for flag ``flag``: ``flag_3``."""
    return f"flag_{flag}"


def _fenced(text: str) -> list[str]:
    from tasks.write.fence import fenced  # the one fence of every markdown a run writes

    return [fenced(text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…")]


def description(form: ReviewForm, total: int, page_url: str | None, out: str) -> str:
    """The paused run's description (markdown): how to answer, the review page's link
    (``page_url``, without its token: every reader of the server's runs reads this; ``None``: no
    page served) and how its owner opens it, then per open flag its number of ``total``,
    field, kind, reason and texts."""
    lines = [f"## Review of {form.set_name}: {len(form.entries)} open flags of {total}", ""]
    if page_url:
        lines += [f"**[The review page]({page_url})**: each flag rendered, both readings side by side with "
                  "their differences marked, the sheet's own lines beside them; a passage of the sheet or a note "
                  "correcting an equation is taken there. Decisions on the page are saved at once; its Finish "
                  "button resumes this run. Its address needs a token only the run's owner holds: open it with "
                  f"`sheet2lambda review {out}` on the machine this run runs on (`--no-open` prints the address "
                  "with its token).", ""]
    lines += ["Or choose below, per flag, among the choices it allows (A: route A's text, B: route B's, page: the "
              f"page's reading in place of the OCR's, keep: the text the set holds now); *{OPEN}* keeps the flag for later (`sheet2lambda review {out}`).", ""]
    for e in form.entries:
        lines += [f"### flag {e.flag} of {total} · `{e.field}` · {e.kind}", "", e.reason, ""]
        if e.kind in ("disputed", "not_verbatim"):
            for label, text in (("Route A", e.a), ("Route B", e.b)):
                if text is not None:
                    lines += [f"**{label}**", ""] + _fenced(text) + [""]
        elif e.kind == "ocr":
            for label, text in (("The OCR read", e.a), ("The page shows", e.b)):
                if text is not None:
                    lines += [f"**{label}**", ""] + _fenced(text) + [""]
        elif e.a:
            lines += ["**The passage flagged**", ""] + _fenced(e.a) + [""]
        if e.current is not None and e.current not in (e.a, e.b):
            lines += ["**The set holds now**", ""] + _fenced(e.current) + [""]
    return "\n".join(lines)


def form_choices(entry: ReviewEntry) -> list[str]:
    """The form's choices for one flag: :data:`OPEN`, then those of :data:`FORM_CHOICES`
    the flag allows (:func:`tasks.review.decisions.choices_for`)."""
    return [OPEN] + [c for c in entry.choices if c in FORM_CHOICES]


def pause_input(form: ReviewForm, total: int, page_url: str | None, out: str):
    """The input type for Prefect's ``pause_flow_run(wait_for_input=…)``: a ``RunInput``
    with one field per open flag (:func:`field_name`), a ``Literal`` of
    :func:`form_choices` defaulting to :data:`OPEN` (the UI shows a drop-down), its title
    the flag's number and field; the description :func:`description`."""
    from prefect.input import RunInput

    fields = {}
    for e in form.entries:
        options = tuple(form_choices(e))
        fields[field_name(e.flag)] = (Literal[options], Field(  # type: ignore[valid-type]
            default=OPEN, title=f"flag {e.flag} of {total} · {e.field}",
            description=f"{e.kind}: choose {', '.join(options[1:]) or 'nothing here: use the review page'}"))
    model = create_model("ReviewChoices", __base__=RunInput, **fields)
    return model.with_initial_data(description=description(form, total, page_url, out))


def chosen(form: ReviewForm, response: dict) -> tuple[ReviewForm, list[str]]:
    """The :class:`ReviewForm` of what a person chose in the form: the entries whose field
    holds one of its flag's choices (other than :data:`OPEN`), and one line per field that
    holds something the flag does not allow (that flag stays open)."""
    picked, bad = [], []
    for e in form.entries:
        value = response.get(field_name(e.flag), OPEN)
        if value in (OPEN, None, ""):
            continue
        if value not in form_choices(e):
            bad.append(f"review     flag {e.flag} left open, its answer is not usable: {value!r} is not a choice "
                       f"for it ({', '.join(form_choices(e)[1:])})")
            continue
        picked.append(e.model_copy(update={"choice": value}))
    return form.model_copy(update={"entries": picked}), bad
