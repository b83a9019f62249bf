"""`manage.py bootstrap`: the demo proverbs, the demo write batch and its worker links."""

import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.datasets.demo import demo_write_batch_ensure
from annotation.datasets.epic import dataset_import_epic
from annotation.models import Proverb
from crowd.models import Batch, Worker
from crowd.workers import invite_read
from tests.factories import proverb_create, write_batch_create

pytestmark = pytest.mark.django_db
EPIC = Path(__file__).resolve().parents[1] / "fixtures" / "epic"


def bootstrap(*args) -> str:
    out = io.StringIO()
    call_command("bootstrap", *args, stdout=out)
    return out.getvalue()


def test_bootstrap_publishes_a_demo_batch_and_prints_three_worker_links():
    output = bootstrap()
    batch = Batch.objects.get(task_type="write")
    assert batch.status == Batch.Status.PUBLISHED
    assert (batch.items.count(), batch.target_per_item) == (5, 3)
    assert all(item.proverb.status == "curated" for item in batch.items.all())
    tokens = re.findall(r"http://127\.0\.0\.1:8000/w/([^/\s]+)/", output)
    assert len(tokens) == 3
    workers = [invite_read(token) for token in tokens]
    assert {batch_id for _, batch_id in workers} == {batch.pk}
    assert len({worker.pk for worker, _ in workers}) == 3
    assert "Admin login (shown once)" in output


def test_bootstrap_again_keeps_the_batch_and_prints_the_links_again():
    bootstrap()
    again = bootstrap()
    assert Batch.objects.count() == 1
    assert Worker.objects.count() == 3
    assert len(re.findall(r"/w/[^/\s]+/", again)) == 3
    assert "Admin login" not in again


def test_no_demo_makes_no_batch():
    bootstrap("--no-demo")
    assert not Batch.objects.exists()


def test_no_demo_batch_beside_the_researchers_own_write_batch():
    write_batch_create(proverbs=[proverb_create()])
    assert demo_write_batch_ensure() is None
    assert Batch.objects.count() == 1


def test_bootstrap_after_an_import_says_what_it_loaded_and_builds_no_demo_work_on_it():
    dataset_import_epic(content=(EPIC / "dataset.json").read_bytes())
    output = bootstrap()
    assert "Demo proverbs not loaded: the database holds 3 proverb(s) already" in output
    assert "No demo batch: it is made only on curated demo proverbs" in output
    assert not Batch.objects.exists() and not Worker.objects.exists()
    assert Proverb.objects.filter(status="curated", is_demo=False).count() == 3
