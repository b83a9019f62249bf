"""Selectors of integrity flags: a batch's shares per flag over its submissions (drift)."""

import pytest

from annotation.analysis.plots import integrity_drift
from annotation.models import NarrativeIntegrity
from annotation.quality.flags import flag_drift
from tests.factories import batch_create, crowd_narrative_create, proverb_create, writing_record

pytestmark = pytest.mark.django_db


def test_drift_shows_a_batch_whose_later_stories_are_pasted():
    batch, proverb = batch_create(task_type="write"), proverb_create("Time is money")
    for number in range(20):
        narrative = crowd_narrative_create(proverb=proverb, batch=batch, text="x" * 160)
        pasted = number >= 10
        record = writing_record(typed=0, pasted=160) if pasted else writing_record()
        NarrativeIntegrity.objects.create(narrative=narrative, telemetry=record)
    drift = flag_drift(batch=batch, windows=4)
    assert [window["stories"] for window in drift["windows"]] == [5, 5, 5, 5]
    assert [window["shares"]["pasted"] for window in drift["windows"]] == [0, 0, 1, 1]
    assert drift["codes"] == ["pasted"]
    assert drift["windows"][0]["until"] <= drift["windows"][-1]["until"]
    svg = integrity_drift(drift)
    assert svg.startswith("<svg") and "Pasted from outside" in svg


def test_drift_of_a_batch_without_stories_has_no_windows():
    drift = flag_drift(batch=batch_create(task_type="write"))
    assert drift == {"windows": [], "codes": []}
    assert "No data" in integrity_drift(drift)
