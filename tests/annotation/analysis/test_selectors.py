"""The analysis records loaded from the database: scope, sources, ratings, choices, splits."""

import gc

import pytest

from annotation.analysis.common import LONG_READ_GC_THRESHOLDS, long_read_gc
from annotation.analysis.selectors import (
    ScopeAnalysis,
    dataset_analysis,
    evaluation_records,
    integrity_records,
    narrative_records,
    split_counts,
)
from annotation.datasets.records import FLAG_ROW, export_rows
from annotation.models import NarrativeIntegrity
from tests.factories import (
    alignment_create,
    batch_create,
    choice_answer_create,
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    rating_create,
    writing_record,
)

pytestmark = pytest.mark.django_db

PROVERB = "Time is money"
STORY = "Raj lost customers every minute."


def test_records_are_limited_to_the_narratives_written_in_given_batches():
    proverb = proverb_create(PROVERB)
    first, second = batch_create(), batch_create()
    kept = crowd_narrative_create(proverb=proverb, batch=first)
    crowd_narrative_create(proverb=proverb, batch=second)
    narrative_create(proverb=proverb, status="approved")
    records = list(narrative_records(batches=[first.pk]))
    assert [record.narrative_id for record in records] == [kept.pk]


def test_records_exclude_model_output_and_optionally_unapproved_narratives():
    proverb = proverb_create(PROVERB)
    approved = crowd_narrative_create(proverb=proverb)
    rejected = crowd_narrative_create(proverb=proverb, status="rejected")
    narrative_create(proverb=proverb, source="model", status="approved")
    assert [r.narrative_id for r in narrative_records()] == [approved.pk, rejected.pk]
    assert [r.narrative_id for r in narrative_records(approved_only=True)] == [approved.pk]


def test_record_carries_proverb_status_worker_and_rating_source():
    proverb = proverb_create(PROVERB)
    crowd = crowd_narrative_create(proverb=proverb, text=STORY)
    narrative_create(proverb=proverb, source_label="Wang2020", status="approved")
    crowd_record, imported_record = narrative_records()
    assert (crowd_record.proverb, crowd_record.text, crowd_record.status) == (
        PROVERB,
        STORY,
        "approved",
    )
    assert crowd_record.worker == str(crowd.worker_id)
    assert crowd_record.source == "dataset"
    assert (imported_record.worker, imported_record.source) == (None, "imported:Wang2020")


def test_rating_records_skip_rejected_assignments_and_name_their_source():
    proverb = proverb_create(PROVERB)
    crowd = crowd_narrative_create(proverb=proverb)
    imported = narrative_create(proverb=proverb, source_label="ePiC", status="approved")
    rating_create(narrative=crowd, criterion="overall", value=4)
    rating_create(narrative=imported, criterion="overall", value=2)
    rating_create(narrative=crowd, criterion="overall", value=1, status="rejected")
    records = evaluation_records()["ratings"]
    assert [(r.source, r.criterion, r.value) for r in records] == [
        ("dataset", "overall", 4),
        ("imported:ePiC", "overall", 2),
    ]


def test_rating_records_in_batch_scope_include_ratings_made_in_the_rate_batch():
    proverb = proverb_create(PROVERB)
    write, rate = batch_create(task_type="write"), batch_create(task_type="rate")
    written = crowd_narrative_create(proverb=proverb, batch=write)
    other = narrative_create(proverb=proverb, source="model", source_label="bart")
    rating_create(narrative=written, criterion="overall", value=5)
    rating_create(narrative=other, criterion="overall", value=3, batch=rate)
    rating_create(narrative=other, criterion="overall", value=1)
    assert sorted(r.value for r in evaluation_records(batches=[write.pk])["ratings"]) == [5]
    assert sorted(r.value for r in evaluation_records(batches=[write.pk, rate.pk])["ratings"]) == [
        3,
        5,
    ]
    assert {r.source for r in evaluation_records(batches=[rate.pk])["ratings"]} == {"model:bart"}


