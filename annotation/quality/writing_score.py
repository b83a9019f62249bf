"""The writing-process score, pure (no Django): how likely a story was composed on the page
rather than transcribed or inserted, from its content-blind writing record, by the WEIGHTS
below or by a calibration fitted on a pilot (calibration.py keeps it per batch). A score
informs a reviewer; nothing acts on it.

Default weights (they sum to 1; each piece of evidence is scaled to 0-1, where 1 says
"not composed here"; the score is 1 minus the weighted evidence):

====================  ======  ==================================================
evidence              weight  scaled from
====================  ======  ==================================================
inserted              0.35    characters that came without keystrokes (pasted,
                              dropped, inserted, unexplained, by script): 0 at
                              none, 1 at half the story (the paste rule's default)
no_revisions          0.20    deleted / typed characters: 1 at none, 0 at 5% or
                              more (the transcription rule flags 1% or less)
no_pauses             0.15    pauses of 2 s or more per 100 keystrokes: 1 at none,
                              0 at 2 or more (the transcription rule: no pause)
steady_rhythm         0.10    1 minus the spread (normalised entropy) of the key
                              intervals over the record's eight bins
pauses_inside_words   0.05    share of pauses not before a word or sentence (1 when
                              there is no pause at all): composing pauses plan the
                              next word or sentence; copying pauses anywhere
hidden                0.10    share of the task's time the page was hidden: 0 at
                              none, 1 at half or more (written elsewhere)
too_fast              0.05    1 when keys came faster than a person types (the
                              speed rule), else 0
====================  ======  ==================================================

The four pieces read from keystrokes (revisions, pauses, rhythm, pauses inside words)
count no lower than `inserted`: the few keys of a story that was mostly not typed show
nothing of how the story was composed.

Records from pages that count the times the worker left the page (version 3: tab switches,
the window losing focus, the time out of focus) give two more figures, AWAY_FEATURES. No
default weight rests on them (nothing yet says how much they tell); a calibration fitted
on a pilot whose every labelled story has them weighs them with the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from annotation.quality.integrity import IntegritySettings, synthetic_in_story

WEIGHTS = {
    "inserted": 0.35,
    "no_revisions": 0.20,
    "no_pauses": 0.15,
    "steady_rhythm": 0.10,
    "pauses_inside_words": 0.05,
    "hidden": 0.10,
    "too_fast": 0.05,
}
# The figures a calibrated model is fitted on, in this order.
FEATURES = (
    "without_keys_share",
    "revision_share",
    "pauses_per_100_keys",
    "boundary_pause_share",
    "rhythm_spread",
    "hidden_share",
    "log_key_interval_ms",
)
AWAY_FEATURES = ("leaves_per_minute", "away_share")
MEANING = (
    "How likely the story was composed on the page (1) rather than transcribed from "
    "another text or inserted (0), from how it was written: pauses before words and "
    "sentences, revisions, the share deleted, the rhythm of keys, text that came without "
    "keystrokes and time away from the page. It reads no text. It informs review; it "
    "decides nothing."
)
# Labelled stories of each kind a calibration needs: with fewer, even a perfect pilot's
# accuracy has a 95% interval reaching down to chance.
MIN_PER_LABEL = 10
CHANCE = 0.5  # a calibration whose accuracy interval reaches down to it is refused


def _share(part: float, whole: float) -> float:
    return min(part / whole, 1.0) if whole > 0 else 0.0


def writing_features(telemetry: dict, *, text_length: int) -> dict[str, float]:
    """The record's figures the score uses (FEATURES), from a cleaned writing record."""
    length = max(text_length, 1)
    inserted = (
        telemetry["pasted"]
        + telemetry["dropped"]
        + telemetry["inserted_without_keys"]
        + telemetry["unexplained"]
        + synthetic_in_story(telemetry, text_length=text_length)
    )
    pauses = telemetry["pauses"]
    boundary = telemetry.get("word_pauses", 0) + telemetry.get("sentence_pauses", 0)
    intervals = telemetry["intervals"]
    total = sum(intervals)
    spread = 0.0
    if total > 1:
        entropy = -sum((n / total) * math.log(n / total) for n in intervals if n)
        spread = entropy / math.log(len(intervals))
    mean_ms = (
        telemetry["burst_interval_ms_sum"] / telemetry["burst_intervals"]
        if telemetry["burst_intervals"]
        else 0.0
    )
    return {
        "without_keys_share": _share(inserted, length),
        "revision_share": _share(telemetry["deleted"], max(telemetry["typed"], 1)),
        "pauses_per_100_keys": 100 * pauses / max(telemetry["keys"], 1),
        "boundary_pause_share": _share(boundary, pauses),
        "rhythm_spread": spread,
        "hidden_share": _share(
            telemetry["hidden_ms"], telemetry["hidden_ms"] + telemetry["focused_ms"]
        ),
        "log_key_interval_ms": math.log1p(mean_ms),
        # Not a model feature: the speed rule needs the count behind the mean.
        "burst_intervals": telemetry["burst_intervals"],
        **_away_features(telemetry),
    }


def _away_features(telemetry: dict) -> dict[str, float]:
    """AWAY_FEATURES of a record that counts the times away (version 3); {} otherwise."""
    if "blurred_ms" not in telemetry:
        return {}
    away = telemetry["hidden_ms"] + telemetry["blurred_ms"]
    minutes = max(telemetry["focused_ms"] + away, 1) / 60_000
    return {
        "leaves_per_minute": (telemetry["tab_switches"] + telemetry["blurs"]) / minutes,
        "away_share": _share(away, telemetry["focused_ms"] + away),
    }


