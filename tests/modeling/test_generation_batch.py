"""Generation runs in the platform: launched from the admin and the command line, refused
without keywords, and their narratives sent to a rate batch (ePiC Table 12)."""

import json
import sys

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.utils.html import escape

from annotation.analysis.selectors import evaluation_records
from annotation.datasets.records import dataset_narratives
from annotation.models import Narrative
from annotation.task_parts.distractors import get_source
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.batches import batch_publish
from crowd.models import Batch
from modeling.models import Run
from modeling.runs.generation_batch import generation_label, rate_batch_from_run
from modeling.runs.services import run_create
from modeling.runs.snapshots import snapshot_freeze
from modeling.training.examples import SnapshotError
from tests.factories import invite_path, split_dataset_create, worker_create

pytestmark = pytest.mark.django_db

GENERATION_FORM = {
    "task": "generation",
    "setting": "seen",
    "epochs": 2,
    "batch_size": 4,
    "learning_rate": 1e-3,
    "max_length": 32,
    "seeds": "1",
    "target_max_length": 24,
    "max_new_tokens": 6,
    "num_beams": 2,
    "no_repeat_ngram_size": 2,
}
RATINGS = {"relatedness": 2, "interesting": 3, "fluency": 4, "overall": 2}


def keyword_dataset() -> list[Narrative]:
    """The factories' split dataset, each narrative with keywords as approval extracts them."""
    narratives = split_dataset_create()
    for narrative in narratives:
        words = narrative.text.rstrip(".").split()
        narrative.keywords = {"verbs": words[1:3], "entities": [{"text": words[0]}]}
        narrative.save(update_fields=["keywords"])
    return narratives


def finished_generation_run(generated: dict[Narrative, str]) -> Run:
    """A succeeded generation run whose test predictions generated `generated[narrative]`."""
    predictions = [
        {
            "narrative_id": narrative.pk,
            "proverb_id": narrative.proverb_id,
            "proverb": narrative.proverb.text,
            "keywords": ["sold"],
            "reference": narrative.text,
            "generated": text,
            "keywords_found": 0,
        }
        for narrative, text in generated.items()
    ]
    return Run.objects.create(
        task="generation",
        setting="seen",
        model_name="tiny",
        snapshot=snapshot_freeze(),
        status=Run.Status.SUCCEEDED,
        predictions=predictions,
        metrics={"test": {"bleu": 1.5, "rouge_l": 0.2, "keyword_recall": 0.0, "total": 1}},
        selected_epoch=1,
    )


def test_a_generation_run_launched_from_the_admin_stores_and_shows_its_results(
    client, researcher, tiny_model, artifacts, django_capture_on_commit_callbacks
):
    keyword_dataset()
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/modeling/run/add/", {**GENERATION_FORM, "model_name": tiny_model}
        )
    run = Run.objects.get()
    assert response.status_code == 302 and run.status == "succeeded", run.error
    assert run.hyperparameters["num_beams"] == 2 and run.hyperparameters["max_new_tokens"] == 6
    test = run.metrics["test"]
    assert set(test) == {
        *("bleu", "rouge_l", "keyword_recall", "keyword_recall_lemmas", "total", "decoding"),
        *("distinct", "distinct_count", "most_repeated", "degenerate", "health"),
    }
    assert test["health"]["passed"] is False  # a tiny model's few tokens are no stories
    assert test["decoding"] == "the model alone"
    assert len(run.predictions) == test["total"] == run.environment["counts"]["test"]
    assert {"reference", "generated", "keywords", "proverb"} <= set(run.predictions[0])
    assert (artifacts / f"run-{run.pk}" / "config.json").is_file()
    page = client.get(response.url).content.decode()
    assert 'id="run-generation-results"' in page and 'id="run-generated"' in page
    assert "lowest dev loss" in page and "<svg" in page and "Dev loss" in page
    assert "Send generated narratives to a rate batch" in page
    assert "Create a choose batch" not in page  # generated text is no proverb distribution
    results = client.get("/admin/modeling/run/results/").content.decode()
    assert 'class="results generation"' in results and "Keyword recall" in results
    assert f"/admin/modeling/run/{run.pk}/change/" in results and f"{test['bleu']:.2f}" in results
    download = client.get(f"/admin/modeling/run/{run.pk}/json/").json()
    assert download["predictions"] == run.predictions


