"""Importing figurative narratives: one row per narrative with its option pairs, idempotent;
exporting them (and approved crowd continuations) back to the same lines."""

import json

import pytest

from annotation.datasets.figurative import (
    continuation_pair_create,
    figurative_export_lines,
    figurative_import,
)
from annotation.datasets.figurative_files import FigurativeFileError
from annotation.models import ContinuationPair, FigurativeNarrative
from tests.factories import FIGURATIVE_FILES, figurative_import_fixture, figurative_narrative_create

pytestmark = pytest.mark.django_db


def test_a_narrative_on_several_lines_is_stored_once_with_each_option_pair():
    report = figurative_import_fixture("idiom")
    assert (report.lines, report.narratives, report.narratives_created) == (3, 2, 2)
    assert (report.pairs, report.pairs_created) == (3, 3)
    narrative = FigurativeNarrative.objects.get(expression="call it a day")
    assert "<b>" not in narrative.text
    assert narrative.text[narrative.expression_start : narrative.expression_end] == "call it a day"
    pairs = narrative.option_pairs.order_by("id")
    assert [pair.correct for pair in pairs] == [1, 2]
    assert {pair.shown_first for pair in ContinuationPair.objects.all()} <= {1, 2}


def test_importing_the_same_file_again_changes_nothing():
    figurative_import_fixture("idiom", split="test")
    before = list(ContinuationPair.objects.values_list("id", "shown_first", "correct"))
    report = figurative_import_fixture("idiom", split="test")
    assert (report.narratives_created, report.pairs_created) == (0, 0)
    assert list(ContinuationPair.objects.values_list("id", "shown_first", "correct")) == before
    assert set(FigurativeNarrative.objects.values_list("split", flat=True)) == {"test"}


def test_a_file_with_a_bad_line_writes_nothing():
    content = FIGURATIVE_FILES["idiom"].read_bytes() + b'{"narrative": "broken"\n'
    with pytest.raises(FigurativeFileError) as raised:
        figurative_import(content=content, kind="idiom")
    assert raised.value.errors[0][0] == 4
    assert FigurativeNarrative.objects.count() == 0


@pytest.mark.parametrize("kind", ["idiom", "simile"])
def test_export_gives_back_the_imported_lines(kind):
    figurative_import_fixture(kind)
    exported = figurative_export_lines(kind=kind)
    original = FIGURATIVE_FILES[kind].read_text().splitlines()
    assert [json.loads(line) for line in exported] == [json.loads(line) for line in original]


def test_a_narrative_confirmed_literal_keeps_only_its_imported_pairs_in_the_export():
    figurative_import_fixture("idiom")
    literal = FigurativeNarrative.objects.get(expression="broke a leg")
    continuation_pair_create(
        narrative=literal,
        option1="He limped off the stage.",
        option2="He bowed twice.",
        correct=2,
        source=ContinuationPair.Source.CROWD,
    )
    FigurativeNarrative.objects.filter(pk=literal.pk).update(literal_use_confirmed=True)
    figurative_narrative_create(
        text="The old bridge finally broke the ice.", expression="broke the ice"
    )
    FigurativeNarrative.objects.filter(expression="broke the ice").update(
        literal_use_confirmed=True
    )
    exported = [json.loads(line) for line in figurative_export_lines(kind="idiom")]
    assert [line["idiom"] for line in exported].count("call it a day") == 2
    assert [
        (line["option1"], line["option2"]) for line in exported if line["idiom"] == "broke a leg"
    ] == [("He was taken to hospital in an ambulance.", "His teacher hugged him after the show.")]
    assert "broke the ice" not in {line["idiom"] for line in exported}
