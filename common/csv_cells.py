"""CSV cells that spreadsheets cannot run: every CSV Parable writes goes through here. A
text cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return)
gets a leading single quote, as OWASP advises; numbers are left as they are.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(value: Any) -> Any:
    """`value`, with a leading `'` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def formula_unsafe(value: str) -> str:
    """A cell as it was before `formula_safe`: what Parable's own importers read back."""
    return value[1:] if value.startswith("'") and value[1:].startswith(FORMULA_PREFIXES) else value


class SafeCsvWriter:
    """`csv.writer` whose rows are passed through `formula_safe` cell by cell."""

    def __init__(self, stream: TextIO, **format_params):
        self._writer = csv.writer(stream, **format_params)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([formula_safe(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        self._writer.writerows([formula_safe(value) for value in row] for row in rows)
