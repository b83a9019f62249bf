"""A round's stories where they are read: the export's fields (and the dataset card's
words for them) and the review queue's lines."""

import json

import pyarrow.parquet as pq
import pytest

from annotation.exports.dataset import dataset_export
from annotation.quality.submissions import submission_review
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment
from crowd.review import assignment_approve
from tests.annotation.opponents.conftest import CHICKENS
from tests.factories import (
    BIRDS_STORY,
    crowd_narrative_create,
    round_batch_create,
    round_story_write,
    worker_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def written(opponent, proverbs, verdicts, django_capture_on_commit_callbacks):
    """Approved stories: one of round 1 (no opponent), one of round 2 that fooled the
    opponent and one it found; and a story written in no round."""
    found, fooled = verdicts
    first = round_batch_create(proverbs=[proverbs[CHICKENS]], round=1)
    second = round_batch_create(
        proverbs=[proverbs[CHICKENS]],
        opponent={"run": opponent.pk, "mode": "bonus", "bonus_cents": 40},
        target_per_item=3,
    )
    stories = {"first": assignment_reserve_next(batch=first, worker=worker_create())}
    assignment_submit(assignment=stories["first"], payload={"text": fooled[1]})
    stories["fooled"] = round_story_write(second, fooled[0])
    stories["found"] = round_story_write(second, found[0])
    with django_capture_on_commit_callbacks(execute=True):
        for assignment in stories.values():
            assignment_approve(assignment=assignment)
    crowd_narrative_create(proverb=proverbs[CHICKENS], text=BIRDS_STORY)
    return {key: Assignment.objects.get(pk=value.pk) for key, value in stories.items()}


def test_exports_carry_each_storys_round_and_what_the_model_said(written, opponent, tmp_path):
    result = dataset_export(format="jsonl", directory=tmp_path, statistics=False)
    rows = {
        row["narrative"]: row
        for row in map(json.loads, (tmp_path / "dataset.jsonl").read_text().splitlines())
    }
    fooled = rows[written["fooled"].narrative.text]
    assert (fooled["round"], fooled["opponent_run"], fooled["model_fooled"]) == (
        2,
        opponent.pk,
        True,
    )
    assert fooled["model_rank"] > 1 and fooled["model_checks"] == 1
    assert fooled["human_validated"] is None
    found = rows[written["found"].narrative.text]
    assert (found["model_rank"], found["model_fooled"]) == (1, False)
    first = rows[written["first"].narrative.text]
    # Round 1 had no opponent: what the model said is unknown, never 0 or false.
    assert (first["round"], first["opponent_run"], first["model_rank"]) == (1, None, None)
    assert (first["model_fooled"], first["model_checks"]) == (None, None)
    none = rows[BIRDS_STORY]
    assert none["round"] is None and none["model_fooled"] is None
    card = result.card.read_text()
    assert "| model_fooled | true when the opponent did not rank" in card
    dataset_export(format="parquet", directory=tmp_path, statistics=False)
    table = pq.read_table(tmp_path / "dataset.parquet").to_pylist()
    by_text = {row["narrative"]: row for row in table}
    assert by_text[written["fooled"].narrative.text]["model_fooled"] is True
    assert by_text[BIRDS_STORY]["round"] is None


def test_the_review_queue_shows_the_models_answer_checks_and_bonus(written, opponent):
    lines = submission_review(assignment=written["fooled"])["display"]["opponent"]
    assert (
        lines[0] == f"Round 2, opponent run {opponent.pk}: retrieval seen, {opponent.model_name}."
    )
    assert lines[1].startswith("The model ranked its proverb ") and "fooled the model" in lines[1]
    assert lines[2] == "Checks asked on the page before submitting: 1."
    assert lines[3] == "Bonus for fooling the model: 0.40 paid."
    found = submission_review(assignment=written["found"])["display"]["opponent"]
    assert found[-1] == "Bonus for fooling the model: none, the model found its proverb."
    assert submission_review(assignment=written["first"])["display"]["opponent"] == [
        "Round 1, no opponent."
    ]