def test_a_snapshot_without_keywords_is_refused_with_a_clear_message(client, researcher):
    split_dataset_create()  # approved, but no keywords extracted
    with pytest.raises(SnapshotError, match="None of the snapshot's 24 narratives has keywords"):
        run_create(task="generation", model_name="tiny", queue=False)
    client.force_login(researcher)
    response = client.post("/admin/modeling/run/add/", {**GENERATION_FORM, "model_name": "tiny"})
    assert response.status_code == 200 and "has keywords" in response.content.decode()
    assert not Run.objects.exists()


def test_too_few_narratives_with_keywords_are_refused():
    narratives = keyword_dataset()
    Narrative.objects.exclude(pk=narratives[0].pk).update(keywords={})
    with pytest.raises(
        SnapshotError,
        match=r"keywords for generation \(1 of 24; 23 without keywords are left out\)",
    ):
        run_create(task="generation", model_name="tiny", queue=False)


def test_sent_narratives_become_model_narratives_in_a_rate_batch_beside_the_human_ones(
    client, researcher
):
    narratives = split_dataset_create()
    run = finished_generation_run({n: f"Generated story {n.pk}." for n in narratives[:4]})
    dataset_before = sorted(dataset_narratives(approved_only=True).values_list("pk", flat=True))
    client.force_login(researcher)
    response = client.post(
        f"/admin/modeling/run/{run.pk}/rate/",
        {"sample": 3, "with_human": "on", "target_per_item": 2, "seed": 1, "name": ""},
    )
    batch = Batch.objects.get(task_type="rate")
    assert response.url == f"/admin/crowd/batch/{batch.pk}/change/"
    assert batch.status == "draft" and batch.target_per_item == 2
    generated = Narrative.objects.filter(source="model")
    assert generated.count() == 3
    assert set(generated.values_list("source_label", flat=True)) == {generation_label(run)}
    assert generation_label(run) == f"run {run.pk}: generation, tiny"
    items = list(batch.items.select_related("narrative"))
    human = [item.narrative for item in items if item.narrative.source != "model"]
    assert len(items) == 6 and len(human) == 3
    texts = {f"Generated story {narrative.pk}." for narrative in human}
    assert texts == set(generated.values_list("text", flat=True))  # the matching references
    # Model narratives never enter the dataset, its export or a snapshot.
    dataset_after = sorted(dataset_narratives(approved_only=True).values_list("pk", flat=True))
    assert dataset_after == dataset_before
    assert snapshot_freeze().pk == run.snapshot_id
    # Sending the same items again reuses their narratives.
    rate_batch_from_run(run=run, sample=3, with_human=False)
    assert Narrative.objects.filter(source="model").count() == 3


def test_raters_see_generated_text_escaped_and_their_ratings_compare_it_as_model(client):
    narratives = split_dataset_create()
    text = "<script>alert(1)</script> The hen & the fox sold the eggs."
    run = finished_generation_run({narratives[0]: text})
    batch = batch_publish(batch=rate_batch_from_run(run=run, sample=1, with_human=True))
    worker = worker_create()
    sources = set()
    for _ in range(2):
        assignment = assignment_reserve_next(batch=batch, worker=worker)
        client.get(invite_path(worker=worker))
        page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
        if assignment.item.narrative.source == "model":
            assert "&lt;script&gt;alert(1)&lt;/script&gt; The hen &amp; the fox" in page
            assert "<script>alert(1)" not in page
        else:
            assert escape(narratives[0].text) in page
        assert escape(narratives[0].proverb.text) in page
        sources.add(assignment.item.narrative.source)
        assignment_submit(assignment=assignment, payload={"ratings": RATINGS})
    assert sources == {"model", "imported"}
    compared = {record.source for record in evaluation_records(batches=[batch.pk])["ratings"]}
    assert compared == {f"model:{generation_label(run)}", "imported:unlabelled"}


