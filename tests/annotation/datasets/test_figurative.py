"""Importing figurative narratives: one row per narrative with its option pairs, idempotent;
exporting them (and approved crowd continuations) back to the same lines."""

import json

import pytest

from annotation.datasets.figurative import figurative_export_lines, figurative_import
from annotation.datasets.figurative_files import FigurativeFileError
from annotation.models import ContinuationPair, FigurativeNarrative
from tests.factories import FIGURATIVE_FILES, figurative_import_fixture

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


def test_narratives_confirmed_literal_are_left_out_of_the_export():
    figurative_import_fixture("idiom")
    FigurativeNarrative.objects.filter(expression="broke a leg").update(literal_use_confirmed=True)
    exported = [json.loads(line) for line in figurative_export_lines(kind="idiom")]
    assert {line["idiom"] for line in exported} == {"call it a day"}


def test_imported_narratives_get_the_dataset_check_against_their_expressions_stories(
    django_capture_on_commit_callbacks,
):
    from annotation.quality.integrity import IntegritySettings, similarity_flags

    story = (
        "Maria had been working on the report all week. When her boss asked for one more "
        "change at midnight, she decided to <b>call it a day</b> and went home."
    )
    lines = [
        {"narrative": text, "idiom": "call it a day", "meaning": "to stop working"}
        for text in (
            story,
            story.replace("Maria", "Keiko").replace("report", "slides"),
            "After ten hours of digging the garden, Tom said they should <b>call it a day</b>.",
        )
    ]
    content = "\n".join(json.dumps(line) for line in lines).encode()
    with django_capture_on_commit_callbacks(execute=True):
        figurative_import(content=content, kind="idiom")
    first, copy, other = FigurativeNarrative.objects.order_by("id")
    assert all(narrative.similarity is not None for narrative in (first, copy, other))
    [flag] = similarity_flags(copy.similarity, settings=IntegritySettings())
    assert flag.code == "near_duplicate" and flag.details["narrative"] == first.pk
    assert similarity_flags(other.similarity, settings=IntegritySettings()) == []
