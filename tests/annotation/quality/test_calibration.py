"""Calibrating the writing-process score on a batch's labelled pilot, and each story's
score with its meaning and source."""

import random

import pytest

from annotation.models import Narrative, NarrativeIntegrity, WritingCalibration
from annotation.quality.calibration import (
    pilot_label_set,
    writing_calibration_fit,
    writing_scores,
)
from annotation.quality.integrity import telemetry_clean
from annotation.quality.writing_score import CalibrationError
from tests.factories import (
    batch_create,
    crowd_narrative_create,
    proverb_create,
    writing_record_of,
)

pytestmark = pytest.mark.django_db

STORY = "x" * 500


def written(batch, proverb, kind, rng, *, status="submitted"):
    narrative = crowd_narrative_create(proverb=proverb, batch=batch, text=STORY, status=status)
    NarrativeIntegrity.objects.create(
        narrative=narrative, telemetry=telemetry_clean(writing_record_of(kind, rng))
    )
    return narrative


@pytest.fixture
def pilot():
    """A write batch whose first 24 stories are a labelled pilot: 12 composed, 12 copied."""
    rng = random.Random(21)
    batch, proverb = batch_create(task_type="write"), proverb_create("Time is money")
    labelled = {"composed": [], "transcribed": []}
    for kind in ["composed", "transcribed"] * 12:
        labelled[kind].append(written(batch, proverb, kind, rng).pk)
    for kind, ids in labelled.items():
        assert pilot_label_set(narrative_ids=ids, label=kind) == 12
    return batch, proverb, rng


@pytest.mark.usefixtures("pilot")
def test_uncalibrated_scores_come_from_the_default_weights_with_their_meaning():
    scores = writing_scores(Narrative.objects.all())
    assert len(scores) == 24
    row = next(iter(scores.values()))
    assert row["source"] == "default" and "Default weights" in row["source_text"]
    assert "decides nothing" in row["meaning"]


def test_calibration_fits_reports_its_accuracy_and_scores_the_batchs_later_stories(pilot):
    batch, proverb, rng = pilot
    calibration = writing_calibration_fit(batch=batch)
    assert calibration.cv_accuracy >= 0.8
    assert WritingCalibration.objects.get(batch=batch).fitted["composed"] == 12
    later_composed = written(batch, proverb, "composed", rng)
    later_copied = written(batch, proverb, "transcribed", rng)
    other_batch = batch_create(task_type="write")
    elsewhere = written(other_batch, proverb, "transcribed", rng)
    scores = writing_scores(Narrative.objects.all())
    assert scores[later_composed.pk]["source"] == "calibrated"
    assert "cross-validated accuracy" in scores[later_composed.pk]["source_text"]
    assert f"{calibration.cv_accuracy:.0%}" in scores[later_composed.pk]["source_text"]
    assert "95% interval" in scores[later_composed.pk]["source_text"]
    assert scores[later_composed.pk]["value"] > 0.5 > scores[later_copied.pk]["value"]
    assert scores[later_copied.pk]["pilot_label"] == ""
    assert scores[elsewhere.pk]["source"] == "default"  # another batch keeps the default


def test_calibration_without_enough_labels_is_refused_and_nothing_kept():
    rng = random.Random(4)
    batch, proverb = batch_create(task_type="write"), proverb_create("Time is money")
    ids = [written(batch, proverb, "composed", rng).pk for _ in range(4)]
    pilot_label_set(narrative_ids=ids, label="composed")
    with pytest.raises(CalibrationError):
        writing_calibration_fit(batch=batch)
    assert not WritingCalibration.objects.exists()


def test_only_crowd_stories_with_a_record_can_be_labelled():
    batch, proverb = batch_create(task_type="write"), proverb_create("Time is money")
    bare = crowd_narrative_create(proverb=proverb, batch=batch)
    assert pilot_label_set(narrative_ids=[bare.pk], label="composed") == 0
    with pytest.raises(ValueError):
        pilot_label_set(narrative_ids=[bare.pk], label="typed")
