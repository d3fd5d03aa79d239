from pathlib import Path

import pytest

from schemas.sheet import Question, SheetSet
from tasks.cache import key_for


def test_keys_follow_content_not_names():
    assert key_for("t", {"text": "a"}) == key_for("t", {"text": "a"})
    assert key_for("t", {"text": "a"}) != key_for("t", {"text": "b"})
    assert key_for("t", {"data": b"x"}) != key_for("t", {"data": b"y"})
    one = SheetSet([Question(title="A")])
    assert key_for("t", {"q": one}) != key_for("t", {"q": SheetSet([Question(title="B")])})


def test_a_path_can_never_become_a_key():
    with pytest.raises(TypeError, match="not content"):
        key_for("t", {"source": Path("sheet.md")})