def test_choice_records_give_question_worker_and_correctness():
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB))
    answer = choice_answer_create(narrative=narrative, correct=True)
    choice_answer_create(narrative=narrative, correct=False, question=answer.question)
    records = evaluation_records()["choices"]
    assert [(r.question_id, r.correct) for r in records] == [
        (answer.question_id, True),
        (answer.question_id, False),
    ]
    assert records[0].worker == str(answer.assignment.worker_id)


def test_model_choice_records_cover_answered_questions_a_model_answered():
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB))
    answered = choice_answer_create(narrative=narrative, correct=True).question
    answered.model_chosen = proverb_create()
    answered.save()
    choice_answer_create(narrative=narrative, correct=True)  # a question no model answered
    records = evaluation_records()["model_choices"]
    assert [(r.question_id, r.correct) for r in records] == [(answered.pk, False)]


def test_split_counts_count_approved_narratives_per_part():
    proverb = proverb_create()
    narrative_create(proverb=proverb, status="approved", split_seen="train", split_unseen="test")
    narrative_create(proverb=proverb, status="approved", split_seen="test")
    narrative_create(proverb=proverb, status="rejected", split_seen="train")
    assert split_counts() == {
        "seen": {"train": 1, "test": 1, "none": 0},
        "unseen": {"train": 0, "test": 1, "none": 1},
    }


def test_integrity_records_carry_each_narratives_flags_batch_and_worker():
    proverb = proverb_create(PROVERB)
    batch = batch_create(task_type="write")
    pasted = crowd_narrative_create(proverb=proverb, batch=batch)
    NarrativeIntegrity.objects.create(narrative=pasted, telemetry=writing_record(pasted=150))
    crowd_narrative_create(proverb=proverb, batch=batch)
    narrative_create(proverb=proverb, status="approved", source_label="ePiC")
    records = list(integrity_records())
    assert [(record.batch, record.flags) for record in records] == [
        (batch.pk, ("pasted",)),
        (batch.pk, ("no_record",)),
        (None, ()),
    ]
    assert records[0].worker == str(pasted.worker_id) and records[0].has_record
    assert records[2].batch_name == "ePiC" and not records[2].checked
    assert [record.batch for record in integrity_records(batches=[batch.pk])] == [batch.pk] * 2


def test_the_export_rows_tapped_give_the_dataset_analysis_and_are_written_without_flags():
    proverb, other = proverb_create(PROVERB), proverb_create("Haste makes waste")
    batch = batch_create(task_type="write")
    pasted = crowd_narrative_create(proverb=proverb, batch=batch, text=STORY)
    NarrativeIntegrity.objects.create(narrative=pasted, telemetry=writing_record(pasted=150))
    aligned = crowd_narrative_create(proverb=other, text="He ran and fell. Slow down, he said.")
    alignment_create(narrative=aligned, pairs=[(0, 5, 3, 6), (12, 17, 27, 36)])
    crowd_narrative_create(proverb=other, status="rejected")
    imported = narrative_create(proverb=proverb, status="approved", source_label="ePiC")
    rating_create(narrative=imported, criterion="relatedness", value=4)
    for scope in ({}, {"batches": [batch.pk]}, {"approved_only": True}):
        with ScopeAnalysis(**scope, seed=2) as analysis:
            chunks = [
                list(chunk)
                for chunk in analysis.tap(export_rows(**scope, flag_rows=True, chunk_size=2))
            ]
            result = analysis.finish()
        assert all(FLAG_ROW not in row for chunk in chunks for row in chunk)
        assert result == dataset_analysis(**scope, seed=2), scope
    assert result["span_pairs_per_narrative"] == 2 / 3
    assert result["integrity"] == dataset_analysis(seed=2, approved_only=True)["integrity"]


def test_long_reads_collect_less_often_and_restore_the_collector():
    before = gc.get_threshold()
    with long_read_gc():
        with long_read_gc():
            assert gc.get_threshold() == LONG_READ_GC_THRESHOLDS
        assert gc.get_threshold() == LONG_READ_GC_THRESHOLDS
    assert gc.get_threshold() == before
