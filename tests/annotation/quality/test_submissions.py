"""The review queue's selectors: each task type's display of a submission, next and counts."""

import pytest

from annotation.quality.submissions import (
    duration_text,
    submission_counts,
    submission_next,
    submission_review,
)
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    alignment_create,
    choice_answer_create,
    crowd_narrative_create,
    proverb_create,
    rating_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def narrative():
    return crowd_narrative_create(proverb=proverb_create(BIRDS), text=BIRDS_STORY)


def test_duration_text_reads_minutes_and_seconds():
    assert duration_text(42.4) == "42 s"
    assert duration_text(185) == "3 min 05 s"


def test_alignment_display_draws_each_pair_in_its_colour(narrative):
    assignment = alignment_create(narrative=narrative, pairs=[(0, 5, 0, 4), (11, 18, 9, 12)])
    display = submission_review(assignment=assignment)["display"]
    assert display["kind"] == "align"
    assert [(pair["proverb"], pair["narrative"]) for pair in display["pairs"]] == [
        ("Birds", "Maya"),
        ("feather", "Leo"),
    ]
    coloured = [piece for piece in display["narrative"] if piece["colour"]]
    assert [piece["text"] for piece in coloured] == ["Maya", "Leo"]
    assert coloured[0]["colour"] != coloured[1]["colour"]


def test_rating_display_lists_each_criterion_with_its_value(narrative):
    rating = rating_create(narrative=narrative, criterion="overall", value=4)
    display = submission_review(assignment=rating.assignment)["display"]
    assert display["kind"] == "rate"
    assert display["ratings"] == [{"label": "overall", "value": 4}]
    assert display["narrative"] == BIRDS_STORY
    assert display["gold"] is None


def test_choice_display_marks_the_chosen_and_the_correct_option(narrative):
    answer = choice_answer_create(narrative=narrative, correct=True)
    display = submission_review(assignment=answer.assignment)["display"]
    assert display["options"] == [{"text": BIRDS, "correct": True, "chosen": True}]
    assert display["is_correct"] is True


def test_next_leaves_out_reviewed_and_skipped_submissions(narrative):
    align_one = alignment_create(narrative=narrative, pairs=[(0, 5, 0, 4)], status="submitted")
    batch = align_one.item.batch
    align_two = alignment_create(
        narrative=narrative, pairs=[(0, 5, 0, 4)], batch=batch, status="submitted"
    )
    alignment_create(narrative=narrative, pairs=[(0, 5, 0, 4)], batch=batch, status="approved")
    assert submission_next(batch=batch) == align_one
    assert submission_next(batch=batch, skip=[align_one.pk]) == align_two
    assert submission_next(batch=batch, skip=[align_one.pk, align_two.pk]) is None
    assert submission_counts(batch=batch) == {"awaiting": 2, "approved": 1, "rejected": 0}


def test_integrity_flags_reach_the_queue_with_the_matching_story(narrative):
    from annotation.models import NarrativeIntegrity
    from tests.factories import writing_record

    copy = crowd_narrative_create(proverb=narrative.proverb, text=BIRDS_STORY + " Again.")
    NarrativeIntegrity.objects.create(
        narrative=copy,
        telemetry=writing_record(typed=0, pasted=160),
        similarity={"proverb": {"narrative": narrative.pk, "similarity": 0.97}, "own": None},
    )
    flags = {flag["code"]: flag for flag in submission_review(assignment=copy.assignment)["flags"]}
    assert "pasted" in flags and flags["pasted"]["message"].startswith("Pasted")
    near = next(flag for flag in flags.values() if "match" in flag)
    assert near["match"] == {
        "narrative": narrative.pk,
        "worker": str(narrative.worker),
        "text": narrative.text,
    }


def test_queue_offers_a_rejection_message_naming_the_evidence_and_the_writing_score(narrative):
    from annotation.models import NarrativeIntegrity
    from tests.factories import writing_record

    copy = crowd_narrative_create(proverb=narrative.proverb, text=BIRDS_STORY + " Again.")
    NarrativeIntegrity.objects.create(narrative=copy, telemetry=writing_record(typed=0, pasted=160))
    review = submission_review(assignment=copy.assignment)
    assert "Pasted from outside" in review["evidence_message"]
    assert "160 of the story's" in review["evidence_message"]
    assert review["writing"]["source"] == "default"
    assert review["writing"]["value"] < 0.5
    assert review["pledge"] == {
        "asked": False,
        "agreed_at": None,
        "text": "No pledge asked in this batch.",
    }


def test_unknown_writing_process_is_not_cited_as_evidence(narrative):
    review = submission_review(assignment=narrative.assignment)
    assert [flag["code"] for flag in review["flags"]] == ["no_record"]
    assert review["evidence_message"] == "" and review["writing"] is None


def test_queue_shows_when_the_worker_agreed_to_the_pledge(narrative):
    from crowd.pledges import pledge_record

    batch = narrative.assignment.item.batch
    batch.pledge = "No AI tools."
    batch.save()
    assert submission_review(assignment=narrative.assignment)["pledge"]["agreed_at"] is None
    pledge_record(batch=batch, worker=narrative.worker)
    pledge = submission_review(assignment=narrative.assignment)["pledge"]
    assert pledge["agreed_at"] and pledge["text"].startswith("Agreed to the batch's pledge")
