"""Every truth of the project's own corpus (tests/corpus) has its shape and quotes its sheet in order."""

from pathlib import Path

import pytest

from tests.corpus.check_truth import check

CORPUS = Path(__file__).parent / "corpus"
FOLDERS = sorted(p.parent for p in CORPUS.glob("*/truth.json"))


def test_the_corpus_holds_real_sheets():
    assert len(FOLDERS) >= 16


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_truth_quotes_its_sheet(folder):
    assert check(folder) == []