def test_generated_text_is_escaped_on_the_run_page(client, researcher):
    narratives = split_dataset_create()
    run = finished_generation_run({narratives[0]: "<b>bold</b> model & text"})
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt; model &amp; text" in page and "<b>bold</b>" not in page


def test_sending_needs_batch_and_narrative_permissions(client, reviewer, django_user_model):
    narratives = split_dataset_create()
    run = finished_generation_run({narratives[0]: "A generated story."})
    form = {"sample": 1, "target_per_item": 2, "seed": 1}
    client.force_login(reviewer)
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    assert "Send generated narratives" not in page
    assert client.post(f"/admin/modeling/run/{run.pk}/rate/", form).status_code == 403
    batcher = django_user_model.objects.create_user(username="batcher", is_staff=True)
    batcher.user_permissions.add(*Permission.objects.filter(codename__in=["view_run", "add_batch"]))
    client.force_login(batcher)
    assert client.post(f"/admin/modeling/run/{run.pk}/rate/", form).status_code == 403
    assert not Batch.objects.exists() and not Narrative.objects.filter(source="model").exists()


def test_only_finished_generation_runs_are_sent_and_none_gives_distractors(client, researcher):
    narratives = split_dataset_create()
    run = finished_generation_run({narratives[0]: "A generated story."})
    with pytest.raises(LookupError, match=f"No finished run {run.pk} with proverb predictions"):
        get_source(f"model:{run.pk}")
    run.status = Run.Status.FAILED
    run.save()
    client.force_login(researcher)
    response = client.post(
        f"/admin/modeling/run/{run.pk}/rate/", {"sample": 1, "target_per_item": 2, "seed": 1}
    )
    assert response.url == f"/admin/modeling/run/{run.pk}/change/"
    messages = client.get(response.url).content.decode()
    assert "is not a finished generation run" in messages and not Batch.objects.exists()


def test_run_baseline_generation_writes_its_json(
    tiny_model, artifacts, tmp_path, capsys, monkeypatch
):
    keyword_dataset()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a researcher's terminal: bars
    out = tmp_path / "generation.json"
    options = {
        "--model": tiny_model,
        "--epochs": 1,
        "--batch-size": 4,
        "--learning-rate": 0.001,
        "--target-max-length": 24,
        "--max-new-tokens": 5,
        "--json": out,
    }
    call_command("run_baseline", "generation", *(str(v) for pair in options.items() for v in pair))
    record = json.loads(out.read_text())
    run = Run.objects.get()
    assert record["task"] == "generation" and record["status"] == "succeeded"
    assert record["hyperparameters"]["max_new_tokens"] == 5
    assert len(record["predictions"]) == record["metrics"]["test"]["total"] > 0
    assert record["metrics"]["selection"] == "lowest dev loss"
    err = capsys.readouterr().err
    assert "training epoch 1/1" in err and "test BLEU" in err
    # A tiny model's few tokens are not like the references, and the summary says so first.
    assert f"Run {run.pk} (seed 1): NOT LIKE THE REFERENCES (" in err


def test_the_progress_line_shows_the_dev_loss_of_a_generation_run():
    from modeling.admin.display import progress_line

    run = Run(
        status=Run.Status.RUNNING,
        progress={"stage": "training", "epoch": 2, "epochs": 3, "loss": 2.5, "dev_loss": 3.25},
    )
    assert progress_line(run) == "training · epoch 2/3 · loss 2.5000 · dev loss 3.2500"


@pytest.mark.parametrize(
    ("values", "message"),
    [({"num_beams": 0}, "beams must be at least 1"), ({"no_repeat_ngram_size": -1}, "0 \\(off\\)")],
)
def test_bad_decoding_settings_are_refused(values, message):
    with pytest.raises(ValueError, match=message):
        run_create(task="generation", model_name="tiny", hyperparameters=values, queue=False)
