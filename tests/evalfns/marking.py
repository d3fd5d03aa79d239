"""The boxes we write against the author's, marked by the platform's own functions (issue 26):
what ``tests/test_platform_marking.py`` asserts and ``tests/benchmarks/bench_platform.py``
prints.

For every pair (our box, the author's box of the same part), three checks:

1. our box accepts its own answer;
2. the author's answer and ours are judged equal both ways, under the author's settings (its
   function, ``gradeParams``, input symbols) and under ours;
3. each probe, a response a student would type (within or past the author's tolerance, with
   the author's aliases), is marked by our box as the author's box marks it, and as the probe
   says the author's marks it (so a probe that tests nothing is caught); a probe the author's
   function marks wrong is matched by none of the author's correct feedback cases (which the
   platform consults only then);
4. each of the author's own test responses (the export's ``tests``) is marked by our box as by
   the author's (their function's mark, whatever the author expected of it).

Our boxes are made as a run makes them offline (:func:`tasks.boxes.propose.propose`, the
sheet's own answers) and written by in2lambda (:func:`tasks.write.in2lambda.write_with_in2lambda`),
then read back as JSON: what is checked is what the platform would import.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from schemas.sheet import Part, Question, SheetSet
from tasks.boxes.propose import boxes_of, eligible_parts, propose
from tasks.check.compare import ordered, question_files, read_export_files
from tasks.write.in2lambda import default_title, write_with_in2lambda
from tests.evalfns import area_params, evaluate
from tests.scripted import ScriptedBackend

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
ME2_REPLY = CORPUS / "me2" / "replies" / "route-a.json"
ME2_EXPORT = CORPUS / "me2" / "export" / "set_Introduction"


@dataclass(frozen=True)
class Probe:
    """A response to part ``key`` of set ``where``, and whether the author's box accepts it."""

    where: str
    key: str
    response: str | list
    author_accepts: bool


ME2_PROBES = [
    # tolerance: 0.106 kg, 30 kg/s, 30 N within 5 %; n0 = 2.65e25 m^-3 within 10 %
    Probe("ME2", "q1.p1", "0.105 kg", True), Probe("ME2", "q1.p1", "0.11 kg", True),
    Probe("ME2", "q1.p1", "106 g", True), Probe("ME2", "q1.p1", "0.1 kg", False),
    Probe("ME2", "q1.p1", "0.112 kg", False),
    Probe("ME2", "q2.p1", "31 kg/s", True), Probe("ME2", "q2.p1", "30000 g/s", True),
    Probe("ME2", "q2.p1", "32 kg/s", False),
    Probe("ME2", "q2.p2", "29 N", True), Probe("ME2", "q2.p2", "31.4 N", True), Probe("ME2", "q2.p2", "28 N", False),
    Probe("ME2", "q4.p1", "2.5e25 m^(-3)", True), Probe("ME2", "q4.p1", "2.9e25 m^(-3)", True),
    Probe("ME2", "q4.p1", "2.4e25 m^(-3)", True), Probe("ME2", "q4.p1", "3e25 m^(-3)", False),
    # aliases: the author's u for U, r for R, Rho, Pi (q3.p1), and answers that are wrong
    Probe("ME2", "q3.p1", "(pi/6)*rho*u^2*R^2", True), Probe("ME2", "q3.p1", "(pi/6)*rho*U^2*r^2", True),
    Probe("ME2", "q3.p1", "(pi/6)*Rho*U^2*R^2", True), Probe("ME2", "q3.p1", "(Pi/6)*rho*U^2*R^2", True),
    Probe("ME2", "q3.p1", "pi/6*RHO*u^2*r^2", True), Probe("ME2", "q3.p1", "(π/6)*ρ*U^2*R^2", True),
    Probe("ME2", "q3.p1", "(pi/6)*rho*U^2*R^3", False),
    Probe("ME2", "q3.p2", "(pi/6)*rho*u^3*R^2", True), Probe("ME2", "q3.p2", "(PI/6)*Rho*U^3*R^2", True),
    Probe("ME2", "q3.p2", "(pi/6)*rho*U^2*R^2", False), Probe("ME2", "q3.p2", "pi*rho*U^3*R^2", False),
    # multiple choice: another option
    Probe("ME2", "q5.p1", [True, False, False, False], False),
    Probe("ME2", "q5.p3", [False, False, False, True, False, False], False),
]
"""ME2's probes: 26 of tolerance and aliases (18 the author's boxes accept, 8 not), 2 of multiple choice."""

