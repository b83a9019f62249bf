"""manage.py similarity_report: the nearest-neighbour similarity distribution of a dataset."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import NarrativeIntegrity
from tests.factories import BIRDS, BIRDS_STORY, narrative_create, proverb_create

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic" / "dataset.json"


def report(*args) -> dict:
    out = StringIO()
    call_command("similarity_report", *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_imported_epic_stories_are_embedded_and_none_is_a_near_duplicate():
    call_command(
        "import_dataset", str(FIXTURE), "--allow-partial", stdout=StringIO(), stderr=StringIO()
    )
    result = report("--source-label", "ePiC")
    assert result["narratives"] == result["embedded_now"] == 6
    assert NarrativeIntegrity.objects.filter(embedding__isnull=False).count() == 6
    same_proverb = result["same_proverb"]
    # Three proverbs with 2, 3 and 1 stories: five stories have a neighbour.
    assert same_proverb["stories"] == 5
    assert same_proverb["at_or_above"] == 0 and same_proverb["max"] < 0.85
    assert sum(row["stories"] for row in same_proverb["histogram"]) == 5
    assert report("--source-label", "ePiC")["embedded_now"] == 0


def test_a_copied_story_is_counted_at_or_above_the_threshold():
    proverb = proverb_create(BIRDS)
    narrative_create(proverb=proverb, text=BIRDS_STORY, source_label="lab")
    narrative_create(proverb=proverb, text=BIRDS_STORY.replace("spicy", "hot"), source_label="lab")
    result = report("--source-label", "lab", "--near-duplicate", "0.95")
    assert result["same_proverb"]["at_or_above"] == 2, result
    assert result["same_proverb"]["share_at_or_above"] == 1.0
    assert result["same_proverb"]["threshold"] == 0.95
    # Two stories flagged, one pair: the earlier story is the source.
    pairs = result["pairs"]
    assert pairs["total"] == pairs["near_duplicate"] == 1
    [pair] = pairs["list"]
    assert pair["source"]["id"] < pair["copy"]["id"]


def test_a_renamed_copy_is_counted_by_the_copy_overlap():
    proverb = proverb_create(BIRDS)
    narrative_create(proverb=proverb, text=BIRDS_STORY, source_label="lab")
    renamed = BIRDS_STORY.replace("Leo", "Omar").replace("Maya", "Chen")
    narrative_create(proverb=proverb, text=renamed, source_label="lab")
    narrative_create(proverb=proverb, text="A cat slept in the warm window.", source_label="lab")
    copies = report("--source-label", "lab")["copy_overlap"]
    assert copies["stories"] == 3 and copies["threshold"] == 0.6
    assert copies["at_or_above"] == 2 and copies["max"] > 0.9


def test_printed_report_shows_quantiles_and_the_share_flagged():
    proverb = proverb_create(BIRDS)
    narrative_create(proverb=proverb, text=BIRDS_STORY)
    narrative_create(proverb=proverb, text="A cat slept all afternoon in the warm window.")
    out = StringIO()
    call_command("similarity_report", stdout=out, stderr=StringIO())
    text = out.getvalue()
    assert "Nearest story of the same proverb: 2 stories" in text
    assert "at or above 0.85: 0 (0.00%)" in text
    assert "p99" in text
    assert "Pairs at or above a threshold: 0" in text


def test_printed_report_lists_each_pair_once_with_its_source():
    proverb = proverb_create(BIRDS)
    narrative_create(proverb=proverb, text=BIRDS_STORY, external_id="Q1N1")
    narrative_create(proverb=proverb, text=BIRDS_STORY.replace("Leo", "Omar"), external_id="Q1N2")
    out = StringIO()
    call_command("similarity_report", stdout=out, stderr=StringIO())
    text = out.getvalue()
    assert "Pairs at or above a threshold: 1 (1 near-duplicate" in text
    assert "source Q1N1 → copy Q1N2: near_duplicate" in text
