"""The writing record of free-text task types: batch settings, page context
(`writing_record_context`; the page includes frontend/tasks/_writing_record.html), the
submitted record's check (`writing_record_clean`, from `validate`) and its storage.
"""

from __future__ import annotations

from dataclasses import fields

from django.db import transaction

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.canary import canary_found
from annotation.quality.integrity import (
    MAX_CANARY_CHARACTERS,
    IntegritySettings,
    TelemetryError,
    telemetry_clean,
)
from annotation.task_parts.sources import settings_object
from common.api_parser import CLEAN_TEXT
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
    No record (an old page, a script) is kept as none and flagged; a malformed one refused."""
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


# The largest number an integrity setting takes (times, counts): a bound the API states.
MAX_SETTING_NUMBER = 1e9


def integrity_schema() -> dict:
    """IntegritySettings' fields as an OpenAPI schema, typed by their defaults as from_dict
    reads them; a canary instruction only with its canary word."""
    properties = {}
    for field in fields(IntegritySettings):
        if isinstance(field.default, bool):
            properties[field.name] = {"type": "boolean"}
        elif isinstance(field.default, str):
            properties[field.name] = {
                "type": "string",
                "maxLength": MAX_CANARY_CHARACTERS,
                "pattern": CLEAN_TEXT,
            }
        else:
            high = 1 if field.name.endswith(("_share", "_similarity")) else MAX_SETTING_NUMBER
            properties[field.name] = {"type": "number", "minimum": 0, "maximum": high}
    return {
        **settings_object(properties),
        "anyOf": [
            {"properties": {"canary_instruction": {"pattern": "^\\s*$"}}},
            {"required": ["canary_word"], "properties": {"canary_word": {"pattern": "\\S"}}},
        ],
    }
