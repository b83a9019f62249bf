"""Importing figurative narratives: one row per narrative with its option pairs, idempotent;
exporting them (and approved crowd continuations) back to the same lines."""

import json
from datetime import timedelta

import pytest

from annotation.datasets.figurative import (
    figurative_export_lines,
    figurative_export_text,
    figurative_import,
)
from annotation.datasets.figurative_files import FigurativeFileError
from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.quality.similarity_scan import figurative_similarity_pending
from annotation.task_parts.option_pairs import continuation_pair_create
from annotation.tasks import similarity_requeue_task
from tests.factories import (
    FIGURATIVE_FILES,
    FIGURATIVE_PUBLISHED,
    FIGURATIVE_RELEASE,
    figurative_import_fixture,
    figurative_narrative_create,
    figurative_release_import,
)

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


def test_a_narrative_in_train_and_dev_keeps_each_pair_in_its_files_split():
    figurative_release_import("idiom_train")
    report = figurative_release_import("idiom_dev")
    assert (report.narratives_created, report.pairs_created) == (1, 3)
    narrative = FigurativeNarrative.objects.get(expression="bury the hatchet")
    assert narrative.split == "train"
    by_split = {
        split: sorted(narrative.option_pairs.filter(split=split).values_list("option1", flat=True))
        for split in ("train", "dev")
    }
    assert by_split == {
        "train": ["He knocked and hugged his brother.", "They kept fighting for years."],
        "dev": ["He drove away without a word.", "The brothers made up at last."],
    }


def test_a_pair_already_in_another_split_stays_there_with_a_note():
    figurative_release_import("idiom_dev")
    content = (FIGURATIVE_RELEASE / "idiom_dev.jsonl").read_bytes()
    report = figurative_import(content=content, kind="idiom", split="train")
    assert report.pairs_in_other_split == 3
    assert set(ContinuationPair.objects.values_list("split", flat=True)) == {"dev"}
    assert report.notes[0] == {
        "line": 1,
        "note": "this option pair is already in the dev split: left there",
    }


def test_a_test_split_import_stores_no_answers():
    report = figurative_release_import("idiom_test")
    assert not report.labelled and report.pairs_created == 3
    pairs = ContinuationPair.objects.all()
    assert {(pair.split, pair.correct, pair.published_answer) for pair in pairs} == {
        ("test", None, "option1")
    }


def test_labels_given_later_label_the_unlabelled_pairs():
    figurative_release_import("idiom_test")
    report = figurative_release_import("idiom_test", labels="given")
    assert report.labels_added == 3
    assert set(ContinuationPair.objects.values_list("correct", flat=True)) == {1}


def test_irregular_lines_are_imported_and_counted_with_a_note_each():
    report = figurative_release_import("idiom_train")
    assert (report.lines, report.pairs_created, report.irregular_lines) == (8, 8, 4)
    assert [note["line"] for note in report.notes] == [3, 4, 5, 6]
    unmarked = FigurativeNarrative.objects.get(expression="under the weather")
    assert unmarked.text[unmarked.expression_start : unmarked.expression_end] == (
        "under the weather"
    )
    similes = figurative_release_import("simile_train")
    assert [note["line"] for note in similes.notes] == [2, 4]
    assert FigurativeNarrative.objects.get(expression="as slow as a snail").meaning == ""


