"""Input that the database or Python cannot take, refused with a clear message (pure):
PostgreSQL refuses NUL, UTF-8 a lone surrogate, and Python's JSON reader overflows on deep
nesting and fails otherwise on huge integers. Every JSON request body and upload goes
through `json_loads_checked`; `text_problem` checks a text before it is stored.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 64
MAX_NUMBER_CHARACTERS = 100
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class InputError(ValueError):
    """Input refused as a whole; the message says why, for the person who sent it."""


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored (a NUL character, a lone surrogate), or None."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return f"contains a NUL character (at character {found.start() + 1})"
    return f"contains an invalid character (a lone surrogate at character {found.start() + 1})"


def _number(text: str) -> int | float:
    if len(text) > MAX_NUMBER_CHARACTERS:
        raise InputError(f"A number is longer than {MAX_NUMBER_CHARACTERS} characters.")
    return float(text) if any(mark in text for mark in ".eE") else int(text)


def _no_constant(name: str):
    raise InputError(f"{name} is not a JSON number.")


def json_loads_checked(
    raw: bytes | str, *, check_strings: bool = True, what: str = "The data"
) -> Any:
    """Parse JSON that Parable can store, or raise InputError (beginning with `what`) saying
    why not: not UTF-8 (a BOM is allowed), invalid, too deep or long a number, NaN or
    Infinity, and with `check_strings` a string or key that `text_problem` refuses."""
    if isinstance(raw, bytes | bytearray):
        try:
            raw = bytes(raw).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InputError(f"{what} is not UTF-8 text (byte {error.start + 1}).") from error
    try:
        data = json.loads(raw, parse_int=_number, parse_float=_number, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        # Some of json's messages end in " at" ("Unterminated string starting at").
        message = error.msg.removesuffix(" at")
        raise InputError(
            f"{what} is not JSON: {message} at line {error.lineno}, column {error.colno}."
        ) from error
    except RecursionError as error:
        raise InputError(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels.") from error
    _check_tree(data, check_strings=check_strings, what=what)
    return data


def _check_tree(data: Any, *, check_strings: bool, what: str) -> None:
    """Walk the parsed value without recursion: depth, and every string and key."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise InputError(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels.")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if check_strings and isinstance(key, str):
                    _check_text(key, what=what)
                pending.append((item, depth + 1))
        elif check_strings and isinstance(value, str):
            _check_text(value, what=what)


def _check_text(text: str, *, what: str) -> None:
    problem = text_problem(text)
    if problem:
        raise InputError(f"{what} has a text that {problem}.")