ME2_DIFFERENCES = [
    (Probe("ME2", "q3.p2", "(pi/6)*rho*U^3*r^2", False),
     "the author gave q3.p2 no symbol R (q3.p1 has R with the alias r), so its box marks r wrong there; "
     "ours, by one rule for both parts, accepts it"),
    (Probe("ME2", "q4.p1", "2.65e19 cm^(-3)", False),
     "comparePhysicalQuantities, the author's, applies a prefix after the power (its user.md: 10*cm**2 is "
     "10*10^-2 m^2), so cm^(-3) is 10^-2 m^-3; compareExpressions, ours, reads (cm)^-3"),
]
"""Where our box marks otherwise than the author's, each with the reason: ``author_accepts`` is
the author's mark; ours is the other."""


def _area(function: str, kind: str, answer: str, params: dict, symbols: tuple = ()) -> dict:
    return {"evaluationFunctionName": function, "gradeParams": params,
            "inputSymbols": [{"symbol": f"${tex}$", "code": code, "aliases": list(aliases), "isVisible": True}
                             for code, tex, aliases in symbols],
            "response": {"responseInput": {"responseType": kind, "answer": answer}}, "cases": []}


OWN = [  # (question, the box an author would write for its one part), small cases of our own
    (Question(title="g", parts=[Part(content="Give $g$ to 3 s.f.",
                                     answer="$$g=9.81 \\mathrm{~m} / \\mathrm{s}^{2}$$")]),
     _area("compareExpressions", "NUMERIC_UNITS", "9.81 m/s^2", {"physical_quantity": True, "rtol": 0.005})),
    (Question(title="P", parts=[Part(content="Find the power $P$ to within ±2 %.", answer="$P=1.5 \\mathrm{~kW}$")]),
     _area("comparePhysicalQuantities", "NUMERIC_UNITS", "1.5 kW", {"rtol": 0.02, "strict_syntax": False})),
    (Question(title="x", parts=[Part(content="Find the ratio $x$ to within 0.01.", answer="$x=0.35$")]),
     _area("compareExpressions", "NUMERIC_UNITS", "0.35", {"physical_quantity": True, "atol": 0.01})),
    (Question(title="stress", main_text="A bar of cross-section $A_0$ carries a force $F$.",
              parts=[Part(content="Find the stress $\\sigma$.", answer="$\\sigma=\\frac{F}{A_{0}}$")]),
     _area("symbolicEqual", "MATH_SINGLE_LINE", "F/A_0", {"strict_syntax": False},
           (("F", "F", ["f"]), ("A_0", "A_{0}", ["A0", "A_{0}"])))),
]

OWN_PROBES = [
    Probe("own", "q1.p1", "9.80 m/s^2", True), Probe("own", "q1.p1", "981 cm/s^2", True),
    Probe("own", "q1.p1", "9.7 m/s^2", False), Probe("own", "q1.p1", "9.86 m/s^2", False),
    Probe("own", "q2.p1", "1.52 kW", True), Probe("own", "q2.p1", "1500 W", True),
    Probe("own", "q2.p1", "1.54 kW", False),
    Probe("own", "q3.p1", "0.355", True), Probe("own", "q3.p1", "0.342", True), Probe("own", "q3.p1", "0.37", False),
    Probe("own", "q4.p1", "F/A0", True), Probe("own", "q4.p1", "f/A_0", True), Probe("own", "q4.p1", "F/A", False),
]


def areas_of(folder: Path) -> dict[str, list[dict]]:
    """The response areas of a set's JSON (a ``set_*`` folder) by part key (``q2.p1``)."""
    out: dict[str, list[dict]] = {}
    for qi, q in enumerate(question_files(read_export_files(folder), str(folder))):
        for pi, p in enumerate(ordered(q.get("parts"))):
            if p.get("responseAreas"):
                out[f"q{qi + 1}.p{pi + 1}"] = ordered(p["responseAreas"])
    return out


def written_areas(questions: SheetSet, name: str, tmp: Path) -> dict[str, list[dict]]:
    """The areas a run writes offline for ``questions``: each part's boxes as the sheet states
    them (no model), written by in2lambda into ``tmp`` and read back."""
    written = SheetSet([q.model_copy(update={"title": default_title(q.title, i), "parts": q.normalised_parts()})
                        for i, q in enumerate(questions.root)])
    parts = [propose(ScriptedBackend([]), p, qi, pi) for qi, pi, p in eligible_parts(written)]
    write_with_in2lambda(written, name, [[] for _ in written.root], boxes_of(parts), tmp)
    return areas_of(tmp / name)


