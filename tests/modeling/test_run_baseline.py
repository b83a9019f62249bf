"""The run_baseline command: a run in this process, its JSON, and clear failures."""

import json
import sys

import pytest
from django.core.management import CommandError, call_command

from modeling.models import Run
from tests.factories import split_dataset_create

pytestmark = pytest.mark.django_db


def test_run_baseline_writes_the_run_as_json(tiny_model, artifacts, tmp_path, capsys, monkeypatch):
    split_dataset_create()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a researcher's terminal: bars
    out = tmp_path / "run.json"
    call_command(
        "run_baseline",
        "biencoder",
        "--model",
        tiny_model,
        "--split",
        "unseen",
        "--epochs",
        "2",
        "--batch-size",
        "4",
        "--max-length",
        "32",
        "--seed",
        "3",
        "--head-learning-rate",
        "0.002",
        "--warmup-ratio",
        "0.25",
        "--schedule",
        "constant",
        "--scale",
        "15",
        "--json",
        str(out),
    )
    record = json.loads(out.read_text())
    run = Run.objects.get()
    assert record["run"] == run.pk and record["status"] == "succeeded"
    assert record["setting"] == "unseen" and record["seed"] == 3
    assert record["hyperparameters"]["epochs"] == 2
    assert {
        key: record["hyperparameters"][key]
        for key in ("head_learning_rate", "warmup_ratio", "schedule", "scale")
    } == {"head_learning_rate": 0.002, "warmup_ratio": 0.25, "schedule": "constant", "scale": 15}
    assert record["snapshot"]["content_hash"] == run.snapshot.content_hash
    assert len(record["predictions"]) == record["metrics"]["test"]["total"]
    err = capsys.readouterr().err
    assert "training epoch 1/2" in err and f"Run {run.pk} (seed 3): test accuracy" in err
    dev = run.metrics["dev"]
    assert f"({dev['total']} narratives, {dev['candidates']} proverbs)" in err


def test_run_baseline_on_no_data_fails_with_a_clear_message(tiny_model):
    with pytest.raises(CommandError, match="no approved narratives"):
        call_command("run_baseline", "retrieval", "--model", tiny_model)


def test_run_baseline_with_an_unloadable_model_exits_non_zero(tmp_path):
    split_dataset_create()
    with pytest.raises(CommandError, match="failed: Cannot load the model"):
        call_command("run_baseline", "retrieval", "--model", "nobody/nothing")
    assert Run.objects.get().status == "failed"


def test_run_baseline_runs_each_seed_and_compares_each_with_a_finished_run(
    tiny_model, tmp_path, capsys
):
    split_dataset_create()
    call_command("run_baseline", "retrieval", "--model", tiny_model, "--max-length", "32")
    earlier = Run.objects.get()
    out = tmp_path / "runs.json"
    arguments = ["--model", tiny_model, "--max-length", "32", "--seed", "1", "2"]
    call_command(
        "run_baseline", "retrieval", *arguments, "--compare-with", str(earlier.pk), "--json", out
    )
    document = json.loads(out.read_text())
    assert [record["seed"] for record in document["runs"]] == [1, 2]
    comparison = document["runs"][0]["comparison"]
    assert comparison["second"] == earlier.pk and set(comparison["measures"]) == {
        "accuracy",
        "mrr",
    }
    # Retrieval trains nothing: the same model on the same data, the same figures.
    accuracy = comparison["measures"]["accuracy"]
    assert accuracy["difference"] == 0 and accuracy["p_value"] == 1
    assert accuracy["items"] == 12
    assert "accuracy: run" in capsys.readouterr().err


def test_run_baseline_first_ends_a_run_whose_process_died(tiny_model, settings):
    from datetime import timedelta

    from django.utils import timezone

    split_dataset_create()
    call_command("run_baseline", "retrieval", "--model", tiny_model, "--max-length", "32")
    killed = Run.objects.get()
    beat = timezone.now() - timedelta(seconds=60)
    Run.objects.filter(pk=killed.pk).update(status="running", heartbeat_at=beat, worker="ci:9")
    call_command("run_baseline", "retrieval", "--model", tiny_model, "--max-length", "32")
    killed.refresh_from_db()
    assert killed.status == "failed" and "its worker ci:9 stopped answering" in killed.error


def test_run_baseline_generation_takes_size_limits_and_the_generation_default_model(
    tiny_model, artifacts, settings, tmp_path
):
    from tests.modeling.test_generation_batch import keyword_dataset

    keyword_dataset()
    settings.PARABLE_GENERATION_MODEL = tiny_model
    out = tmp_path / "run.json"
    call_command(
        "run_baseline",
        "generation",
        *("--train", "12", "--test", "3", "--epochs", "1", "--batch-size", "4"),
        *("--max-new-tokens", "4", "--json", str(out)),
    )
    record = json.loads(out.read_text())
    assert record["model_name"] == tiny_model  # no --model: PARABLE_GENERATION_MODEL
    assert record["hyperparameters"]["train_size"] == 12
    assert record["hyperparameters"]["test_size"] == 3
    counts = record["environment"]["counts"]
    assert counts["test"] == 3 and counts["train"] + counts["dev"] == 12
