"""2. A field's long run of blanks is read in linear time by the checks (attack18 C24): an R
Markdown sheet's question of 25,000 code chunks, each left one blank by the choice check,
held a run for over 16 minutes in that check's ``^\\s*…\\(?\\s*`` searches (cubic in a run of
blanks). Now a run of blanks is made one first; what the check finds is unchanged."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tasks.settle.audit_choices import offered
from tests.conftest import ROOT

CATEGORY = "2 bounds"

PROBE = ("from tasks.settle.audit_choices import offered\n"
         "text = 'Which is it?\\n\\n' + ''.join('```r\\nx%d <- %d\\n```\\n\\n' % (i, i) for i in range(25000))\n"
         "print('FOUND', offered(text + '(A) one\\n\\n   (B) two\\n\\n(C) three\\n'))\n")


def test_many_code_chunks_in_a_field_are_checked_at_once():
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "FOUND A-C", proc.stdout + proc.stderr  # the old check took hours here


@pytest.mark.parametrize("text, found", [
    ("Say whether it holds.   \n\n\n   True or false?", "True/False"),
    ("\n\n   \t T/F   The sum is even.", "True/False"),
    ("Pick one.\n\n  A.  red\n\n\n  B.  blue", "A-B"),
    ("A. one\n   \n B. two\n\t\n C. three", "A-C"),
    ("Compute $x$.\n\n\n\n     Then $y$.", None),
], ids=["tf-after-blank-lines", "tf-lead", "two-asked", "three-with-blank-lines", "none"])
def test_blank_runs_read_as_before(text, found):
    assert offered(text) == found