def pairs(tmp: Path) -> dict[str, dict[str, tuple[dict, dict]]]:
    """``{"ME2": {key: (ours, the author's)}, "own": {...}}``, one pair per part with one box
    each side (ME2's q4.p2 has two in the export and none of ours: the sheet states neither)."""
    me2 = SheetSet.model_validate(json.loads(ME2_REPLY.read_text(encoding="utf-8")))
    ours_me2, theirs_me2 = written_areas(me2, "ME2", tmp / "me2"), areas_of(ME2_EXPORT)
    ours_own = written_areas(SheetSet([q for q, _ in OWN]), "Own", tmp / "own")
    theirs_own = {f"q{i}.p1": [area] for i, (_, area) in enumerate(OWN, 1)}
    out: dict[str, dict[str, tuple[dict, dict]]] = {}
    for where, ours, theirs in (("ME2", ours_me2, theirs_me2), ("own", ours_own, theirs_own)):
        out[where] = {k: (ours[k][0], theirs[k][0]) for k in sorted(set(ours) & set(theirs))
                      if len(ours[k]) == 1 and len(theirs[k]) == 1}
    return out


@dataclass
class Outcome:
    """What the functions said: one line per failed check (empty lists: all held) and counts."""

    boxes: int = 0
    probes: int = 0
    own_answer_refused: list[str] = field(default_factory=list)
    not_equal: list[str] = field(default_factory=list)
    probe_differs: list[str] = field(default_factory=list)
    probe_unexpected: list[str] = field(default_factory=list)
    case_remarks: list[str] = field(default_factory=list)
    author_tests: int = 0
    author_tests_differ: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)


def _answer(area: dict):
    return area["response"]["responseInput"]["answer"]


def mark(all_pairs: dict[str, dict[str, tuple[dict, dict]]], probes: list[Probe]) -> Outcome:
    """Run the three checks (module doc) and :data:`ME2_DIFFERENCES` through the functions, one
    subprocess per function for all its calls; ``differences`` lists each of them that did not
    come out as written there."""
    queue: dict[str, list[dict]] = defaultdict(list)

    def ask(area: dict, response, answer=None) -> tuple[str, int]:
        name = area["evaluationFunctionName"]
        queue[name].append({"response": response, "answer": _answer(area) if answer is None else answer,
                            "params": area_params(area)})
        return name, len(queue[name]) - 1

    checks = []  # (kind, description, handle, wanted)
    for where, by_key in all_pairs.items():
        for key, (ours, theirs) in by_key.items():
            mine, author = _answer(ours), _answer(theirs)
            checks.append(("own", f"{where} {key}: our box on its own answer {mine!r}", ask(ours, mine), True))
            for side, area in (("the author's", theirs), ("our", ours)):
                checks.append(("equal", f"{where} {key}: ours {mine!r} against the author's {author!r} under {side} "
                               "settings", ask(area, mine, author), True))
                checks.append(("equal", f"{where} {key}: the author's {author!r} against ours {mine!r} under {side} "
                               "settings", ask(area, author, mine), True))
    probe_handles = []
    for p, why in [(p, None) for p in probes] + ME2_DIFFERENCES:
        ours, theirs = all_pairs[p.where][p.key]
        cases = [c for c in theirs.get("cases") or [] if c.get("isCorrect")]
        probe_handles.append((p, why, ask(ours, p.response), ask(theirs, p.response),
                              [(c["answer"], ask(theirs, p.response, c["answer"])) for c in cases]))
    test_handles = [(f"{where} {key} the author's test {t['payload']!r}", ask(ours, t["payload"]),
                     ask(theirs, t["payload"]))
                    for where, by_key in all_pairs.items() for key, (ours, theirs) in by_key.items()
                    for t in theirs.get("tests") or [] if isinstance(t, dict) and "payload" in t]
    results = {name: evaluate(name, calls) for name, calls in queue.items()}

    def said(handle: tuple[str, int]) -> bool | str:
        r = results[handle[0]][handle[1]]
        return r.get("is_correct", r.get("error", "?"))

    out = Outcome(boxes=sum(len(v) for v in all_pairs.values()), probes=len(probes), author_tests=len(test_handles))
    out.author_tests_differ = [f"{text}: ours {said(mine)}, the author's {said(theirs)}"
                               for text, mine, theirs in test_handles if said(mine) != said(theirs)]
    for kind, text, handle, wanted in checks:
        if said(handle) is not wanted:
            (out.own_answer_refused if kind == "own" else out.not_equal).append(f"{text}: {said(handle)}")
    for p, why, mine, theirs, cases in probe_handles:
        line = f"{p.where} {p.key} {p.response!r}: ours {said(mine)}, the author's {said(theirs)}"
        if why is not None:
            if said(theirs) is not p.author_accepts or said(mine) is not (not p.author_accepts):
                out.differences.append(f"{line}; expected the author's {p.author_accepts} and ours the other: {why}")
            continue
        if said(mine) != said(theirs):
            out.probe_differs.append(line)
        if said(theirs) is not p.author_accepts:
            out.probe_unexpected.append(f"{line} (the probe says {p.author_accepts})")
        if said(theirs) is False:
            out.case_remarks += [f"{line}: matches the author's case {a!r}" for a, h in cases if said(h) is True]
    return out


