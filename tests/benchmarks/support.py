"""What the folder benchmark stands on: copies of corpus sheets, and a model stand-in.

Nothing here is a model result. The stand-in (:class:`DelayedBackend`) serves replies
built in advance, after a fixed delay per call, and counts its calls:

- route A: for ``me2/questions.md`` the real recorded reply (``me2/replies/route-a.json``);
  for every other sheet the reading of the library filter named in :data:`Original`
  (``read_and_pair``), with one field cut short (still a quote of the sheet) so that the two
  routes disagree on one field and adjudication is asked, as with a live model;
- the filter writer: the source of that library filter;
- adjudication: ``{"verdicts": []}``;
- a part's answer boxes (stages ``areas-q<i>-p<j>``, logged as stage ``areas``):
  ``{"boxes": []}`` (no box proposed).

These last two replies are the same for every sheet, and their requests need not name one
(adjudication's quotes the disputed fields and a few lines around them, a part's boxes only
the part): the stand-in answers them whatever the request holds.

Every copy of a sheet carries a marker (``bench-<tag>-<index>``) at its top, invisible to
the routes (an HTML comment in markdown; an empty ``\\hypertarget`` in LaTeX, which pandoc
turns into an empty div), so that copies have distinct content (no cache collapses them)
and the stand-in can tell from a request which sheet it is about.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
"""``../shared/corpus`` beside the checkout (read in place, never copied into the repo)."""

LIBRARY = ROOT / "filters" / "library"


@dataclass(frozen=True)
class Original:
    """A corpus sheet: ``source`` and ``solutions`` relative to the corpus; ``filter`` the
    library filter that :func:`tasks.read.library_choice.choose_library_filter` picks for it."""

    source: str
    solutions: str | None = None
    filter: str = "latex"


ME2 = Original("me2/questions.md", "me2/questions_solutions.md", "mathpix")

FOLDER_SHEETS = (
    Original("ci-tex/sheet-1.tex"),
    Original("ci-tex/sheet-2.tex", "ci-tex/sheet-2-solutions.tex"),
    Original("ci-tex/sheet-3.tex"),
    Original("ci-sheet/sheet.md", "ci-sheet/sheet_solutions.md"),
    Original("fixtures/paired.md", "fixtures/paired_solutions.md"),
    Original("fixtures/tex-sheet.tex"),
    Original("fixtures/tex-sheet-2.tex"),
    Original("external/sta712-hw2/hw2.tex"),
    ME2,
)
"""A course-sized folder: seven small sheets, one long LaTeX homework (sta712: 17 KB of
markdown) and the real ME2 sheet. Its first sheet by name is a LaTeX one, so the folder's
one filter is the latex library filter."""

SWEEP_SHEETS = (
    Original("ci-sheet/sheet.md", "ci-sheet/sheet_solutions.md"),
    Original("ci-tex/sheet-1.tex"),
    Original("ci-tex/sheet-2.tex", "ci-tex/sheet-2-solutions.tex"),
    Original("ci-tex/sheet-3.tex"),
    Original("fixtures/paired.md", "fixtures/paired_solutions.md"),
    Original("fixtures/sheet.md"),
    Original("fixtures/sheet-2.md"),
    Original("fixtures/figure.md"),
    Original("fixtures/figure-paragraph.md"),
    Original("fixtures/algorithmic.md"),
    Original("fixtures/questions-only.md"),
    Original("fixtures/faulty.md"),
    Original("fixtures/faulty-unsolved.md"),
    Original("fixtures/tex-sheet.tex"),
    Original("fixtures/tex-sheet-2.tex"),
    Original("fixtures/tex-figure.tex"),
    Original("external/pfm-calculus/exercises/main.md"),
)
"""The sweep's sheets (cycled to 100): every small corpus sheet the latex library filter
reads, in markdown and LaTeX."""

MARKER = re.compile(r"bench-[a-z0-9]+-\d{3}")


def token(tag: str, index: int) -> str:
    """The marker of copy ``index`` of run ``tag`` (``tag``: lower-case letters and digits)."""
    return f"bench-{tag}-{index:03d}"


def mark(text: str, suffix: str, marker: str) -> str:
    """``text`` with ``marker`` added at its top, where no route reads it."""
    if suffix == ".tex":
        head, sep, rest = text.partition("\\begin{document}")
        if not sep:
            raise ValueError("a LaTeX sheet without \\begin{document}")
        return f"{head}{sep}\n\\hypertarget{{{marker}}}{{}}\n{rest}"
    return f"<!-- {marker} -->\n\n{text}"


@dataclass
class Copy:
    """One copy of an :class:`Original` in a benchmark folder."""

    original: Original
    marker: str
    source: Path
    solutions: Path | None


def make_copies(originals: tuple[Original, ...], n: int, folder: Path, tag: str) -> list[Copy]:
    """Write ``n`` marked copies of ``originals`` (cycled) into ``folder`` as
    ``NNN-<stem>.<ext>`` and ``NNN-<stem>-solutions.<ext>`` (so they pair by name)."""
    folder.mkdir(parents=True, exist_ok=True)
    copies = []
    for i in range(n):
        o = originals[i % len(originals)]
        src = CORPUS / o.source
        m = token(tag, i + 1)
        stem = f"{i + 1:03d}-{src.stem}"
        dst = folder / f"{stem}{src.suffix}"
        dst.write_text(mark(src.read_text(encoding="utf-8"), src.suffix, m), encoding="utf-8")
        sol = None
        if o.solutions:
            s = CORPUS / o.solutions
            sol = folder / f"{stem}-solutions{s.suffix}"
            sol.write_text(mark(s.read_text(encoding="utf-8"), s.suffix, m), encoding="utf-8")
        copies.append(Copy(o, m, dst, sol))
    return copies


def fresh_folder(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def _cut_one_field(reading: list[dict]) -> None:
    """Cut the first long enough main text (else part content) to its first half of
    words: still a quote of the sheet, but not what route B reads."""
    for key in ("main_text", "content"):
        for q in reading:
            holders = [q] if key == "main_text" else q["parts"]
            for h in holders:
                words = (h.get(key) or "").split(" ")
                if len(words) >= 4:
                    h[key] = " ".join(words[: len(words) // 2])
                    return


class Replies:
    """The stand-in's replies per :class:`Original`, built once each (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._route_a: dict[Original, str] = {}

    @staticmethod
    def filter_source(o: Original) -> str:
        return (LIBRARY / f"{o.filter}.lua").read_text(encoding="utf-8")

    def route_a(self, o: Original) -> str:
        with self._lock:
            if o not in self._route_a:
                self._route_a[o] = self._build(o)
            return self._route_a[o]

    def _build(self, o: Original) -> str:
        if o == ME2:
            return (CORPUS / "me2" / "replies" / "route-a.json").read_text(encoding="utf-8")
        from tasks.convert.markdown import to_markdown
        from tasks.read.route_b import read_and_pair

        src = CORPUS / o.source
        q = to_markdown(src.name, src.read_bytes(), "questions", base_dir=str(src.parent), media_dir=None)
        s = None
        if o.solutions:
            sp = CORPUS / o.solutions
            s = to_markdown(sp.name, sp.read_bytes(), "solutions", base_dir=str(sp.parent), media_dir=None)
        reading = json.loads(read_and_pair(self.filter_source(o), q.text, s.text if s else None)[0].model_dump_json())
        _cut_one_field(reading)
        return json.dumps({"questions": reading}, ensure_ascii=False)


