"""How Parable writes figures in prose and on pages: significant digits written out, counts
with their nouns, p-values, shares, and "unknown" (never 0) for a figure that is not known."""

from __future__ import annotations

import math
from collections.abc import Sequence

UNKNOWN = "unknown"


def paper_number(value) -> str:
    """A figure as a paper writes it: thousands separated, three significant digits written
    out (never 2.998e-05), one decimal from 100 up; None is "unknown", never 0."""
    if value is None:
        return UNKNOWN
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return UNKNOWN
        return f"{value:,.1f}" if abs(value) >= 100 else significant(value, 3)
    return str(value)


def p_value_text(value: float | None) -> str:
    if value is None:
        return UNKNOWN
    return "< 0.001" if value < 0.001 else significant(value, 2)


def share_text(value: float | None) -> str:
    """A fraction as a percentage ("12.5%")."""
    return UNKNOWN if value is None else f"{significant(100 * value, 3)}%"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """ "1 worker", "2 workers" ("1 story", "2 stories" with `many`)."""
    return f"{paper_number(count)} {noun if count == 1 else many or noun + 's'}"


def noun_for(count, noun: str) -> str:
    """The noun for a count (a number, or a collection counted by its length)."""
    number = len(count) if isinstance(count, (set, list)) else count
    return noun if number == 1 else noun + "s"


def series(items: Sequence[str]) -> str:
    """Items in a sentence: "a", "a and b", "a, b and c"."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def significant(value: float, digits: int = 4) -> str:
    """A float to `digits` significant digits, written out (0.00002998, never 2.998e-05),
    trailing zeros dropped."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def figure_text(value) -> str:
    """A report's figure as a page shows it: 3 decimals, "—" for none."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
