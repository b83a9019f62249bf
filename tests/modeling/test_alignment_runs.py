"""Alignment and pipeline runs through the services, the admin and run_baseline."""

import json

import pytest
from django.core.management import CommandError, call_command

from modeling.models import Run
from modeling.runs.distractors import choose_batch_from_run
from modeling.runs.services import run_create, run_execute
from modeling.training.examples import SnapshotError
from tests.factories import aligned_dataset_create, finished_run_create, split_dataset_create
from tests.modeling.conftest import TINY_HYPERPARAMETERS

pytestmark = pytest.mark.django_db


def executed(task: str, tiny_model, **fields) -> Run:
    run = run_create(
        task=task,
        model_name=tiny_model,
        hyperparameters=TINY_HYPERPARAMETERS,
        queue=False,
        **fields,
    )
    return run_execute(run_id=run.pk)


def test_alignment_on_a_snapshot_without_alignments_is_refused_with_the_numbers(tiny_model):
    aligned_dataset_create(aligned=2)
    with pytest.raises(SnapshotError, match=r"at least 3 in seen train .* \(2 of its 24 "):
        run_create(task="alignment", model_name=tiny_model, queue=False)
    assert not Run.objects.exists()


def test_alignment_run_stores_span_predictions_and_its_model(tiny_model, artifacts):
    narratives = aligned_dataset_create()
    run = executed("alignment", tiny_model)
    assert run.status == "succeeded", run.error
    texts = {n.pk: n.text for n in narratives}
    first = run.predictions[0]
    assert first["gold_text"] == texts[first["narrative_id"]][slice(*first["gold"])]
    assert first["predicted_text"] == texts[first["narrative_id"]][slice(*first["predicted"])]
    assert run.metrics["test"]["total"] == len(run.predictions) == 12  # one pair each
    assert run.environment["counts"]["unaligned_narratives_left_out"] == 0
    assert (artifacts / f"run-{run.pk}" / "span_head.pt").is_file()


def alignment_run_create(pairs: list, **fields) -> Run:
    """A succeeded alignment run on the data now whose predictions have the given span F1."""
    from modeling.runs.snapshots import snapshot_freeze

    predictions = [
        {
            "narrative_id": narrative.pk,
            "proverb_id": narrative.proverb_id,
            "proverb_span": "x",
            "gold": [0, 3],
            "gold_text": narrative.text[:3],
            "predicted": [0, 3],
            "predicted_text": narrative.text[:3],
            "truncated": False,
            "precision": f1,
            "recall": f1,
            "f1": f1,
            "exact": float(f1 == 1),
        }
        for narrative, f1 in pairs
    ]
    fields = {"setting": "seen", "status": Run.Status.SUCCEEDED, **fields}
    return Run.objects.create(
        task="alignment",
        model_name="tiny",
        snapshot=snapshot_freeze(),
        predictions=predictions,
        **fields,
    )


def three_proverbs():
    """Narratives of three proverbs, a fourth proverb the model may wrongly prefer, and a
    proverb run that ranks the first and third narratives' proverbs first, not the second's."""
    narratives = split_dataset_create()
    first, second, third, other = (narratives[i] for i in (0, 4, 8, 12))
    wrong = other.proverb_id
    proverbs = [n.proverb_id for n in (first, second, third, other)]

    def probabilities(narrative, own: float) -> dict:
        rest = dict.fromkeys(proverbs, 0.0)
        return {**rest, narrative.proverb_id: own, wrong: 1 - own}

    proverb_run = finished_run_create(
        probabilities={
            first: probabilities(first, 0.9),
            second: probabilities(second, 0.2),
            third: probabilities(third, 0.6),
        }
    )
    return (first, second, third), proverb_run


def pipeline_create(proverb_run: Run, alignment_run: Run, queue: bool = True) -> Run:
    runs = {"proverb_run": proverb_run.pk, "alignment_run": alignment_run.pk}
    return run_create(task="pipeline", hyperparameters=runs, queue=queue)


def test_pipeline_counts_spans_only_where_the_proverb_was_right():
    (first, second, third), proverb_run = three_proverbs()
    alignment_run = alignment_run_create([(first, 0.5), (second, 1.0), (third, 1.0)])
    run = pipeline_create(proverb_run, alignment_run, queue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == "succeeded", run.error
    assert run.metrics["test"]["f1"] == pytest.approx((0.5 + 0 + 1.0) / 3)
    assert run.metrics["test"]["exact"] == pytest.approx(1 / 3)
    assert run.metrics["proverb"]["accuracy"] == pytest.approx(2 / 3)
    assert run.metrics["alignment_alone"]["f1"] == pytest.approx(2.5 / 3)
    assert [p["proverb_correct"] for p in run.predictions] == [True, False, True]
    assert run.hyperparameters == {"proverb_run": proverb_run.pk, "alignment_run": alignment_run.pk}
    assert run.snapshot == alignment_run.snapshot and run.setting == "seen"
    # Span runs rank no proverbs: they choose no distractors.
    for span_run in (alignment_run, run):
        with pytest.raises(LookupError, match="No finished run"):
            choose_batch_from_run(run=span_run)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"setting": "unseen"}, "is seen and run .* is unseen"),
        ({"status": Run.Status.RUNNING}, "has not succeeded \\(it is running\\)"),
    ],
)
def test_pipeline_refuses_runs_that_differ_or_are_unfinished(change, message):
    (first, *_), proverb_run = three_proverbs()
    alignment_run = alignment_run_create([(first, 1.0)], **change)
    with pytest.raises(ValueError, match=message):
        pipeline_create(proverb_run, alignment_run)
    with pytest.raises(ValueError, match="is a classifier run, not an alignment run"):
        pipeline_create(proverb_run, proverb_run)
    assert not Run.objects.filter(task="pipeline").exists()


