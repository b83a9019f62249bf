"""The writing-process score of stories, calibrated per batch from a pilot labelled composed
or transcribed (`pilot_label_set`, `writing_calibration_fit`), else by the default weights
(writing_score.py). A score informs reviewers; nothing acts on it.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.db.models.functions import Length

from annotation.models import Narrative, NarrativeIntegrity, PilotLabel, WritingCalibration
from annotation.quality.integrity import IntegritySettings
from annotation.quality.writing_score import (
    MEANING,
    Calibration,
    calibration_fit,
    default_score,
    writing_features,
)
from crowd.models import Batch

DEFAULT_SOURCE = (
    "Default weights of the integrity rules' evidence (not calibrated on this study; "
    "see the writing-process score in docs/curation-and-writing.md)."
)


@transaction.atomic
def pilot_label_set(*, narrative_ids: list[int], label: str) -> int:
    """Mark crowd stories with a writing record as composed or transcribed ("" clears).
    Returns how many were marked; stories without a record cannot be labelled."""
    if label not in {"", *PilotLabel.values}:
        raise ValueError(f"Unknown pilot label {label!r}.")
    return NarrativeIntegrity.objects.filter(
        narrative_id__in=narrative_ids,
        narrative__source=Narrative.Source.CROWD,
        telemetry__isnull=False,
    ).update(pilot_label=label)


@transaction.atomic
def writing_calibration_fit(*, batch: Batch) -> WritingCalibration:
    """Fit the batch's writing-process score on its labelled stories and keep it;
    CalibrationError (an earlier calibration stays) as `calibration_fit` refuses."""
    rows = (
        NarrativeIntegrity.objects.filter(
            narrative__assignment__item__batch=batch, telemetry__isnull=False
        )
        .exclude(pilot_label="")
        .annotate(text_length=Length("narrative__text"))
        .order_by("narrative_id")
        .values_list("telemetry", "text_length", "pilot_label")
    )
    features = [writing_features(telemetry, text_length=length) for telemetry, length, _ in rows]
    composed = [label == PilotLabel.COMPOSED for _, _, label in rows]
    fitted = calibration_fit(features, composed)
    calibration, _ = WritingCalibration.objects.update_or_create(
        batch=batch, defaults={"fitted": fitted.to_dict(), "cv_accuracy": fitted.cv_accuracy}
    )
    return calibration


def accuracy_text(fitted: Calibration) -> str:
    """A calibration's cross-validated accuracy with its uncertainty, in words."""
    text = f"cross-validated accuracy {fitted.cv_accuracy:.0%}"
    if fitted.accuracy_low is None:
        return f"{text} over {fitted.folds} folds (no interval recorded)"
    return (
        f"{text} ({fitted.correct} of {fitted.composed + fitted.transcribed} stories over "
        f"{fitted.folds} folds; 95% interval {fitted.accuracy_low:.0%} to "
        f"{fitted.accuracy_high:.0%})"
    )


def calibration_text(calibration: WritingCalibration) -> str:
    """The source of a calibrated score, in words."""
    fitted = Calibration.from_dict(calibration.fitted)
    return (
        f"Calibrated on this batch's pilot ({fitted.composed} stories marked composed, "
        f"{fitted.transcribed} transcribed; logistic regression, {accuracy_text(fitted)}; "
        f"fitted {calibration.fitted_at:%Y-%m-%d %H:%M})."
    )


def writing_scores(narratives: QuerySet) -> dict[int, dict]:
    """Each crowd story's writing-process score, by narrative id: {"value" (0-1, 1 looks
    composed), "source": "calibrated" | "default", "source_text", "meaning",
    "pilot_label"}. Stories without a writing record get none."""
    rows = list(
        narratives.filter(source=Narrative.Source.CROWD, integrity__telemetry__isnull=False)
        .annotate(text_length=Length("text"))
        .values_list(
            "id",
            "text_length",
            "integrity__telemetry",
            "integrity__pilot_label",
            "assignment__item__batch_id",
        )
    )
    batch_ids = {row[4] for row in rows}
    calibrations = {
        calibration.batch_id: calibration
        for calibration in WritingCalibration.objects.filter(batch_id__in=batch_ids)
    }
    settings = {
        batch_id: IntegritySettings.stored(stored)
        for batch_id, stored in Batch.objects.filter(pk__in=batch_ids).values_list("pk", "settings")
    }
    scores = {}
    for pk, length, telemetry, label, batch_id in rows:
        features = writing_features(telemetry, text_length=length)
        calibration = calibrations.get(batch_id)
        if calibration is not None:
            value = Calibration.from_dict(calibration.fitted).score(features)
            source, source_text = "calibrated", calibration_text(calibration)
        else:
            value = default_score(features, settings=settings[batch_id])
            source, source_text = "default", DEFAULT_SOURCE
        scores[pk] = {
            "value": value,
            "source": source,
            "source_text": source_text,
            "meaning": MEANING,
            "pilot_label": label,
        }
    return scores
