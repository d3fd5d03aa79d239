"""``sheet2lambda compare SHEET.pdf``: a PDF sheet's pages read against its OCR markdown.

    python -m flows.compare SHEET.pdf [--out OUT] [--replies DIR] [--backend B] [--model M] [--offline]
    sheet2lambda compare SHEET.pdf …

Wiring only (:mod:`tasks.pages`): the PDF's markdown as a document run reads it (the OCR
cache, else Mathpix), the compare check (:func:`tasks.pages.check.compare_pdfs`: one vision
call per few pages, replies replayed from ``--replies DIR/compare.json`` or kept beside the OCR
cache entry), one line per finding, and, when ``OUT`` (default ``out/<sheet>/``) holds a
document run of this PDF (as its questions or its solutions), each finding an ``ocr`` flag on
the field holding it there (:func:`tasks.pages.rerun.place_in_run`). No Prefect server is
needed: nothing here is a flow run.

Exit status: 0 when the check ran, was replayed or was skipped (no model and no saved reply,
``--offline``: its line says so); 1 for bad input or a check that failed (a reply that does
not validate, a call that failed): one line on stderr, nothing written.
"""

from __future__ import annotations

import commandline.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402


def parse_args(argv: list[str] | None = None, prog: str = "python -m flows.compare") -> argparse.Namespace:
    """The compare command line (:func:`commandline.options.parser`)."""
    from commandline.options import parser

    return parser("compare", prog).parse_args(argv)


def main(argv: list[str] | None = None, prog: str = "python -m flows.compare") -> int:
    """Command line entry: the exit status (see the module docstring)."""
    from commandline.options import precheck

    try:
        args = precheck("compare", argv, prog)
    except SystemExit as e:  # --help (0), or a bad option or missing file (1)
        return int(e.code or 0)
    with runtime.redacted_output():
        from tasks.errors import InputError
        from tasks.llm.select import BackendMissing

        try:
            return _run(args)
        except (InputError, BackendMissing, ValueError) as e:
            from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
            print(visible(str(e)), file=sys.stderr)
            return 1


def _run(args: argparse.Namespace) -> int:
    from schemas.status import State
    from tasks.check.report import counted
    from tasks.convert.inputs import read_document, read_saved_reply
    from tasks.convert.markdown import to_markdown
    from tasks.errors import InputError, visible
    from tasks.llm.select import backend_line, select_backend, spec_of
    from tasks.pages.ask import batch_size, read_saved
    from tasks.pages.check import PdfDoc, compare_line, compare_pdfs
    from tasks.pages.place import holders
    from tasks.pages.rerun import document_of, place_in_run
    from tasks.write.outputs import default_out, written_by

    source = Path(args.source)
    out = Path(args.out) if args.out else default_out(str(source))
    from commandline.out_paths import out_over_inputs

    overlap = out_over_inputs(out, {"--replies": args.replies})
    if overlap:  # its outputs (replies/compare.json, pages/) among, or over, the replies it reads: before any work
        raise InputError(str(out), overlap)
    data = read_document(source)
    saved_file = Path(args.replies) / "compare.json" if args.replies else None
    saved = read_saved(read_saved_reply(saved_file), str(saved_file)) if saved_file and saved_file.is_file() else {}
    size = batch_size()
    live = None if args.offline else select_backend(args.backend, args.model)
    try:
        markdown = to_markdown(source.name, data, "questions", offline=args.offline).text
    except InputError as e:
        raise InputError(str(source), e.problem) from None
    run_there = written_by(out) is not None and (out / "settled.json").is_file()
    document = document_of(out, markdown, str(source)) if run_there else "questions"
    print(f"{'backend':<11}{backend_line(live, args.offline)}")
    print(f"{'markdown':<11}{visible(source.name)}: {counted(markdown.count(chr(10)) + 1, 'line')} of OCR markdown"
          + (f", the {document} of the run in {visible(out)}" if run_there else ""))
    result = compare_pdfs([PdfDoc(document=document, name=source.name, data=data, markdown=markdown)],
                          saved, spec_of(live), args.offline, size)
    if result.status.state == State.failed:
        print(visible(f"{source}: the compare check failed: {result.status.reason}"), file=sys.stderr)
        return 1
    run = None
    if run_there:
        from tasks.review.form import load_run

        run = load_run(out)
    for f in result.findings:
        where = ", ".join(holders(f, run.record.questions, len(run.sources) > 1)) if run is not None else ""
        print(f"p{f.page:<10}" + (f"{where or 'in no field'}: " if run is not None else "")
              + f'the OCR read "{f.ocr_text}", the page shows "{f.page_text}" ({f.kind})')
    if result.status.state == State.skipped:
        print(compare_line(result))
        return 0
    placed = place_in_run(out, document, result) if run_there else None
    print(compare_line(result, len(placed) if placed is not None else None))
    u = result.usage
    print(f"{'usage':<11}{u.input_tokens} tokens in, {u.output_tokens} out, ${u.cost_usd:.4f}")
    if placed is None:
        print(f"{'out':<11}no document run of {visible(source.name)} in {visible(out)}: nothing written, the findings are on no field "
              f"(run `sheet2lambda document {source}` first, or name its --out)")
    else:
        print(f"{'out':<11}{visible(out)}/: {counted(len(placed), 'ocr flag')} on the {document} in flags.json; "
              f"replies/compare.json, pages/ (`sheet2lambda review {out}` shows each with its page)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
