"""Demo data: marked when loaded, left out of the curated count, removable in one action."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.curation.demo import demo_data_remove, demo_proverbs_load, demo_write_batch_ensure
from annotation.curation.services import curation_progress
from annotation.datasets.epic import dataset_import_epic
from annotation.models import Narrative, Proverb, VariantGroup
from crowd.models import Batch, Worker
from tests.factories import crowd_narrative_create, proverb_create, task_batch_create

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"


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
    assert progress["demo_curated"] == demo_curated - progress["curated"]


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


def test_removal_is_refused_while_a_study_batch_draws_from_the_demo_batch(demo):
    batch, _ = demo
    task_batch_create(task_type="align", source_batch=batch)
    with pytest.raises(ValueError, match="draw from the demo batch"):
        demo_data_remove()
    assert Proverb.objects.filter(is_demo=True).exists()


def test_command_removes_and_reports(demo):
    out = StringIO()
    call_command("remove_demo_data", stdout=out)
    assert "demo batch(es)" in out.getvalue()
    assert not Proverb.objects.exists()


def test_command_refusal_is_an_error(demo):
    task_batch_create(task_type="align", source_batch=demo[0])
    with pytest.raises(CommandError, match="Nothing was removed"):
        call_command("remove_demo_data", stdout=StringIO())
