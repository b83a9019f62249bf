"""The run_baseline command: a run in this process, its JSON, and clear failures."""

import json

import pytest
from django.core.management import CommandError, call_command

from modeling.models import Run
from tests.factories import split_dataset_create

pytestmark = pytest.mark.django_db


def test_run_baseline_writes_the_run_as_json(tiny_model, artifacts, tmp_path, capsys):
    split_dataset_create()
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
    assert "training epoch 1/2" in err and f"Run {run.pk}: test accuracy" in err
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
