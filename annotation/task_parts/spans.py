"""Span alignment as pure text (no Django): token bounds, checking a worker's pairs,
drawing, finding a span string in a text. Offsets are code points, [start, end); tokens are
the overlap check's (annotation.text.overlap_tokens), so a span never cuts through a word
and punctuation at its edges stays outside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from annotation.text import overlap_tokens

# SpanPair.position runs 1..5: an alignment holds at most five pairs.
MAX_PAIRS = 5

# One colour per pair slot, used on the task page and in review (pair n: PALETTE[n - 1]).
PALETTE = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe")


class SpanError(ValueError):
    """A span or set of pairs the server refuses; the message is shown to the worker."""

    def __init__(self, message: str, *, pair: int | None = None, side: str = ""):
        super().__init__(message)
        self.message = message
        self.pair = pair
        self.side = side


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class SpanPairSpec:
    proverb: Span
    narrative: Span

    def key(self) -> tuple[int, int, int, int]:
        return (self.proverb.start, self.proverb.end, self.narrative.start, self.narrative.end)


def token_bounds(text: str) -> list[tuple[int, int]]:
    """[start, end) of every token of text, in order."""
    return [(token.start, token.end) for token in overlap_tokens(text)]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def span_check(text: str, value: Any, *, side: str, pair: int) -> Span:
    """One side of one pair, {"start", "end", "text"}, checked against its text; SpanError
    for one missing, malformed, empty, outside the text, not the one stretch between its
    offsets (a non-contiguous selection), or cutting through a word."""
    where = f"The {side} span of pair {pair}"
    if not isinstance(value, Mapping) or not all(key in value for key in ("start", "end", "text")):
        raise SpanError(f"{where} is missing.", pair=pair, side=side)
    start, end, covered = value["start"], value["end"], value["text"]
    if not (_is_int(start) and _is_int(end) and isinstance(covered, str)):
        raise SpanError(f"{where} could not be read.", pair=pair, side=side)
    if start < 0 or end > len(text):
        raise SpanError(f"{where} lies outside the {side}.", pair=pair, side=side)
    if end <= start or not covered:
        raise SpanError(f"{where} is empty: select at least one word.", pair=pair, side=side)
    if text[start:end] != covered:
        raise SpanError(
            f"{where} is not one contiguous stretch of the {side}: select words next to "
            "each other.",
            pair=pair,
            side=side,
        )
    bounds = token_bounds(text)
    if start not in {s for s, _ in bounds} or end not in {e for _, e in bounds}:
        raise SpanError(
            f"{where} cuts through a word or starts or ends on a space or punctuation: "
            "select whole words.",
            pair=pair,
            side=side,
        )
    return Span(start, end, covered)


def pairs_check(
    *, proverb: str, narrative: str, pairs: Any, min_pairs: int = 1, max_pairs: int = MAX_PAIRS
) -> list[SpanPairSpec]:
    """A worker's pairs [{"proverb": span, "narrative": span}, ...], each span checked, from
    min_pairs to max_pairs of them, none given twice; raises SpanError."""
    if not isinstance(pairs, list):
        raise SpanError("The pairs could not be read; reload the page and try again.")
    if len(pairs) < min_pairs:
        raise SpanError(
            f"Pair at least {min_pairs} span{'s' if min_pairs != 1 else ''} of the proverb "
            "with the narrative."
        )
    if len(pairs) > max_pairs:
        raise SpanError(f"At most {max_pairs} pairs are allowed; remove {len(pairs) - max_pairs}.")
    checked: list[SpanPairSpec] = []
    seen: dict[tuple, int] = {}
    for number, value in enumerate(pairs, start=1):
        if not isinstance(value, Mapping):
            raise SpanError(f"Pair {number} could not be read.", pair=number)
        spec = SpanPairSpec(
            proverb=span_check(proverb, value.get("proverb"), side="proverb", pair=number),
            narrative=span_check(narrative, value.get("narrative"), side="narrative", pair=number),
        )
        if spec.key() in seen:
            raise SpanError(f"Pair {number} repeats pair {seen[spec.key()]}.", pair=number)
        seen[spec.key()] = number
        checked.append(spec)
    return checked


def segments(text: str, spans: Sequence[tuple[int, int, int]]) -> list[dict]:
    """The text cut where the (start, end, position) spans begin and end: pieces {"text",
    "positions", "colour"} (a piece in no span: none and ""; in several: the lowest's)."""
    cuts = sorted({0, len(text), *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    pieces = []
    for start, end in pairwise(cuts):
        if start >= end or start < 0 or end > len(text):
            continue
        positions = sorted({p for s, e, p in spans if s <= start and end <= e})
        pieces.append(
            {
                "text": text[start:end],
                "positions": positions,
                "colour": colour(positions[0]) if positions else "",
            }
        )
    return pieces


def colour(position: int) -> str:
    """The colour of pair slot `position` (1-based)."""
    return PALETTE[(position - 1) % len(PALETTE)]


def pair_record(row: Any) -> dict:
    """A stored span pair (anything with SpanPair's fields) as JSON."""
    return {
        "position": row.position,
        "proverb": {"start": row.proverb_start, "end": row.proverb_end, "text": row.proverb_span},
        "narrative": {
            "start": row.narrative_start,
            "end": row.narrative_end,
            "text": row.narrative_span,
        },
    }


def drawing(*, proverb: str, narrative: str, pairs: Sequence[Any]) -> dict:
    """An alignment as coloured pieces of both texts and its pair list (pages and review)."""
    ordered = sorted(pairs, key=lambda p: p.position)
    return {
        "proverb": segments(
            proverb, [(p.proverb_start, p.proverb_end, p.position) for p in ordered]
        ),
        "narrative": segments(
            narrative, [(p.narrative_start, p.narrative_end, p.position) for p in ordered]
        ),
        "pairs": [{**pair_record(p), "colour": colour(p.position)} for p in ordered],
        "palette": list(PALETTE),
    }


def review_drawing(drawn: dict) -> dict:
    """An alignment (`drawing`'s dict) as the review queue draws it: both texts in pieces,
    pairs by colour."""
    return {
        "proverb": drawn["proverb"],
        "narrative": drawn["narrative"],
        "pairs": [
            {
                "colour": pair["colour"],
                "proverb": pair["proverb"]["text"],
                "narrative": pair["narrative"]["text"],
            }
            for pair in drawn["pairs"]
        ],
    }


def resolve_span(text: str, span: str) -> tuple[int, int, bool] | None:
    """The first place of a span string (stripped) in text, exactly or else ignoring case:
    (start, end, ambiguous: it occurs more than once that way), or None."""
    needle = span.strip()
    if not needle:
        return None
    start = text.find(needle)
    if start >= 0:
        return start, start + len(needle), text.find(needle, start + 1) >= 0
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    match = pattern.search(text)
    if match is None:
        return None
    return match.start(), match.end(), pattern.search(text, match.start() + 1) is not None