@pytest.mark.parametrize("name", ["idiom_train", "idiom_dev", "idiom_test", "simile_train"])
def test_export_of_a_split_gives_back_its_file_byte_for_byte(name):
    for other in ("idiom_train", "idiom_dev", "idiom_test", "simile_train"):
        figurative_release_import(other)
    kind, split = name.split("_")
    published = (FIGURATIVE_RELEASE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    assert figurative_export_lines(kind=kind, split=split) == published


def _same_answer_file(lines: int) -> bytes:
    records = [
        {
            "narrative": f"Story {k}: she decided to <b>call it a day</b>.",
            "meaning": "To stop working.",
            "idiom": "call it a day",
            "option1": f"She went home at {k}.",
            "option2": f"She stayed until {k}.",
            "correctanswer": "option1",
        }
        for k in range(lines)
    ]
    return "".join(json.dumps(record) + "\n" for record in records).encode()


@pytest.mark.parametrize(("lines", "labelled"), [(19, True), (20, False)])
def test_one_answer_on_every_line_is_taken_for_a_placeholder_from_twenty_pairs(lines, labelled):
    report = figurative_import(content=_same_answer_file(lines), kind="idiom")
    assert report.labelled is labelled
    assert ContinuationPair.objects.filter(correct__isnull=labelled).count() == 0


def test_labels_given_overrule_the_placeholder_rule():
    report = figurative_import(content=_same_answer_file(20), kind="idiom", labels="given")
    assert report.labelled and set(ContinuationPair.objects.values_list("correct", flat=True)) == {
        1
    }


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


def test_an_import_whose_check_was_lost_is_checked_by_beat_after_the_grace(settings):
    """The import's check is queued after commit; here it never runs (as when the broker
    was down), and beat's re-queue checks the narratives once the grace has passed."""
    from django.utils import timezone

    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 300
    story = "When the rain would not stop, the team agreed to <b>call it a day</b> at noon."
    lines = [
        {"narrative": text, "idiom": "call it a day", "meaning": "to stop working"}
        for text in (story, story.replace("team", "crew"))
    ]
    figurative_import(content="\n".join(map(json.dumps, lines)).encode(), kind="idiom")
    assert FigurativeNarrative.objects.filter(similarity__isnull=True).count() == 2
    assert figurative_similarity_pending() == []  # within the grace: its task may yet run
    assert similarity_requeue_task.delay().get() == 0

    FigurativeNarrative.objects.update(created_at=timezone.now() - timedelta(hours=1))
    assert similarity_requeue_task.delay().get() == 2
    first, copy = FigurativeNarrative.objects.order_by("id")
    assert copy.similarity["proverb"]["narrative"] == first.pk
    assert figurative_similarity_pending() == []


PUBLISHED = ("idiom_train", "idiom_dev", "simile_train")


def published_import(name: str):
    kind, split = name.split("_")
    path = FIGURATIVE_PUBLISHED / f"{name}.jsonl"
    return figurative_import(content=path.read_bytes(), kind=kind, split=split, filename=path.name)


def test_imported_figurative_files_export_byte_for_byte():
    for name in PUBLISHED:
        published_import(name)
    for name in PUBLISHED:
        kind, split = name.split("_")
        exported = figurative_export_text(kind=kind, split=split).encode("utf-8")
        assert exported == (FIGURATIVE_PUBLISHED / f"{name}.jsonl").read_bytes(), name


def test_a_narrative_published_with_two_glosses_is_stored_once_and_each_line_keeps_its_own():
    report = published_import("idiom_train")
    narrative = FigurativeNarrative.objects.get(text__contains=". After the last winter")
    assert narrative.meaning == "to stop working on something"  # the first line's gloss
    assert narrative.option_pairs.count() == 3
    assert report.other_glosses == 1
    assert any("stored once, with its first gloss" in note["note"] for note in report.notes)
    second = json.loads(figurative_export_lines(kind="idiom", split="train")[1])
    assert second["meaning"] == "to decide to stop doing something for now"


def test_a_narrative_edited_after_import_exports_its_lines_rebuilt():
    published_import("simile_train")
    narrative = FigurativeNarrative.objects.get(text__contains="beehive")
    narrative.meaning = "full of people"
    narrative.save()
    lines = figurative_export_lines(kind="simile", split="train")
    edited = next(line for line in lines if "beehive" in line)
    assert json.loads(edited)["property"] == "full of people"
    assert "café" in edited  # rebuilt: written as Parable writes, not as the line was
    assert lines[0] == (FIGURATIVE_PUBLISHED / "simile_train.jsonl").read_text().split("\n")[0]


def test_a_repeated_line_is_stored_once_and_said():
    content = (FIGURATIVE_PUBLISHED / "idiom_train.jsonl").read_bytes()
    first = content.split(b"\n")[0]
    report = figurative_import(content=content + first + b"\n", kind="idiom", split="train")
    assert ContinuationPair.objects.count() == 7
    assert {"line": 8, "note": report.notes[-1]["note"]} == report.notes[-1]
    assert "the same narrative and options as line 1" in report.notes[-1]["note"]


def _stored_rows() -> tuple[list, list]:
    """What the imports stored, without ids: narratives and pairs in id order, each pair
    with whether its display order is the one its id gives (shown_first_for)."""
    from annotation.task_parts.option_pairs import shown_first_for

    narratives = list(
        FigurativeNarrative.objects.order_by("id").values_list(
            "content_key", "kind", "text", "expression", "expression_start", "expression_end",
            "meaning", "split", "source_values", "source_line", "source_state",
        )
    )  # fmt: skip
    pairs = [
        (*row, shown_first == shown_first_for(pk))
        for pk, shown_first, *row in ContinuationPair.objects.order_by("id").values_list(
            "pk", "shown_first", "narrative__content_key", "option1", "option2", "correct",
            "split", "published_answer", "source", "source_line", "source_state",
        )
    ]  # fmt: skip
    return narratives, pairs


def test_a_file_imported_in_bulk_stores_what_its_lines_imported_one_at_a_time_store():
    """The bulk import and the same lines imported one file of one line at a time (a
    repeated line, a second gloss, a pair in train and dev, withheld test labels)."""
    from django.db import transaction

    files = [(name, (FIGURATIVE_RELEASE / f"{name}.jsonl").read_bytes()) for name in RELEASE]
    for name in RELEASE:
        figurative_release_import(name)
    in_bulk = _stored_rows()
    assert len(in_bulk[1]) >= 10 and all(pair[-1] for pair in in_bulk[1])
    with transaction.atomic():
        FigurativeNarrative.objects.all().delete()
        for name, content in files:
            kind, split = name.split("_")
            for line in content.splitlines(keepends=True):
                if line.strip():
                    figurative_import(content=line, kind=kind, split=split, labels=LABELS[name])
        assert _stored_rows() == in_bulk
        transaction.set_rollback(True)


RELEASE = ["idiom_train", "idiom_dev", "idiom_test"]
# What "auto" decides for each whole file, given to each of its lines alone (a one-line
# file is too short to be taken for a placeholder).
LABELS = {"idiom_train": "given", "idiom_dev": "given", "idiom_test": "withheld"}
