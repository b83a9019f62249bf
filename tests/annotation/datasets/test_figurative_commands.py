"""import_figurative and export_figurative: a report, bad lines by number, a round trip that
gives back the same lines and, imported again, the same records."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ContinuationPair, FigurativeNarrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.review import assignment_approve
from tests.factories import (
    FIGURATIVE_FILES,
    FIGURATIVE_RELEASE,
    continuation_batch_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_import_reports_narratives_and_pairs_as_json():
    report = json.loads(
        run("import_figurative", str(FIGURATIVE_FILES["idiom"]), "--kind", "idiom", "--json")
    )
    assert (report["narratives"], report["pairs"], report["pairs_created"]) == (2, 3, 3)


def test_a_bad_line_is_reported_by_number_and_nothing_imported(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(FIGURATIVE_FILES["simile"].read_bytes() + b'{"narrative": "x"}\n')
    with pytest.raises(CommandError, match="Line 3"):
        run("import_figurative", str(path), "--kind", "simile")
    assert not FigurativeNarrative.objects.exists()


def test_continuations_export_and_reimport_to_the_same_records(tmp_path):
    run("import_figurative", str(FIGURATIVE_FILES["idiom"]), "--kind", "idiom", "--split", "dev")
    narrative = FigurativeNarrative.objects.get(expression="broke a leg")
    batch = continuation_batch_create(narratives=[narrative])
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(
        assignment=assignment,
        payload={
            "plausible": "His teacher smiled proudly from the front row.",
            "implausible": "The nurse put his leg in plaster that night.",
        },
    )
    assignment_approve(assignment=assignment)
    exported = tmp_path / "idioms.jsonl"
    run("export_figurative", "--kind", "idiom", "--output", str(exported))
    lines = exported.read_text().splitlines()
    assert len(lines) == 4
    narratives = set(FigurativeNarrative.objects.values_list("id", "text", "expression_start"))
    pairs = set(ContinuationPair.objects.values_list("id", "option1", "option2", "correct"))

    report = json.loads(run("import_figurative", str(exported), "--kind", "idiom", "--json"))
    assert (report["lines"], report["narratives_created"], report["pairs_created"]) == (4, 0, 0)
    assert set(FigurativeNarrative.objects.values_list("id", "text", "expression_start")) == (
        narratives
    )
    assert set(ContinuationPair.objects.values_list("id", "option1", "option2", "correct")) == pairs
    again = tmp_path / "again.jsonl"
    run("export_figurative", "--kind", "idiom", "--output", str(again))
    assert again.read_text().splitlines() == lines


def test_exported_lines_import_into_an_empty_dataset_as_the_same_records(tmp_path):
    run("import_figurative", str(FIGURATIVE_FILES["idiom"]), "--kind", "idiom")
    exported = tmp_path / "idioms.jsonl"
    run("export_figurative", "--kind", "idiom", "--output", str(exported))
    before = set(
        ContinuationPair.objects.values_list(
            "narrative__text", "narrative__expression_start", "option1", "option2", "correct"
        )
    )
    FigurativeNarrative.objects.all().delete()
    run("import_figurative", str(exported), "--kind", "idiom")
    after = set(
        ContinuationPair.objects.values_list(
            "narrative__text", "narrative__expression_start", "option1", "option2", "correct"
        )
    )
    assert after == before and len(after) == 3


def test_the_release_round_trips_through_the_commands_byte_for_byte(tmp_path):
    for name in ("idiom_train", "idiom_dev", "idiom_test"):
        split = name.split("_")[1]
        path = FIGURATIVE_RELEASE / f"{name}.jsonl"
        run("import_figurative", str(path), "--kind", "idiom", "--split", split)
    for split in ("train", "dev", "test"):
        exported = tmp_path / f"{split}.jsonl"
        run("export_figurative", "--kind", "idiom", "--split", split, "--output", str(exported))
        assert exported.read_bytes() == (FIGURATIVE_RELEASE / f"idiom_{split}.jsonl").read_bytes()


def test_import_prints_each_irregular_line_and_counts_them():
    out, err = StringIO(), StringIO()
    path = FIGURATIVE_RELEASE / "simile_train.jsonl"
    call_command("import_figurative", str(path), "--kind", "simile", stdout=out, stderr=err)
    assert err.getvalue().splitlines() == [
        'Line 2: "property" is false: stored with no property',
        "Line 4: the simile does not occur in the narrative as written: no highlight",
    ]
    assert out.getvalue().strip().endswith("; 2 irregular line(s) imported with a note.")


def test_a_test_split_is_imported_unlabelled_unless_labels_are_given():
    path = str(FIGURATIVE_RELEASE / "idiom_test.jsonl")
    withheld = run("import_figurative", path, "--kind", "idiom", "--split", "test")
    assert "3 option pair(s) (3 new, stored unlabelled)" in withheld
    assert not ContinuationPair.objects.filter(correct__isnull=False).exists()
    run("import_figurative", path, "--kind", "idiom", "--split", "test", "--labels", "given")
    assert not ContinuationPair.objects.filter(correct__isnull=True).exists()