def test_pipeline_refuses_runs_on_different_snapshots():
    (first, *_), proverb_run = three_proverbs()
    first.text = "Changed, so the data now has another snapshot."
    first.save()
    alignment_run = alignment_run_create([(first, 1.0)])
    with pytest.raises(ValueError, match="used different snapshots"):
        pipeline_create(proverb_run, alignment_run)


LAUNCH = {
    "setting": "seen",
    "epochs": 2,
    "batch_size": 4,
    "learning_rate": 2e-5,
    "max_length": 32,
    "span_max_tokens": 64,
    "seeds": "1",
}


def test_admin_launches_alignment_then_pipeline_and_shows_both_tables(
    client, researcher, tiny_model, artifacts, django_capture_on_commit_callbacks
):
    narratives = aligned_dataset_create()
    narratives[0].text = "<b>bold</b> " + narratives[0].text  # imported text, escaped
    narratives[0].save()
    proverb_run = executed("classifier", tiny_model)
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/modeling/run/add/",
            {**LAUNCH, "task": "alignment", "model_name": tiny_model},
        )
    alignment_run = Run.objects.get(task="alignment")
    assert response.status_code == 302, response.content.decode()[:2000]
    assert alignment_run.status == "succeeded", alignment_run.error
    page = client.get(response.url).content.decode()
    assert 'id="run-span-predictions"' in page and "<mark" in page and "Dev span F1" in page
    assert "<svg" in page and "span F1" in page and "Create a choose batch" not in page
    assert "<b>bold</b>" not in page

    form = client.get("/admin/modeling/run/add/").content.decode()
    assert f'<option value="{alignment_run.pk}">' in form
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/modeling/run/add/",
            {
                **LAUNCH,
                "task": "pipeline",
                "model_name": "ignored",
                "proverb_run": proverb_run.pk,
                "alignment_run": alignment_run.pk,
            },
        )
    pipeline = Run.objects.get(task="pipeline")
    assert response.status_code == 302 and pipeline.status == "succeeded", pipeline.error
    page = client.get(response.url).content.decode()
    assert 'data-testid="proverb-accuracy"' in page and "Proverb ranked first" in page
    results = client.get("/admin/modeling/run/results/").content.decode()
    assert 'data-testid="alignment-results"' in results
    assert 'data-testid="pipeline-results"' in results
    assert f"{pipeline.metrics['test']['f1']:.4f}" in results
    assert alignment_run.snapshot.content_hash[:10] in results


def test_pipeline_form_needs_both_runs_and_reviewers_cannot_launch(
    client, researcher, reviewer, tiny_model
):
    client.force_login(researcher)
    response = client.post(
        "/admin/modeling/run/add/", {**LAUNCH, "task": "pipeline", "model_name": "x"}
    )
    assert response.status_code == 200
    assert response.content.decode().count("This task combines finished runs: pick this one.") == 2
    client.force_login(reviewer)
    response = client.post(
        "/admin/modeling/run/add/", {**LAUNCH, "task": "alignment", "model_name": tiny_model}
    )
    assert response.status_code == 403 and not Run.objects.exists()


def test_run_baseline_alignment_then_pipeline_write_their_json(tiny_model, artifacts, tmp_path):
    aligned_dataset_create()
    proverb_run = executed("classifier", tiny_model)
    out = tmp_path / "alignment.json"
    arguments = ["--model", tiny_model, "--epochs", "2", "--batch-size", "4"]
    call_command("run_baseline", "alignment", *arguments, "--max-length", "32", "--json", out)
    record = json.loads(out.read_text())
    assert record["task"] == "alignment" and record["status"] == "succeeded"
    assert len(record["predictions"]) == record["metrics"]["test"]["total"] == 12
    assert record["hyperparameters"]["span_max_tokens"] == 64
    out = tmp_path / "pipeline.json"
    call_command(
        "run_baseline",
        "pipeline",
        "--proverb-run",
        str(proverb_run.pk),
        "--alignment-run",
        str(record["run"]),
        "--json",
        out,
    )
    pipeline = json.loads(out.read_text())
    assert pipeline["status"] == "succeeded" and pipeline["metrics"]["proverb"]["total"] == 12
    with pytest.raises(CommandError, match="needs --proverb-run and --alignment-run"):
        call_command("run_baseline", "pipeline", "--proverb-run", str(proverb_run.pk))
