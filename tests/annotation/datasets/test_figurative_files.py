"""Reading and writing the figurative narratives benchmark's JSONL layout."""

import json

import pytest

from annotation.datasets.figurative_files import (
    FigurativeFileError,
    figurative_line,
    narrative_span,
    parse_figurative_file,
)
from tests.factories import FIGURATIVE_FILES


def test_idiom_markup_becomes_a_span_over_the_text_without_markup():
    text, span = narrative_span(
        "She decided to <b>call it a day</b> and left.", kind="idiom", expression="call it a day"
    )
    assert text == "She decided to call it a day and left."
    assert text[span[0] : span[1]] == "call it a day"


def test_simile_span_is_its_first_case_folded_occurrence_or_none():
    text, span = narrative_span(
        "It was As light as a feather.", kind="simile", expression="as light as a feather"
    )
    assert text[span[0] : span[1]] == "As light as a feather"
    assert narrative_span("No simile here.", kind="simile", expression="as cool as ice")[1] is None


def test_every_bad_line_is_reported_by_number_and_the_file_refused():
    lines = [
        json.dumps(
            {"narrative": "A <b>piece of cake</b>.", "idiom": "piece of cake", "meaning": "easy"}
        ),
        "not json",
        json.dumps({"narrative": "No markup.", "idiom": "x", "meaning": "y"}),
        "",
        json.dumps({"narrative": "A <b>b</b>.", "idiom": "b", "meaning": "c", "option1": "o"}),
        json.dumps(
            {
                "narrative": "A <b>b</b>.",
                "idiom": "b",
                "meaning": "c",
                "option1": "o",
                "option2": "p",
                "correctanswer": "option3",
            }
        ),
    ]
    with pytest.raises(FigurativeFileError) as raised:
        parse_figurative_file("\n".join(lines).encode(), kind="idiom")
    numbers = [line for line, _ in raised.value.errors]
    assert numbers == [2, 3, 5, 6]
    messages = dict(raised.value.errors)
    assert "not valid JSON" in messages[2]
    assert "<b>" in messages[3]
    assert "go together" in messages[5]
    assert "correctanswer" in messages[6]


def test_a_simile_file_refuses_idiom_fields():
    line = json.dumps({"narrative": "A.", "idiom": "x", "meaning": "y"})
    with pytest.raises(FigurativeFileError, match="Line 1"):
        parse_figurative_file(line.encode(), kind="simile")


@pytest.mark.parametrize("kind", ["idiom", "simile"])
def test_lines_read_and_written_again_are_the_same_lines(kind):
    content = FIGURATIVE_FILES[kind].read_text()
    parsed = parse_figurative_file(content.encode(), kind=kind)
    written = [
        figurative_line(
            kind=kind,
            text=line.text,
            expression=line.expression,
            span=line.span,
            meaning=line.meaning,
            options=line.options,
        )
        for line in parsed
    ]
    assert [json.loads(line) for line in written] == [
        json.loads(line) for line in content.splitlines()
    ]
