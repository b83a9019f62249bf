"""The baselines' registry: each baseline declares what callers ask of it, a new one is
one class, and a finished proverb run ranks a study's proverbs for new stories."""

from pathlib import Path

import pytest

from modeling.models import Run
from modeling.runs.selectors import results_tables
from modeling.runs.services import run_create, run_execute
from modeling.training import registry
from modeling.training.examples import SnapshotError
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.registry import BASELINES, Baseline, baseline_for, run_task
from tests.factories import split_dataset_create
from tests.modeling.test_baselines import word_examples

TEMPLATES = Path(__file__).resolve().parents[2] / "modeling/templates/admin/modeling/run"


def test_every_baseline_declares_what_callers_ask():
    assert set(BASELINES) == {
        *("retrieval", "biencoder", "classifier", "alignment", "pipeline", "generation")
    }
    for name, baseline in BASELINES.items():
        assert baseline.name == name and baseline.label and baseline.measures
        assert (TEMPLATES / f"results_{baseline.results}.html").is_file()
        assert set(baseline.settings) <= {"seen", "unseen"}
    assert registry.baselines_where(ranks_proverbs=True) == ["retrieval", "biencoder", "classifier"]
    assert baseline_for("classifier").settings == ("seen",)
    with pytest.raises(ValueError, match="Unknown task 'nothing'; tasks: retrieval"):
        baseline_for("nothing")


def test_a_baseline_refuses_a_setting_it_does_not_run_in(tiny_model):
    with pytest.raises(SnapshotError, match="runs in the seen setting, not unseen"):
        run_task(
            task="classifier",
            examples=word_examples(),
            setting="unseen",
            model=tiny_model,
            hyperparameters=Hyperparameters(),
            seed=1,
        )


class Majority(Baseline):
    """Ranks the proverb with the most train narratives first, for every narrative."""

    name = "majority"
    label = "Majority proverb"
    trains = False
    ranks_proverbs = True
    measures = ("accuracy",)

    def run(self, request, sources) -> dict:
        examples, setting = request.examples, request.setting
        parts = self.parts(examples, setting=setting, seed=request.seed)
        counts = {}
        for example in examples:
            if getattr(example, setting) == "train":
                counts[example.proverb_id] = counts.get(example.proverb_id, 0) + 1
        first = max(counts, key=lambda proverb: (counts[proverb], -proverb))
        predictions = [
            {"narrative_id": e.narrative_id, "rank": 1 if e.proverb_id == first else 2}
            for e in parts.test
        ]
        accuracy = sum(p["rank"] == 1 for p in predictions) / len(predictions)
        return {"metrics": {"test": {"accuracy": accuracy}}, "predictions": predictions}

    def result_rows(self, *, metrics, setting, selected_epoch, counts) -> list:
        return [{"scope": f"{setting} test", "accuracy": metrics["test"]["accuracy"]}]

    def item_scores(self, predictions):
        return {"accuracy": {p["narrative_id"]: float(p["rank"] == 1) for p in predictions}}


@pytest.mark.django_db
def test_a_new_baseline_is_one_registered_class_from_launch_to_results(monkeypatch):
    monkeypatch.setitem(BASELINES, "majority", Majority())
    split_dataset_create()
    run = run_create(task="majority", model_name="none", queue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.SUCCEEDED, run.error
    assert run.metrics["test"]["accuracy"] == pytest.approx(1 / 6)  # 2 of 12 test narratives
    assert run.artifact == ""  # it keeps no model
    (table,) = [table for table in results_tables() if table["task"] == "majority"]
    assert table["title"] == "Majority proverb · seen" and table["rows"][0]["run"] == run


def test_a_finished_classifier_run_ranks_a_study_proverbs_for_a_new_story(tiny_model, tmp_path):
    examples = word_examples()
    run_task(
        task="classifier",
        examples=examples,
        setting="seen",
        model=tiny_model,
        hyperparameters=Hyperparameters(epochs=1, batch_size=4, max_length=32),
        seed=1,
        artifact_dir=tmp_path,
    )
    study = [*sorted({(e.proverb_id, e.proverb) for e in examples}), (99, "a brand new proverb")]
    ranker = baseline_for("classifier").ranker(model=str(tmp_path), proverbs=study)
    # The trained head's rows stand for the proverbs it was trained on; a new proverb is
    # embedded. Each check embeds one story against vectors computed once.
    ranked = ranker.rank_texts([examples[0].narrative])[0]
    assert sorted(pid for pid, _ in ranked) == sorted(pid for pid, _ in study)
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True)
    assert ranker.rank_texts([examples[0].narrative])[0] == ranked
    vectors = ranker.vectors.clone()
    ranker.rank_texts([examples[1].narrative])
    assert ranker.vectors.equal(vectors)
    retrieval = baseline_for("retrieval").ranker(model=tiny_model, proverbs=study)
    assert retrieval.vectors[:6].ne(vectors[:6]).any()  # the classifier's rows differ
