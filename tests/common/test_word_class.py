"""The spelled-out word class is Python's \\w, character for character."""

import re
import sys

from common.word_class import WORD_CLASS


def test_the_word_class_matches_what_python_calls_a_word_character():
    spelled, word = re.compile(WORD_CLASS), re.compile(r"\w")
    differ = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF
        and bool(spelled.match(chr(code))) != bool(word.match(chr(code)))
    ]
    assert differ == []
    # Letters outside ASCII, where ECMA-262's \w stops, are in it; punctuation is not.
    assert all(spelled.match(c) for c in "ÜĲж漢𝐀_7")
    assert not any(spelled.match(c) for c in "«» -'\u00a0\u3000")