@dataclass
class Call:
    """One call the stand-in served: stage (``areas`` for every part's answer boxes), sheet
    marker (empty for answer boxes), and times (``time.monotonic``) when it was asked, when it
    got one of the backend's in-flight places, and when it ended."""

    stage: str
    marker: str
    asked: float
    started: float
    ended: float


@dataclass
class DelayedBackend:
    """A :class:`tasks.llm.Backend` standing in for the model: it serves the replies of
    :class:`Replies` after ``delay`` seconds per call, holding one of the backend's
    in-flight places (:func:`tasks.llm.limits.in_flight`) as the live backends do.

    ``sheets`` maps a copy's marker to its :class:`Original`; ``calls`` logs every call.
    Raises :class:`tasks.llm.NoReply` for a route A or filter request that names no known
    sheet, and for any other stage.
    """

    delay: float
    sheets: dict[str, Original] = field(default_factory=dict)
    replies: Replies = field(default_factory=Replies)
    name: str = "delayed"
    model: str = "delayed-model"
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, copies: list[Copy]) -> None:
        for c in copies:
            self.sheets[c.marker] = c.original

    def counts(self, since: int = 0) -> Counter:
        """Calls by stage, from call number ``since`` on."""
        with self._lock:
            return Counter(c.stage for c in self.calls[since:])

    def complete(self, request):
        from schemas.llm import LLMReply
        from tasks.llm import NoReply, limits

        asked = time.monotonic()
        found = MARKER.search(request.user)
        original = self.sheets.get(found.group(0)) if found else None
        stage = "areas" if request.stage.startswith("areas-") else request.stage
        if original is None and stage not in ("areas", "adjudication"):
            raise NoReply("the benchmark's stand-in knows no sheet in this request")
        if stage == "areas":
            text = json.dumps({"boxes": []})
        elif request.stage == "route-a":
            text = self.replies.route_a(original)
        elif request.stage == "filter":
            text = self.replies.filter_source(original)
        elif request.stage == "adjudication":
            text = json.dumps({"verdicts": []})
        else:
            raise NoReply(f"the benchmark's stand-in has no reply for stage {request.stage}")
        with limits.in_flight(self.name):
            started = time.monotonic()
            time.sleep(self.delay)
            ended = time.monotonic()
        with self._lock:
            self.calls.append(Call(stage, found.group(0) if found else "", asked, started, ended))
        return LLMReply(text=text, backend=self.name, model=self.model, stop_reason="end_turn")


