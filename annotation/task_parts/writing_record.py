"""The writing record of free-text task types (write, and any other free-text task):
batch settings, page context, the check of the submitted record and its storage.

A free-text task type calls `writing_record_context` in `page_context` (the page's
template includes frontend/tasks/_writing_record.html and its module calls
telemetry.js's attachTelemetry with `task_config.refuse_paste`), `writing_record_clean`
in `validate`, and `writing_record_store` in `store`.
"""

from __future__ import annotations

from django.db import transaction

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.canary import canary_found
from annotation.quality.integrity import IntegritySettings, TelemetryError, telemetry_clean
from common.task_queue import queue_on_commit
from crowd.task_types import SubmissionError

PASTE_REFUSED = "This task does not accept pasted text: type your story yourself."


def writing_record_context(settings: dict) -> dict:
    """What the page's script needs: {"refuse_paste": bool, "paste_refused": message}."""
    return {"refuse_paste": batch_integrity(settings).refuse_paste, "paste_refused": PASTE_REFUSED}


def canary_context(settings: dict) -> str:
    """The batch's hidden canary instruction for the page's template ("" for none): the
    template renders it with frontend/tasks/_canary.html, never into the script's config."""
    return batch_integrity(settings).canary_text


def batch_integrity(settings: dict) -> IntegritySettings:
    """The writing-integrity settings of a free-text batch's settings."""
    return IntegritySettings.from_dict(settings.get("integrity"))


def writing_record_clean(*, payload: dict, integrity: IntegritySettings) -> dict | None:
    """The payload's writing record, checked; a paste-refusing batch refuses pasted text.

    Free-text task types call this from `validate`. No record (an old page, a script)
    is stored as none and flagged later; a malformed one is refused.
    """
    record = payload.get("telemetry")
    if record is None:
        if integrity.refuse_paste:
            raise SubmissionError(
                "This task refuses pasted text, and your page sent no record of how the "
                "story was written; reload the page and type your story.",
                field="telemetry",
            )
        return None
    try:
        telemetry = telemetry_clean(record)
    except TelemetryError as error:
        raise SubmissionError(str(error), field="telemetry") from error
    if integrity.refuse_paste and telemetry["pasted"] + telemetry["dropped"] > 0:
        raise SubmissionError(PASTE_REFUSED, field="text")
    return telemetry


@transaction.atomic(savepoint=False)  # in the submit's transaction: no savepoint of its own
def writing_record_store(
    *, narrative: Narrative, telemetry: dict | None, integrity: IntegritySettings
) -> None:
    """Keep the writing record with the narrative, and whether the story followed the
    batch's canary, and queue the check against the dataset."""
    NarrativeIntegrity.objects.create(
        narrative=narrative,
        telemetry=telemetry,
        canary=canary_found(narrative.text, settings=integrity),
    )
    queue_on_commit("annotation.narrative_similarity_check", narrative.pk)
