"""The ePiC format as plain Python: file checks, span resolution of records, the record writer."""

import io
import json
from pathlib import Path

import pytest

from annotation.datasets.epic_files import (
    PK_MAX_LENGTH,
    QUOTE_MAX_LENGTH,
    EpicFileError,
    epic_record,
    parse_epic_file,
    write_epic,
)
from annotation.models import Narrative, Proverb

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"


def _content(records: list[dict]) -> bytes:
    return json.dumps(records).encode()


def _record(pk="Q9N1", quote="Time is money", narrative="He paid for speed.", **spans) -> dict:
    fields = {"quote": quote, "narrative": narrative}
    fields.update({f"span_quote_{slot}": "" for slot in range(1, 6)})
    fields.update({f"span_narrative_{slot}": "" for slot in range(1, 6)})
    fields.update(spans)
    return {"pk": pk, "fields": fields}


def test_length_limits_match_the_database_columns():
    assert Narrative._meta.get_field("external_id").max_length == PK_MAX_LENGTH
    assert Proverb._meta.get_field("text").max_length == QUOTE_MAX_LENGTH


# --------------------------------------------------------------------------- parse


def test_parse_reads_the_used_span_slots():
    records = parse_epic_file((FIXTURE / "dataset.json").read_bytes())
    assert [record.pk for record in records] == ["Q1N1", "Q1N2", "Q1N3", "Q2N1", "Q2N2", "Q3N1"]
    assert [span.slot for span in records[2].spans] == [1, 3]


def test_parse_refuses_text_that_is_not_json_naming_line_and_column():
    with pytest.raises(EpicFileError) as caught:
        parse_epic_file(b'[{"pk": "Q1N1",\n "fields": }]')
    assert "not JSON" in str(caught.value)
    assert "line 2" in str(caught.value)


def test_parse_refuses_a_json_object_that_is_not_an_array():
    with pytest.raises(EpicFileError, match="JSON array"):
        parse_epic_file(b'{"pk": "Q1N1"}')


def test_parse_names_every_bad_record_by_number_and_pk():
    records = [_record("Q1N1"), _record("Q1N2"), _record("Q1N3")]
    del records[0]["fields"]["span_quote_4"]
    records[2]["fields"]["keywords"] = "x"
    with pytest.raises(EpicFileError) as caught:
        parse_epic_file(_content(records))
    problems = [(p.record, p.pk) for p in caught.value.errors]
    assert problems == [(1, "Q1N1"), (3, "Q1N3")]
    assert "lacks field(s) span_quote_4" in caught.value.errors[0].message
    assert "unknown field(s) keywords" in caught.value.errors[1].message


def test_parse_refuses_fields_that_are_not_strings():
    record = _record(span_quote_1=3)
    with pytest.raises(EpicFileError, match="span_quote_1 must be strings"):
        parse_epic_file(_content([record]))


def test_parse_refuses_a_pk_given_twice():
    with pytest.raises(EpicFileError, match="Record 2: pk Q9N1 is also record 1"):
        parse_epic_file(_content([_record(), _record()]))


def test_parse_refuses_a_record_without_pk_or_fields():
    with pytest.raises(EpicFileError) as caught:
        parse_epic_file(_content([{"fields": {}}, {"pk": "Q1N1"}, "text"]))
    assert [p.record for p in caught.value.errors] == [1, 2, 3]


def test_parse_refuses_an_empty_narrative():
    with pytest.raises(EpicFileError, match="narrative is empty"):
        parse_epic_file(_content([_record(narrative="  ")]))


# --------------------------------------------------------------------------- writer


def _row(**fields) -> dict:
    row = {
        "pk": "Q1N1",
        "proverb": "Time is money",
        "proverb_quote": None,
        "narrative": "A story.",
        "span_pairs": [],
    }
    return {**row, **fields}


def _pair(alignment, position, proverb_span, narrative_span) -> dict:
    return {
        "alignment": alignment,
        "position": position,
        "proverb_span": proverb_span,
        "narrative_span": narrative_span,
    }


def test_epic_record_gives_back_the_record_s_own_quote():
    assert epic_record(_row())["fields"]["quote"] == "Time is money"
    quoted = epic_record(_row(proverb_quote="time is money!"))
    assert quoted["fields"]["quote"] == "time is money!"


def test_epic_record_fills_slots_from_the_first_alignment_only():
    row = _row(span_pairs=[_pair(1, 2, "money", "story"), _pair(2, 1, "Time", "A")])
    record = epic_record(row)
    assert record["pk"] == "Q1N1"
    assert record["fields"]["span_quote_2"] == "money"
    assert record["fields"]["span_narrative_2"] == "story"
    assert record["fields"]["span_quote_1"] == record["fields"]["span_narrative_1"] == ""
    assert list(record["fields"]) == [
        "quote",
        "narrative",
        *(f"span_quote_{slot}" for slot in range(1, 6)),
        *(f"span_narrative_{slot}" for slot in range(1, 6)),
    ]


def test_write_epic_streams_a_json_array():
    stream = io.StringIO()
    count = write_epic(iter([[_row()], [_row(pk="Q1N2")]]), stream)
    assert count == 2
    assert [record["pk"] for record in json.loads(stream.getvalue())] == ["Q1N1", "Q1N2"]


def test_write_epic_of_nothing_is_an_empty_array():
    stream = io.StringIO()
    assert write_epic(iter([]), stream) == 0
    assert json.loads(stream.getvalue()) == []


def test_parse_names_records_with_nul_or_lone_surrogates_by_number():
    records = [
        _record("Q1N1"),
        _record("Q1N2", narrative="He paid\x00 for speed."),
        _record("Q1N3", span_quote_1="\ud800"),
    ]
    with pytest.raises(EpicFileError) as caught:
        parse_epic_file(_content(records))
    problems = [(p.record, p.pk) for p in caught.value.errors]
    assert problems == [(2, "Q1N2"), (3, "Q1N3")]
    messages = [problem.message for problem in caught.value.errors]
    assert "narrative contains a NUL character" in messages[0]
    assert "span_quote_1 contains an invalid character" in messages[1]


def test_parse_refuses_deep_nesting_as_a_whole():
    with pytest.raises(EpicFileError, match="nested deeper"):
        parse_epic_file(b"[" * 50_000 + b"]" * 50_000)


def test_parse_refuses_more_records_than_the_limit():
    records = [_record(f"Q1N{n}") for n in range(1, 4)]
    with pytest.raises(EpicFileError, match="more than the import limit of 2"):
        parse_epic_file(_content(records), max_records=2)
    assert len(parse_epic_file(_content(records), max_records=3)) == 3


def test_parse_names_a_narrative_longer_than_the_crowd_cap():
    records = [_record("Q1N1"), _record("Q1N2", narrative="word " * 5000)]
    with pytest.raises(EpicFileError) as caught:
        parse_epic_file(_content(records))
    [problem] = caught.value.errors
    assert (problem.record, problem.pk) == (2, "Q1N2")
    assert "longer than 20,000 characters" in problem.message


def test_narrative_cap_is_the_write_tasks():
    from annotation.datasets.epic_files import NARRATIVE_MAX_LENGTH
    from annotation.task_types.write.task import MAX_CHARACTERS

    assert NARRATIVE_MAX_LENGTH == MAX_CHARACTERS
