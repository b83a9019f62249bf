"""common.checked_input: JSON and text the database or Python cannot take."""

import json

import pytest

from common.checked_input import (
    MAX_JSON_DEPTH,
    InputError,
    json_loads_checked,
    text_problem,
)


def test_plain_json_parses_as_usual():
    assert json_loads_checked(b'{"a": [1, 2.5, "x", null, true]}') == {
        "a": [1, 2.5, "x", None, True]
    }
    assert json_loads_checked("\ufeff[]".encode()) == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"text": "a\\u0000b"}', "NUL character"),
        (b'{"te\\u0000xt": "a"}', "NUL character"),
        (b'{"text": "\\ud800"}', "lone surrogate"),
        (b'{"text": "caf\xe9"}', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "nested deeper"),
        (b'{"n": ' + b"9" * 5000 + b"}", "longer than"),
        (b'{"n": NaN}', "not a JSON number"),
        (b'{"n": -Infinity}', "not a JSON number"),
        (b'{"n": }', "not JSON"),
    ],
)
def test_refused_input_says_why(raw, message):
    with pytest.raises(InputError, match=message):
        json_loads_checked(raw)


def test_strings_can_be_left_to_the_caller():
    assert json_loads_checked(json.dumps(["a\x00"]).encode(), check_strings=False) == ["a\x00"]


def test_nesting_up_to_the_limit_is_accepted():
    depth = MAX_JSON_DEPTH
    assert json_loads_checked("[" * depth + "]" * depth) is not None


def test_text_problem_names_the_character_and_its_place():
    assert text_problem("fine text") is None
    assert text_problem("ab\x00") == "contains a NUL character (at character 3)"
    assert "lone surrogate at character 1" in text_problem("\udc80x")
