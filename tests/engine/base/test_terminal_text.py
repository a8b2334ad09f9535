"""base.text.for_terminal: the one display rule for names on a terminal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transcribe_import.engine.base.text import for_terminal


def test_controls_are_shown_not_obeyed() -> None:
    assert for_terminal("a\x1b[2Jb") == "a␛[2Jb"
    assert for_terminal("title\x07") == "title␇"
    assert for_terminal("one\ntwo\tthree") == "one␤two␉three"
    assert for_terminal("del\x7f") == "del␡"
    assert for_terminal("csi\x9b") == "csi⟨U+009B⟩"
    assert for_terminal("\u202egpj.exe") == "⟨U+202E⟩gpj.exe"
    assert for_terminal("\u2066x\u2069") == "⟨U+2066⟩x⟨U+2069⟩"


def test_ordinary_names_in_any_script_are_unchanged() -> None:
    for name in ("page 1.jpg", "Tagebuch Ärzte ñ.jpg", "日記 3.png", "يوميات.tif", "🙂.png"):
        assert for_terminal(name) == name


@given(st.text())
@pytest.mark.slow
def test_nothing_a_terminal_obeys_survives(text: str) -> None:
    shown = for_terminal(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown)
    assert not any(c in shown for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
