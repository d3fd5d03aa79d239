"""PartKey: the one place part keys are built and read."""

import pytest

from schemas.sheet import PartKey, field_key


def test_keys_are_written_one_based():
    assert str(PartKey(0)) == "q1" and str(PartKey(1, 0)) == "q2.p1"
    assert PartKey(4, 2).field("options", 1) == "q5.p3.options[2]" == field_key(4, "options", 2, 1)


@pytest.mark.parametrize("text", ["q1", "q2.p1", "q12.p10"])
def test_a_written_key_reads_back_to_itself(text):
    assert str(PartKey.parse(text)) == text


@pytest.mark.parametrize("text", ["q0", "q1.p0", "q01.p1", "p1", "q1.p1.answer", "q1.", ""])
def test_anything_else_is_refused(text):
    with pytest.raises(ValueError, match="not a part key"):
        PartKey.parse(text)