def default_evidence(features: dict, *, settings: IntegritySettings) -> dict[str, float]:
    """Each piece of evidence of WEIGHTS, scaled to 0-1 (1: not composed here)."""
    mean_ms = math.expm1(features["log_key_interval_ms"])
    fast = (
        features["burst_intervals"] >= settings.min_keys_for_speed
        and mean_ms < settings.min_key_interval_ms
    )
    pauses = features["pauses_per_100_keys"]
    inserted = min(features["without_keys_share"] / 0.5, 1.0)
    return {
        "inserted": inserted,
        "no_revisions": max(inserted, 1 - features["revision_share"] / 0.05),
        "no_pauses": max(inserted, 1 - pauses / 2.0),
        "steady_rhythm": max(inserted, 1 - features["rhythm_spread"]),
        "pauses_inside_words": max(
            inserted, 1 - features["boundary_pause_share"] if pauses else 1.0
        ),
        "hidden": min(features["hidden_share"] / 0.5, 1.0),
        "too_fast": 1.0 if fast else 0.0,
    }


def default_score(features: dict, *, settings: IntegritySettings) -> float:
    """1 minus the weighted evidence (WEIGHTS): 1 looks composed, 0 transcribed or inserted."""
    evidence = default_evidence(features, settings=settings)
    return round(1 - sum(WEIGHTS[name] * value for name, value in evidence.items()), 3)


@dataclass(frozen=True)
class Calibration:
    """A logistic regression fitted on a pilot's labelled stories, kept as plain figures
    (the scaler's means and scales, the coefficients), with its cross-validated accuracy."""

    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    cv_accuracy: float
    folds: int
    composed: int
    transcribed: int
    # The cross-validated predictions: how many were right, and the accuracy's 95% Wilson
    # interval (None for a calibration kept before they were recorded).
    correct: int | None = None
    accuracy_low: float | None = None
    accuracy_high: float | None = None
    # The figures it was fitted on (None: FEATURES, as every calibration before the times
    # away were recorded).
    features: list[str] | None = None

    def score(self, features: dict) -> float:
        """The fitted probability that the story was composed on the page (a story whose
        record lacks a figure the fit weighs counts the pilot's mean for it)."""
        names = self.features or FEATURES
        z = self.intercept + sum(
            weight * (features.get(name, mean) - mean) / scale
            for name, weight, mean, scale in zip(
                names, self.coef, self.mean, self.scale, strict=True
            )
        )
        return round(1 / (1 + math.exp(-max(min(z, 50.0), -50.0))), 3)

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, values: dict) -> Calibration:
        return cls(**values)


class CalibrationError(ValueError):
    """The labelled stories cannot calibrate the score: too few of a kind, or an accuracy
    no better than chance; the score keeps what it had."""


def calibration_fit(features: list[dict], composed: list[bool]) -> Calibration:
    """Fit the score on labelled stories (True: composed on the page): a standardised logistic
    regression, its accuracy cross-validated over up to 5 stratified folds with its 95% Wilson
    interval. CalibrationError with fewer than MIN_PER_LABEL stories of a kind, or an interval
    reaching down to chance (a guess)."""
    from scipy.stats import binomtest
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    n_composed = sum(composed)
    n_transcribed = len(composed) - n_composed
    if min(n_composed, n_transcribed) < MIN_PER_LABEL:
        raise CalibrationError(
            f"Calibrating needs at least {MIN_PER_LABEL} stories marked composed and "
            f"{MIN_PER_LABEL} marked transcribed, each with a writing record; there are "
            f"{n_composed} and {n_transcribed}."
        )
    names = FEATURES
    if all(name in row for row in features for name in AWAY_FEATURES):
        names = (*FEATURES, *AWAY_FEATURES)  # every labelled story's record counts them
    matrix = [[row[name] for name in names] for row in features]
    labels = [int(value) for value in composed]
    folds = min(5, n_composed, n_transcribed)
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced"))
    predicted = cross_val_predict(
        pipeline,
        matrix,
        labels,
        cv=StratifiedKFold(n_splits=folds, shuffle=True, random_state=0),
    )
    correct = int(sum(int(guess) == label for guess, label in zip(predicted, labels, strict=True)))
    interval = binomtest(correct, len(labels)).proportion_ci(confidence_level=0.95, method="wilson")
    accuracy = correct / len(labels)
    if interval.low <= CHANCE:
        raise CalibrationError(
            f"The pilot's cross-validated accuracy is {accuracy:.0%} ({correct} of "
            f"{len(labels)} stories; 95% interval {interval.low:.0%} to {interval.high:.0%}), "
            "which is not clearly better than chance (50%): the score keeps its weights. "
            "Label more pilot stories, or check the labels."
        )
    pipeline.fit(matrix, labels)
    scaler, model = pipeline[0], pipeline[1]
    return Calibration(
        mean=[float(value) for value in scaler.mean_],
        scale=[float(value) for value in scaler.scale_],
        coef=[float(value) for value in model.coef_[0]],
        intercept=float(model.intercept_[0]),
        cv_accuracy=round(accuracy, 3),
        folds=folds,
        composed=n_composed,
        transcribed=n_transcribed,
        correct=correct,
        accuracy_low=round(float(interval.low), 3),
        accuracy_high=round(float(interval.high), 3),
        features=list(names),
    )
