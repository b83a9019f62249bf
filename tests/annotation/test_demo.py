"""Demo data: marked when loaded, left out of the curated count, removable in one action."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.curation.services import curation_progress
from annotation.datasets.demo import demo_data_remove, demo_proverbs_load, demo_write_batch_ensure
from annotation.datasets.epic import dataset_import_epic
from annotation.models import Narrative, Proverb, VariantGroup
from annotation.task_types.choose.models import ChoiceQuestion
from crowd.models import Batch, Worker
from tests.factories import (
    choice_answer_create,
    crowd_narrative_create,
    proverb_create,
    task_batch_create,
)

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "epic"


@pytest.fixture
def demo():
    demo_proverbs_load()
    batch, workers = demo_write_batch_ensure()
    return batch, workers


def test_demo_proverbs_and_batch_are_marked(demo):
    batch, _ = demo
    assert not Proverb.objects.filter(is_demo=False).exists()
    assert batch.is_demo


def test_the_curated_count_leaves_demo_proverbs_out_but_counts_those_epic_uses(demo):
    demo_curated = Proverb.objects.filter(status="curated").count()
    dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    progress = curation_progress()
    used = Proverb.objects.filter(narratives__isnull=False).distinct()
    assert used.count() == 3
    assert not used.filter(is_demo=True).exists()
    assert progress["curated"] == used.filter(status="curated").count()
    assert progress["curated"] == 3
    # Two were curated demo proverbs; the third, a candidate in a variant group of the demo
    # list, the import curated.
    assert progress["demo_curated"] == demo_curated - 2


def test_removal_leaves_the_proverbs_an_import_matched_curated_as_it_imported_them(demo):
    chickens = Proverb.objects.get(text="Don't count your chickens before they hatch")
    assert chickens.status == "candidate"  # in a variant group of the demo list
    dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    demo_data_remove()
    used = Proverb.objects.filter(narratives__isnull=False).distinct()
    assert sorted(used.values_list("status", flat=True)) == ["curated"] * 3
    assert used.filter(pk=chickens.pk).exists()
    assert Proverb.objects.count() == 3 and not VariantGroup.objects.exists()


def test_removal_takes_the_demo_batch_its_work_workers_and_proverbs(demo):
    batch, workers = demo
    crowd_narrative_create(
        proverb=batch.items.first().proverb, batch=batch, worker=workers[0], status="submitted"
    )
    removed = demo_data_remove()
    assert (removed.batches, removed.narratives, removed.workers) == (1, 1, 3)
    assert not Proverb.objects.exists()
    assert not Batch.objects.exists()
    assert not Narrative.objects.exists()
    assert not Worker.objects.exists()
    assert not VariantGroup.objects.exists()


def test_removal_keeps_demo_proverbs_that_study_data_uses(demo):
    proverb = Proverb.objects.filter(status="curated").last()
    real = proverb_create("A study proverb not in the demo list")
    Narrative.objects.create(proverb=proverb, text="Imported.", source="imported")
    removed = demo_data_remove()
    assert removed.proverbs_kept == 1
    assert list(Proverb.objects.order_by("id")) == [proverb, real]
    proverb.refresh_from_db()
    assert not proverb.is_demo


def test_removal_keeps_the_demo_batch_a_study_batch_draws_from_and_says_why(demo):
    batch, workers = demo
    crowd_narrative_create(
        proverb=batch.items.first().proverb, batch=batch, worker=workers[0], status="approved"
    )
    align = task_batch_create(task_type="align", source_batch=batch, name="Align: study")
    removed = demo_data_remove()
    assert Batch.objects.filter(pk=batch.pk).exists() and Narrative.objects.count() == 1
    assert removed.batches == 0
    assert any(
        "Demo: write narratives" in line and "'Align: study'" in line for line in removed.kept
    )
    assert Batch.objects.filter(pk=align.pk).exists()
    # The kept batch's proverbs stay, as study proverbs; the rest are gone.
    assert set(Proverb.objects.all()) == {item.proverb for item in batch.items.all()}
    assert not Proverb.objects.filter(is_demo=True).exists()


def test_removal_keeps_a_demo_proverb_a_worker_chose_as_a_wrong_answer(demo):
    real = proverb_create("A study proverb not in the demo list", status="curated")
    narrative = Narrative.objects.create(proverb=real, text="Imported.", source="imported")
    wrong, unused_option = Proverb.objects.filter(is_demo=True).order_by("id")[:2]
    question = ChoiceQuestion.objects.create(
        narrative=narrative,
        correct=real,
        options=[real.pk, wrong.pk, unused_option.pk],
        distractor_source="lexical",
    )
    choose = task_batch_create(task_type="choose", name="Choose: study", publish=False)
    choice_answer_create(
        narrative=narrative, correct=False, batch=choose, question=question, chosen=wrong
    )
    removed = demo_data_remove()
    assert set(Proverb.objects.all()) == {real, wrong, unused_option}
    assert not Proverb.objects.filter(is_demo=True).exists()
    assert removed.proverbs_kept == 2 and removed.batches == 1
    kept = "\n".join(removed.kept)
    assert f"{wrong.text!r}, now a study proverb: an option of 1 choice question(s)" in kept
    assert f"{unused_option.text!r}" in kept


def test_a_protected_proverb_is_kept_with_what_protects_it(demo):
    proverb = Proverb.objects.filter(is_demo=True).last()
    choose = task_batch_create(task_type="choose", name="Choose: study", publish=False)
    narrative = Narrative.objects.create(
        proverb=proverb_create("A study proverb"), text="Imported.", source="imported"
    )
    question = ChoiceQuestion.objects.create(
        narrative=narrative, correct=narrative.proverb, options=[], distractor_source="lexical"
    )
    choice_answer_create(
        narrative=narrative, correct=False, batch=choose, question=question, chosen=proverb
    )
    removed = demo_data_remove()
    assert list(Proverb.objects.exclude(pk=narrative.proverb_id)) == [proverb]
    assert removed.kept == (
        f"the proverb {proverb.text!r}, now a study proverb: "
        "used by choice answers (1, in 'Choose: study')",
    )


def test_a_preview_changes_nothing_and_tells_what_a_removal_would_do(demo):
    preview = demo_data_remove(commit=False)
    assert Proverb.objects.filter(is_demo=True).count() == preview.proverbs > 0
    assert Batch.objects.filter(is_demo=True).count() == preview.batches == 1
    assert demo_data_remove() == preview


def test_command_asks_first_and_removes_nothing_without_yes(demo, monkeypatch):
    out = StringIO()
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Nothing was removed"):
        call_command("remove_demo_data", stdout=out)
    assert "This removes" in out.getvalue()
    assert Proverb.objects.filter(is_demo=True).exists()
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    call_command("remove_demo_data", stdout=out)
    assert not Proverb.objects.exists()


def test_command_removes_and_reports(demo):
    out = StringIO()
    call_command("remove_demo_data", "--no-input", stdout=out)
    assert "demo batch(es)" in out.getvalue()
    assert not Proverb.objects.exists()


def test_command_lists_what_it_kept(demo):
    task_batch_create(task_type="align", source_batch=demo[0], name="Align: study")
    out = StringIO()
    call_command("remove_demo_data", "--no-input", stdout=out)
    assert "Kept, because study data uses them:" in out.getvalue()
    assert "'Align: study'" in out.getvalue()


def test_ratings_and_answers_about_demo_stories_count_nowhere(demo):
    from annotation.analysis.selectors import evaluation_records
    from tests.factories import rating_create

    batch, workers = demo
    demo_story = crowd_narrative_create(
        proverb=batch.items.first().proverb, batch=batch, worker=workers[0], status="approved"
    )
    study_story = crowd_narrative_create(proverb=proverb_create(), status="approved")
    for story in (demo_story, study_story):
        rating_create(narrative=story, criterion="fluency", value=4)
        choice_answer_create(narrative=story, correct=True)
    records = evaluation_records()
    assert [record.narrative_id for record in records["ratings"]] == [study_story.pk]
    assert len(records["choices"]) == 1