RULE_CLAIMS = [  # (function, response, answer, params, mark): the README's claims on the platform's rules
    ("compareExpressions", "2x", "2*x", {}, True),  # strict_syntax defaults to false: * may be left out
    ("compareExpressions", "x^2", "x**2", {}, True),  # ... and ^ is a power
    ("compareExpressions", "2x", "2*x", {"strict_syntax": True}, False),
    ("compareExpressions", "m(g+a)", "m*(g+a)", {}, True),
    ("symbolicEqual", "2x", "2*x", {}, False),  # symbolicEqual's strict_syntax defaults to true
    ("symbolicEqual", "2*x", "2*x", {}, True),
    ("comparePhysicalQuantities", "2x", "2*x", {}, False),  # and comparePhysicalQuantities'
    ("compareExpressions", "F/2m", "(F/2)*m", {}, True),  # convention: equal_precedence by default
    ("compareExpressions", "F/2m", "F/(2*m)", {}, False),
    ("compareExpressions", "F/2m", "F/(2*m)", {"convention": "implicit_higher_precedence"}, True),
    ("compareExpressions", "e^x", "exp(x)", {}, False),  # e is Euler's number only with elementary_functions
    ("compareExpressions", "e^x", "exp(x)", {"elementary_functions": True}, True),
    ("compareExpressions", "ln(x)", "log(x)", {}, True),
    ("compareExpressions", "pi", "3.14159265358979", {"rtol": 1e-9}, True),  # pi is the constant
    ("compareExpressions", "12 Nm", "12 N*m", {"physical_quantity": True}, True),  # Nm is the newton metre
    ("comparePhysicalQuantities", "12 Nm", "12 N*m", {"strict_syntax": False}, True),
    ("compareExpressions", "1 bar", "100000 Pa", {"physical_quantity": True}, True),
    ("compareExpressions", "0.105 kg", "0.106 kg", {"physical_quantity": True}, False),  # 0.5 % for 3 figures
    ("compareExpressions", "0.1055 kg", "0.106 kg", {"physical_quantity": True}, True),
]
"""Each claim ``tasks/README.md``'s rule table and :mod:`tasks.boxes.settings` make about how
the platform's functions read an answer, as a call and the mark it must get."""


def claims_not_held() -> list[str]:
    """The :data:`RULE_CLAIMS` the functions do not bear out, one line each (empty: all held)."""
    by_fn: dict[str, list[int]] = defaultdict(list)
    for i, (fn, *_rest) in enumerate(RULE_CLAIMS):
        by_fn[fn].append(i)
    said: dict[int, dict] = {}
    for fn, indices in by_fn.items():
        calls = [{"response": RULE_CLAIMS[i][1], "answer": RULE_CLAIMS[i][2],
                  "params": {**RULE_CLAIMS[i][3], "symbols": {}}} for i in indices]
        said.update(zip(indices, evaluate(fn, calls)))
    return [f"{fn} {response!r} against {answer!r} {params}: {said[i]}, the claim {wanted}"
            for i, (fn, response, answer, params, wanted) in enumerate(RULE_CLAIMS)
            if said[i].get("is_correct") is not wanted]
