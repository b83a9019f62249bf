"""The spelled-out word class is Python's \\w, character for character. Run as a script
(`python -m tests.common.test_word_class`), this module writes common/word_class.py anew
from this Python's Unicode database."""

import re
import sys
from pathlib import Path

from common.word_class import WORD_CLASS

MODULE = Path(__file__).resolve().parents[2] / "common" / "word_class.py"


def word_ranges() -> list[tuple[int, int]]:
    """The code points `\\w` matches, as inclusive ranges (surrogates left out)."""
    word = re.compile(r"\w")
    ranges, start = [], None
    for code in range(sys.maxunicode + 2):
        inside = code <= sys.maxunicode and not 0xD800 <= code <= 0xDFFF and word.match(chr(code))
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append((start, code - 1))
            start = None
    return ranges


def _escaped(code: int) -> str:
    if code < 0x80:
        return chr(code)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def module_text() -> str:
    """common/word_class.py as it reads with WORD_CLASS written from `word_ranges()`."""
    parts = [
        _escaped(a)
        if a == b
        else _escaped(a) + _escaped(b)
        if b == a + 1
        else f"{_escaped(a)}-{_escaped(b)}"
        for a, b in word_ranges()
    ]
    lines, line = [], ""
    for part in parts:
        if len(line) + len(part) > 84:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    text = MODULE.read_text(encoding="utf-8")
    before, _, rest = text.partition("# fmt: off\n")
    _, _, after = rest.partition("# fmt: on\n")
    body = "".join(f'    "{line}"\n' for line in lines)
    return f'{before}# fmt: off\nWORD_CLASS = (\n    "["\n{body}    "]"\n)\n# fmt: on\n{after}'


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


def test_the_module_is_what_its_generator_writes():
    assert MODULE.read_text(encoding="utf-8") == module_text()


if __name__ == "__main__":
    MODULE.write_text(module_text(), encoding="utf-8")
