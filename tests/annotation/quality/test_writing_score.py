"""The writing-process score, pure: the default weights rank how a story was written, and
a calibration fitted on labelled pilot stories scores above chance."""

import random

import pytest

from annotation.quality.integrity import IntegritySettings, telemetry_clean
from annotation.quality.writing_score import (
    AWAY_FEATURES,
    FEATURES,
    WEIGHTS,
    CalibrationError,
    calibration_fit,
    default_evidence,
    default_score,
    writing_features,
)
from tests.factories import writing_record, writing_record_of

DEFAULTS = IntegritySettings()
LENGTH = 500


def features(record, length=LENGTH):
    return writing_features(telemetry_clean(record), text_length=length)


def score(record, length=LENGTH):
    return default_score(features(record, length), settings=DEFAULTS)


def test_default_weights_sum_to_one_and_each_evidence_is_between_0_and_1():
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    rng = random.Random(3)
    for kind in ("composed", "transcribed"):
        evidence = default_evidence(features(writing_record_of(kind, rng)), settings=DEFAULTS)
        assert set(evidence) == set(WEIGHTS)
        assert all(0.0 <= value <= 1.0 for value in evidence.values())


def test_transcribed_sessions_rank_below_composed_ones():
    rng = random.Random(7)
    composed = [score(writing_record_of("composed", rng)) for _ in range(40)]
    transcribed = [score(writing_record_of("transcribed", rng)) for _ in range(40)]
    assert min(composed) > max(transcribed)


def test_story_that_came_without_keystrokes_scores_lowest():
    typed = score(writing_record_of("composed", random.Random(1)))
    pasted = score(writing_record(typed=20, keys=22, pasted=480, paste_events=1))
    transcribed = score(writing_record_of("transcribed", random.Random(1)))
    assert pasted < transcribed < typed


def test_time_away_from_the_page_lowers_the_score():
    record = writing_record_of("composed", random.Random(5))
    away = {**record, "hidden_ms": record["focused_ms"]}
    assert score(away) < score(record)


def test_calibration_fits_a_learnable_pilot_above_chance_and_scores_new_stories():
    rng = random.Random(11)
    kinds = ["composed", "transcribed"] * 10
    pilot = [features(writing_record_of(kind, rng)) for kind in kinds]
    calibration = calibration_fit(pilot, [kind == "composed" for kind in kinds])
    assert calibration.folds == 5 and calibration.composed == calibration.transcribed == 10
    assert calibration.cv_accuracy >= 0.8
    # The uncertainty of 20 stories: the Wilson interval around the pooled accuracy.
    assert calibration.cv_accuracy == calibration.correct / 20
    assert 0.5 < calibration.accuracy_low < calibration.cv_accuracy <= calibration.accuracy_high
    later = [(kind, features(writing_record_of(kind, rng))) for kind in kinds]
    composed = [calibration.score(row) for kind, row in later if kind == "composed"]
    transcribed = [calibration.score(row) for kind, row in later if kind == "transcribed"]
    assert sum(composed) / 10 > 0.7 > 0.3 > sum(transcribed) / 10


def test_calibration_with_labels_unrelated_to_writing_is_refused_with_its_interval():
    rng = random.Random(13)
    pilot = [features(writing_record_of("composed", rng)) for _ in range(30)]
    labels = [number % 2 == 0 for number in range(30)]
    with pytest.raises(CalibrationError, match=r"95% interval \d+% to \d+%.*not clearly better"):
        calibration_fit(pilot, labels)


def test_calibration_needs_enough_stories_of_each_kind():
    rng = random.Random(2)
    kinds = ["composed", "transcribed"] * 3  # a pilot of 3 + 3: chance cannot be ruled out
    pilot = [features(writing_record_of(kind, rng)) for kind in kinds]
    with pytest.raises(CalibrationError, match="at least 10 stories marked composed"):
        calibration_fit(pilot, [kind == "composed" for kind in kinds])


def with_time_away(record: dict, *, leaves: int, away_ms: int) -> dict:
    return {**record, "version": 3, "tab_switches": leaves, "blurs": leaves, "blurred_ms": away_ms}


def test_a_record_that_counts_the_time_away_gives_its_figures_and_an_older_one_none():
    record = writing_record_of("composed", random.Random(4))
    assert "away_share" not in features(record)
    counted = features(with_time_away(record, leaves=3, away_ms=record["focused_ms"]))
    assert counted["away_share"] == pytest.approx(0.5)
    assert counted["leaves_per_minute"] > 0
    # No default weight rests on them.
    assert score(with_time_away(record, leaves=9, away_ms=1)) == score(record)


def test_a_calibration_weighs_the_time_away_when_every_pilot_story_has_it():
    rng = random.Random(17)
    kinds = ["composed", "transcribed"] * 10
    # Transcribers here read the text elsewhere: many trips away from the page.
    pilot = [
        features(
            with_time_away(
                writing_record_of(kind, rng),
                leaves=rng.randint(0, 1) if kind == "composed" else rng.randint(8, 15),
                away_ms=rng.randint(0, 5_000)
                if kind == "composed"
                else rng.randint(40_000, 90_000),
            )
        )
        for kind in kinds
    ]
    calibration = calibration_fit(pilot, [kind == "composed" for kind in kinds])
    assert calibration.features[-2:] == ["leaves_per_minute", "away_share"]
    labels = [kind == "composed" for kind in kinds]
    without = [{k: v for k, v in row.items() if k not in AWAY_FEATURES} for row in pilot]
    older = calibration_fit([*without[:-1], pilot[-1]], labels)  # one story lacks them
    assert older.features == list(FEATURES)
    # A calibration kept before the times away were recorded scores as it did.
    kept = older.to_dict() | {"features": None}
    assert type(older).from_dict(kept).score(pilot[0]) == older.score(pilot[0])
