"""The arguments of the commands that work on a finished document run's output folder:
``review`` (a person's decisions on its flags) and ``compare`` (a PDF's pages against its OCR,
each difference an ``ocr`` flag there). Standard library only, as :mod:`commandline.options`,
which builds every command's parser and checks its files."""

from __future__ import annotations

import argparse

BACKENDS = ("auto", "anthropic", "openrouter", "openai", "claude-code", "none")
"""``--backend`` choices (the same as :data:`tasks.llm.select.CHOICES`, kept here so that
parsing a command line imports no backend)."""

MODEL_HELP = "the model for live calls (default: LLM_MODEL, else a current Claude Sonnet, claude-sonnet-5-5)"


def review_options(p: argparse.ArgumentParser) -> None:
    """``sheet2lambda review``'s arguments."""
    p.add_argument("out", metavar="OUT", help="the output folder of a finished document run (its --out)")
    p.add_argument("--decisions", metavar="FILE.json",
                   help='the choices as JSON, by flag number (its place in OUT/flags.json, from 1): [{"flag": 3, '
                        '"choice": "B"}, {"flag": 4, "choice": "note", "note": "the denominator should be 2 not 3", '
                        '"equation": 1}, {"flag": 5, "choice": "source", "passage": "..."}]; a flag decided before '
                        'may be named again: the new decision replaces the recorded one (default: the review page)')
    p.add_argument("--terminal", action="store_true",
                   help="review on this terminal instead of the review page: flag by flag, each decision confirmed "
                        "as it is taken")
    p.add_argument("--no-open", action="store_true",
                   help="print the review page's address (http://127.0.0.1:PORT/TOKEN/) and open no browser")
    p.add_argument("--port", type=int, default=0,
                   help="the review page's port on 127.0.0.1 (default 0: one the system picks)")
    p.add_argument("--backend", default="auto", choices=BACKENDS,
                   help="who reads equation notes (one call per note): auto (default) takes the first configured of "
                        "ANTHROPIC_API_KEY, OPENROUTER_API_KEY, OPENAI_BASE_URL, a claude executable; none: notes "
                        "stay open")
    p.add_argument("--model", help="the model for notes (default: LLM_MODEL, else a current Claude Sonnet)")


def compare_options(p: argparse.ArgumentParser) -> None:
    """``sheet2lambda compare``'s arguments."""
    p.add_argument("source", help="the PDF sheet (or solutions document): its pages are read against its OCR markdown "
                   "(from the OCR cache, else Mathpix)")
    p.add_argument("--out", help="the output folder of a document run of this PDF (default out/<sheet's stem>/): each "
                   "finding becomes an ocr flag on the field holding it there (without a run there, the findings are "
                   "printed only)")
    p.add_argument("--replies", help="a folder holding a saved compare.json (e.g. OUT/replies): its replies are "
                   "replayed, no call made")
    p.add_argument("--backend", default="auto", choices=BACKENDS,
                   help="who reads the pages (one vision call per SHEET2LAMBDA_COMPARE_PAGES pages, default 4): auto "
                        "(default) takes the first configured of ANTHROPIC_API_KEY, OPENROUTER_API_KEY, OPENAI_BASE_URL "
                        "(claude-code sends no images); none: only saved replies")
    p.add_argument("--model", help=MODEL_HELP + "; it must read images")
    p.add_argument("--offline", action="store_true",
                   help="make no call: the PDF must be in the OCR cache and the replies saved (else the check is skipped)")
