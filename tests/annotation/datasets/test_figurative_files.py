"""Reading and writing the figurative narratives benchmark's JSONL layout."""

import json

import pytest

from annotation.datasets.figurative_files import (
    FigurativeFileError,
    figurative_line,
    narrative_span,
    parse_figurative_file,
)
from tests.factories import FIGURATIVE_FILES, FIGURATIVE_RELEASE


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


def test_every_unusable_line_is_reported_by_number_and_the_file_refused():
    lines = [
        json.dumps(
            {"narrative": "A <b>piece of cake</b>.", "idiom": "piece of cake", "meaning": "easy"}
        ),
        "not json",
        json.dumps({"narrative": "No markup.", "idiom": "x"}),
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
    assert numbers == [2, 5, 6]
    messages = dict(raised.value.errors)
    assert "not valid JSON" in messages[2]
    assert "go together" in messages[5]
    assert "correctanswer" in messages[6]


def test_a_simile_file_refuses_idiom_fields():
    line = json.dumps({"narrative": "A.", "idiom": "x", "meaning": "y"})
    with pytest.raises(FigurativeFileError, match="Line 1"):
        parse_figurative_file(line.encode(), kind="simile")


def _written_again(content: str, kind: str) -> list[str]:
    return [
        figurative_line(
            kind=kind,
            text=line.text,
            expression=line.expression,
            span=line.span,
            meaning=line.meaning,
            options=line.options,
            answer=line.answer,
            source_values=line.source_values,
        )
        for line in parse_figurative_file(content.encode(), kind=kind)
    ]


@pytest.mark.parametrize("kind", ["idiom", "simile"])
def test_lines_read_and_written_again_are_the_same_lines(kind):
    content = FIGURATIVE_FILES[kind].read_text()
    assert [json.loads(line) for line in _written_again(content, kind)] == [
        json.loads(line) for line in content.splitlines()
    ]


def _one(record: dict, kind: str = "idiom"):
    return parse_figurative_file(json.dumps(record).encode(), kind=kind)[0]


def test_an_idiom_marked_twice_takes_the_mark_that_reads_as_the_idiom_with_a_note():
    line = _one(
        {
            "narrative": "After the <b>long</b> day she said to <b>call it a day</b>.",
            "idiom": "call it a day",
            "meaning": "stop",
        }
    )
    assert line.text == "After the long day she said to call it a day."
    assert line.text[slice(*line.span)] == "call it a day" and line.span[0] == 31
    assert line.notes == (
        "the idiom is marked 2 times; occurrence 2 (the one that reads as the idiom, "
        "characters 31-44) is the expression",
    )


def test_an_idiom_marked_twice_the_same_takes_the_first_mark():
    line = _one({"narrative": "<b>Go</b> on, <b>go</b>!", "idiom": "go", "meaning": "leave"})
    assert line.span == (0, 2) and "occurrence 1" in line.notes[0]


def test_an_idiom_without_markup_is_its_first_occurrence_or_has_no_highlight():
    found = _one({"narrative": "She felt Under the weather.", "idiom": "under the weather"})
    assert found.span == (9, 26)
    assert found.notes[0] == '"meaning" is missing: stored with no meaning'
    assert found.notes[1].startswith("no <b>...</b>: the expression is the idiom's first")
    absent = _one(
        {"narrative": "He spilled the beans.", "idiom": "spill the beans", "meaning": "m"}
    )
    assert absent.span is None
    assert absent.notes == ("no <b>...</b> and the idiom does not occur as written: no highlight",)


def test_a_stray_tag_is_left_out_of_the_text_with_a_note():
    line = _one(
        {
            "narrative": "A <b>piece of cake</b> it was</b>.",
            "idiom": "piece of cake",
            "meaning": "m",
        }
    )
    assert line.text == "A piece of cake it was." and line.span == (2, 15)
    assert line.notes == ("1 unmatched <b> or </b> left out of the text",)


def test_a_simile_property_false_is_imported_as_no_property_with_a_note():
    line = _one(
        {"narrative": "As slow as a snail.", "simile": "as slow as a snail", "property": False},
        kind="simile",
    )
    assert line.meaning == "" and line.span == (0, 18)
    assert line.notes == ('"property" is false: stored with no property',)
    assert line.source_values["property"] is False


@pytest.mark.parametrize("name", ["idiom_train", "idiom_dev", "idiom_test", "simile_train"])
def test_release_lines_are_written_back_byte_for_byte(name):
    kind = name.split("_")[0]
    raw = (FIGURATIVE_RELEASE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    assert _written_again("\n".join(raw), kind) == raw


def test_a_mark_around_no_word_is_left_out_and_the_idiom_found_in_the_text():
    line = _one(
        {"narrative": "He <b> </b>broke the ice.", "idiom": "broke the ice", "meaning": "m"}
    )
    assert line.text == "He  broke the ice." and line.text[slice(*line.span)] == "broke the ice"
    assert line.notes[0] == "1 <b></b> around no word left out"
