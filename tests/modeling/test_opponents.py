"""Finished proverb runs as the opponents of rounds: which runs can oppose, what they
trained on, where their model loads from, and a ranker kept per run and proverbs on the
process's shared encoder."""

import pytest

from annotation.opponents.backend import OpponentUnavailable, opponent_backend
from common.encoder import shared_encoder
from modeling import opponents
from modeling.runs.services import artifact_folder
from tests.factories import finished_run_create, proverb_create, split_dataset_create

pytestmark = pytest.mark.django_db


def test_modeling_registers_its_runs_as_the_opponents():
    assert opponent_backend() is opponents.OPPONENTS


def test_only_finished_proverb_runs_can_oppose_newest_first(tiny_model):
    split_dataset_create()
    retrieval = finished_run_create(probabilities={}, task="retrieval", model_name=tiny_model)
    classifier = finished_run_create(probabilities={}, task="classifier")
    finished_run_create(probabilities={}, task="alignment")
    failed = finished_run_create(probabilities={}, task="biencoder")
    failed.status = "failed"
    failed.save()
    assert [pk for pk, _ in opponents.opponent_choices()] == [classifier.pk, retrieval.pk]
    model = opponents.OPPONENTS.describe(retrieval.pk)
    assert (model.task, model.setting, model.trains) == ("retrieval", "seen", False)
    assert model.label == f"run {retrieval.pk}: retrieval seen, {tiny_model}"
    assert model.snapshot_narratives == 24
    for run_id in (failed.pk, failed.pk + 100):
        with pytest.raises(OpponentUnavailable, match=f"No finished proverb run {run_id}"):
            opponents.OPPONENTS.describe(run_id)


def test_a_trained_run_trained_on_its_snapshots_train_part_and_retrieval_on_nothing():
    narratives = split_dataset_create()
    classifier = finished_run_create(probabilities={}, task="classifier")
    retrieval = finished_run_create(probabilities={}, task="retrieval")
    train = {n.pk for n in narratives if type(n).objects.get(pk=n.pk).split_seen == "train"}
    assert opponents.opponent_trained_on(classifier.pk) == train != set()
    assert opponents.opponent_trained_on(retrieval.pk) == frozenset()


def test_a_trained_runs_model_loads_from_its_folder_or_is_said_to_be_missing(tiny_model):
    split_dataset_create()
    run = finished_run_create(probabilities={}, task="biencoder", artifact=tiny_model)
    assert opponents.model_path(run) == tiny_model
    run.artifact = "s3://parable-models/run-7/"  # copied to S3, not on this machine
    with pytest.raises(OpponentUnavailable, match=f"copy its files into {artifact_folder(run)}"):
        opponents.model_path(run)
    retrieval = finished_run_create(probabilities={}, task="retrieval", model_name="any-name")
    assert opponents.model_path(retrieval) == "any-name"


def test_a_ranker_is_kept_per_run_and_proverbs_on_the_shared_encoder(tiny_model):
    split_dataset_create()
    run = finished_run_create(probabilities={}, task="biencoder", artifact=tiny_model)
    study = [(p.pk, p.text) for p in (proverb_create("Haste makes waste"), proverb_create())]
    first = opponents._ranker(run.pk, study)
    assert first.encoder is shared_encoder(tiny_model)
    assert opponents._ranker(run.pk, study) is first  # the proverbs' vectors, computed once
    assert opponents._ranker(run.pk, study[:1]) is not first
    story = "Tom rushed the letter and spelled the name wrong."
    (ranked,) = opponents.opponent_rank(run_id=run.pk, proverbs=study, texts=[story])
    assert ranked == first.rank_texts([story])[0] and {pk for pk, _ in ranked} == {
        pk for pk, _ in study
    }
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)
    # Texts ranked together are embedded in one batch: the same order, the same scores
    # to float rounding.
    for together in opponents.opponent_rank(run_id=run.pk, proverbs=study, texts=[story, story]):
        assert [pk for pk, _ in together] == [pk for pk, _ in ranked]
        assert [score for _, score in together] == pytest.approx([s for _, s in ranked])
