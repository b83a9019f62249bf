"""Span alignment as pure text: tokens, the server's checks of a worker's pairs,
finding a span string in a text.

Pure Python: runs with `pytest -p no:django`.
"""

import pytest

from annotation.task_parts.spans import (
    PALETTE,
    SpanError,
    drawing,
    pairs_check,
    resolve_span,
    segments,
    span_check,
    token_bounds,
)

PROVERB = "Don't count your chickens before they hatch."
STORY = "Ana sold the eggs before the hens had even laid them, and lost the deal."


def words(text: str, phrase: str) -> dict:
    start = text.index(phrase)
    return {"start": start, "end": start + len(phrase), "text": phrase}


def test_tokens_keep_internal_apostrophes_and_leave_punctuation_out():
    assert [PROVERB[s:e] for s, e in token_bounds(PROVERB)] == [
        "Don't",
        "count",
        "your",
        "chickens",
        "before",
        "they",
        "hatch",
    ]


def test_whole_word_span_is_accepted_with_its_string():
    span = span_check(PROVERB, words(PROVERB, "count your chickens"), side="proverb", pair=1)
    assert (span.start, span.end, span.text) == (6, 25, "count your chickens")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"start": 6, "end": 6, "text": ""}, "is empty"),
        ({"start": 30, "end": 99, "text": "x"}, "outside the proverb"),
        ({"start": -1, "end": 5, "text": "xDon't"}, "outside the proverb"),
        ({"start": 6, "end": 25, "text": "count chickens"}, "not one contiguous stretch"),
        ({"start": 7, "end": 25, "text": "ount your chickens"}, "cuts through a word"),
        ({"start": 6, "end": 26, "text": "count your chickens "}, "cuts through a word"),
        ({"start": True, "end": 25, "text": "x"}, "could not be read"),
        ({"start": 6, "end": 25}, "is missing"),
        (None, "is missing"),
    ],
)
def test_span_check_refuses(value, message):
    with pytest.raises(SpanError, match=message) as caught:
        span_check(PROVERB, value, side="proverb", pair=2)
    assert caught.value.pair == 2
    assert caught.value.side == "proverb"


def pair(proverb_phrase: str, story_phrase: str) -> dict:
    return {"proverb": words(PROVERB, proverb_phrase), "narrative": words(STORY, story_phrase)}


def test_pairs_check_returns_pairs_in_order():
    checked = pairs_check(
        proverb=PROVERB,
        narrative=STORY,
        pairs=[
            pair("chickens", "eggs"),
            pair("before they hatch", "before the hens had even laid"),
        ],
    )
    assert [(p.proverb.text, p.narrative.text) for p in checked] == [
        ("chickens", "eggs"),
        ("before they hatch", "before the hens had even laid"),
    ]


def test_a_sixth_pair_is_refused():
    phrases = ["Don't", "count", "your", "chickens", "before", "hatch"]
    with pytest.raises(SpanError, match="At most 5 pairs"):
        pairs_check(
            proverb=PROVERB, narrative=STORY, pairs=[pair(p, "eggs") for p in phrases], max_pairs=5
        )


def test_fewer_pairs_than_the_minimum_are_refused():
    with pytest.raises(SpanError, match="at least 2"):
        pairs_check(proverb=PROVERB, narrative=STORY, pairs=[pair("count", "sold")], min_pairs=2)


def test_a_repeated_pair_is_refused():
    with pytest.raises(SpanError, match="Pair 2 repeats pair 1"):
        pairs_check(
            proverb=PROVERB, narrative=STORY, pairs=[pair("count", "sold"), pair("count", "sold")]
        )


def test_pairs_sharing_one_side_are_different_pairs():
    checked = pairs_check(
        proverb=PROVERB, narrative=STORY, pairs=[pair("count", "sold"), pair("count", "lost")]
    )
    assert len(checked) == 2


def test_pairs_that_are_not_a_list_are_refused():
    with pytest.raises(SpanError, match="could not be read"):
        pairs_check(proverb=PROVERB, narrative=STORY, pairs={"0": pair("count", "sold")})


def test_segments_cut_the_text_where_spans_begin_and_end():
    pieces = segments("abcdefgh", [(2, 5, 1), (4, 7, 2)])
    assert [(p["text"], p["positions"]) for p in pieces] == [
        ("ab", []),
        ("cd", [1]),
        ("e", [1, 2]),
        ("fg", [2]),
        ("h", []),
    ]
    assert [p["colour"] for p in pieces] == ["", PALETTE[0], PALETTE[0], PALETTE[1], ""]


class Row:
    def __init__(self, position, proverb, narrative):
        self.position = position
        self.proverb_start, self.proverb_end = proverb
        self.narrative_start, self.narrative_end = narrative
        self.proverb_span = PROVERB[slice(*proverb)]
        self.narrative_span = STORY[slice(*narrative)]


def test_drawing_gives_each_pair_its_slot_colour_in_both_texts():
    result = drawing(
        proverb=PROVERB,
        narrative=STORY,
        pairs=[Row(2, (26, 32), (13, 17)), Row(1, (6, 11), (4, 8))],
    )
    assert [(p["position"], p["colour"]) for p in result["pairs"]] == [
        (1, PALETTE[0]),
        (2, PALETTE[1]),
    ]
    coloured = {p["text"]: p["colour"] for p in result["proverb"] if p["colour"]}
    assert coloured == {"count": PALETTE[0], "before": PALETTE[1]}
    coloured = {p["text"]: p["colour"] for p in result["narrative"] if p["colour"]}
    assert coloured == {"sold": PALETTE[0], "eggs": PALETTE[1]}


def test_resolve_span_exact_match_gives_offsets():
    assert resolve_span("Time is money", "money") == (8, 13, False)


def test_resolve_span_falls_back_to_case_insensitive():
    assert resolve_span("Time is money", "TIME") == (0, 4, False)


def test_resolve_span_prefers_an_exact_match_over_an_earlier_case_insensitive_one():
    assert resolve_span("The cat saw the dog", "the") == (12, 15, False)


def test_resolve_span_takes_first_of_several_and_flags_ambiguous():
    assert resolve_span("the cat and the dog", "the") == (0, 3, True)


def test_resolve_span_counts_overlapping_occurrences_as_ambiguous():
    assert resolve_span("aaa", "aa") == (0, 2, True)


def test_resolve_span_ignores_surrounding_whitespace():
    assert resolve_span("Time is money", " money\n") == (8, 13, False)


def test_resolve_span_not_found_is_none():
    assert resolve_span("Time is money", "gold") is None
    assert resolve_span("Time is money", "   ") is None