def install(backend: DelayedBackend):
    """Make ``--backend <backend.name>`` select ``backend`` everywhere the flows look a
    backend up (``tasks.llm.select`` and the names the flows imported from it). Returns a
    function that undoes it."""
    import flows.document
    import flows.folder
    import tasks.llm.select as select

    original = select.select_backend

    def patched(choice: str = "auto", model: str | None = None):
        if (choice or "").strip().lower() == backend.name:
            return backend
        return original(choice, model)

    modules = (select, flows.document, flows.folder)
    for m in modules:
        m.select_backend = patched

    def undo() -> None:
        for m in modules:
            m.select_backend = original

    return undo


def timeline(calls: list[Call], t0: float) -> str:
    """One line about a run's calls: how many, when they ran (seconds after ``t0``), the
    most in flight at once, and the seconds they waited for a place."""
    if not calls:
        return "no model call"
    by = Counter(c.stage for c in calls)
    events = sorted([(c.started, 1) for c in calls] + [(c.ended, -1) for c in calls])
    most = now = 0
    for _, d in events:
        now += d
        most = max(most, now)
    waited = sum(c.started - c.asked for c in calls)
    spans = []
    for stage in ("filter", "route-a", "adjudication", "areas"):
        cs = [c for c in calls if c.stage == stage]
        if cs:
            spans.append(f"{stage} {min(c.started for c in cs) - t0:.1f}–{max(c.ended for c in cs) - t0:.1f} s")
    return (f"{len(calls)} calls ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))}); "
            f"{'; '.join(spans)}; at most {most} in flight; {waited:.1f} s waiting for a place")


class StageClock:
    """Seconds spent inside each stage's own code (the function a Prefect task wraps),
    summed over threads, by task name; what is left of a run's time is the flow's own
    (Prefect, threads, writing outputs, waiting).

    :meth:`install` wraps the ``fn`` of every task the document and folder flows submit;
    the returned function undoes it.
    """

    def __init__(self) -> None:
        self.seconds: Counter = Counter()
        self.runs: Counter = Counter()
        self._lock = threading.Lock()

    def install(self):
        import functools

        import flows.dag
        import flows.document
        import flows.folder
        from prefect import Task

        tasks = {id(v): v for m in (flows.dag, flows.document, flows.folder) for v in vars(m).values()
                 if isinstance(v, Task)}
        originals = {}
        for t in tasks.values():
            fn = t.fn
            originals[id(t)] = fn

            @functools.wraps(fn)
            def timed(*args, _fn=fn, _name=t.name, **kwargs):
                start = time.perf_counter()
                try:
                    return _fn(*args, **kwargs)
                finally:
                    with self._lock:
                        self.seconds[_name] += time.perf_counter() - start
                        self.runs[_name] += 1

            t.fn = timed

        def undo() -> None:
            for t in tasks.values():
                t.fn = originals[id(t)]

        return undo


def proc_cpu(pid: int | None) -> float:
    """CPU seconds (user + system, all threads) a live process has used; 0 when unknown."""
    import os

    if not pid:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb() -> tuple[float, float]:
    """This process's (peak, current) resident set in MB, from ``/proc/self/status``
    (``VmHWM``, ``VmRSS``). Not ``ru_maxrss``: on Linux a subprocess's ``ru_maxrss`` starts
    at its parent's peak (the parent's high-water mark survives the exec)."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmHWM", 0.0), values.get("VmRSS", 0.0)


class Meter:
    """Wall time and CPU seconds of a block: this process, its finished children (pandoc),
    and the Prefect server's process (``server_pid``).

    ``with Meter(pid) as m: ...`` then ``m.result`` = ``{"wall", "cpu_self", "cpu_pandoc",
    "cpu_server"}`` (seconds).
    """

    def __init__(self, server_pid: int | None):
        self.server_pid = server_pid
        self.result: dict = {}

    @staticmethod
    def _own() -> tuple[float, float]:
        import resource

        s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime

    def __enter__(self) -> "Meter":
        self._t = time.monotonic()
        self._self, self._children = self._own()
        self._server = proc_cpu(self.server_pid)
        return self

    def __exit__(self, *exc) -> None:
        own, children = self._own()
        self.result = {
            "wall": time.monotonic() - self._t,
            "cpu_self": own - self._self,
            "cpu_pandoc": children - self._children,
            "cpu_server": proc_cpu(self.server_pid) - self._server,
        }
