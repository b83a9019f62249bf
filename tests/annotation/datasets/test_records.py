"""Selectors that read the dataset in chunks: export rows, alignments, pks, query counts."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.analysis.selectors import narrative_records
from annotation.datasets.records import export_rows, keyword_list, narratives_for_pks
from annotation.models import NarrativeIntegrity
from annotation.task_types.align.models import SpanPair
from tests.factories import (
    alignment_create,
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    rating_create,
    writing_record,
)

pytestmark = pytest.mark.django_db

PROVERB = "Time is money"
STORY = "Raj lost customers every minute."


def _rows(**options) -> list[dict]:
    return [row for chunk in export_rows(**options) for row in chunk]


def test_span_pairs_come_from_the_earliest_approved_alignment():
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    alignment_create(narrative=narrative, pairs=[(0, 4, 19, 31)], status="rejected")
    alignment_create(narrative=narrative, pairs=[(8, 13, 4, 18), (0, 4, 19, 31)])
    alignment_create(narrative=narrative, pairs=[(0, 4, 0, 3)])
    [record] = narrative_records()
    assert [(p.proverb_span, p.narrative_span) for p in record.span_pairs] == [
        ("money", "lost customers"),
        ("Time", "every minute"),
    ]
    [row] = _rows()
    assert [(p["alignment"], p["position"]) for p in row["span_pairs"]] == [(1, 1), (1, 2), (2, 1)]


def test_imported_span_pairs_come_before_crowd_alignments():
    narrative = narrative_create(proverb=proverb_create(PROVERB), text=STORY, status="approved")
    alignment_create(narrative=narrative, pairs=[(0, 4, 19, 31)])
    SpanPair.objects.create(
        narrative=narrative,
        position=2,
        proverb_start=8,
        proverb_end=13,
        proverb_span="money",
        narrative_start=4,
        narrative_end=18,
        narrative_span="lost customers",
    )
    [row] = _rows()
    first = row["span_pairs"][0]
    assert (first["alignment"], first["position"], first["annotator"]) == (1, 2, None)
    assert row["span_pairs"][1]["annotator"].startswith("local:")


def test_export_rows_give_parable_narratives_generated_pks_per_proverb():
    first, second = proverb_create(PROVERB), proverb_create("Haste makes waste")
    narrative_create(proverb=first, external_id="Q9001N1")  # no proverb's generated pk
    a = crowd_narrative_create(proverb=first)
    b = crowd_narrative_create(proverb=second)
    c = crowd_narrative_create(proverb=first)
    pks = {row["id"]: row["pk"] for row in _rows()}
    assert pks[a.pk] == f"Q{first.pk}N1"
    assert pks[b.pk] == f"Q{second.pk}N1"
    assert pks[c.pk] == f"Q{first.pk}N2"
    assert sorted(pks.values()) == sorted({*pks.values()})


def test_export_rows_keep_generated_pks_when_filtered():
    proverb = proverb_create(PROVERB)
    crowd_narrative_create(proverb=proverb, status="rejected")
    approved = crowd_narrative_create(proverb=proverb)
    [row] = _rows(approved_only=True)
    assert (row["id"], row["pk"]) == (approved.pk, f"Q{proverb.pk}N2")


def test_export_rows_fall_back_when_a_generated_pk_is_an_imported_records_pk():
    proverb = proverb_create(PROVERB)
    narrative_create(proverb=proverb, external_id=f"Q{proverb.pk}N1")
    crowd = crowd_narrative_create(proverb=proverb)
    pks = [row["pk"] for row in _rows()]
    assert pks == [f"Q{proverb.pk}N1", f"parable-{crowd.pk}"]


def test_narratives_for_pks_resolve_external_generated_and_fallback_pks():
    proverb = proverb_create(PROVERB)
    imported = narrative_create(proverb=proverb, external_id="Q9001N1")
    crowd = crowd_narrative_create(proverb=proverb)
    later = crowd_narrative_create(proverb=proverb)
    found = narratives_for_pks(["Q9001N1", f"Q{proverb.pk}N1", f"parable-{later.pk}", "Q99N9"])
    assert found == {
        "Q9001N1": imported.pk,
        f"Q{proverb.pk}N1": crowd.pk,
        f"parable-{later.pk}": later.pk,
    }


def test_export_rows_summarise_ratings_per_criterion():
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB))
    for value in (3, 4, 4):
        rating_create(narrative=narrative, criterion="overall", value=value)
    rating_create(narrative=narrative, criterion="fluency", value=5)
    [row] = _rows()
    assert row["ratings"] == [
        {"criterion": "fluency", "mean": 5.0, "n": 1},
        {"criterion": "overall", "mean": pytest.approx(11 / 3), "n": 3},
    ]


def test_export_rows_carry_worker_splits_and_keywords():
    narrative = crowd_narrative_create(
        proverb=proverb_create(PROVERB),
        split_seen="train",
        keywords={"verbs": ["lose"], "entities": [{"text": "Raj", "label": "PERSON"}]},
    )
    [row] = _rows()
    assert row["worker"] == f"local:{narrative.worker.external_id}"
    assert (row["split_seen"], row["split_unseen"]) == ("train", None)
    assert row["keywords"] == ["lose", "Raj"]


def test_keyword_list_flattens_verbs_and_entity_texts_once():
    stored = {
        "verbs": ["run", "run", "hide"],
        "entities": [{"text": "Paris", "label": "GPE"}],
        "model": "x",
    }
    assert keyword_list(stored) == ["run", "hide", "Paris"]
    assert keyword_list(["a", "b"]) == ["a", "b"]
    assert keyword_list({}) == []


def _queries_for_export(narratives: int) -> int:
    proverb = proverb_create()
    for _ in range(narratives):
        narrative = crowd_narrative_create(proverb=proverb, text=STORY)
        alignment_create(narrative=narrative, pairs=[(0, 4, 0, 3)])
        rating_create(narrative=narrative, criterion="overall", value=4)
    with CaptureQueriesContext(connection) as queries:
        rows = _rows(chunk_size=100)
        records = list(narrative_records())
    assert len(rows) >= narratives and len(records) >= narratives
    return len(queries)


def test_export_and_records_use_a_fixed_number_of_queries_per_chunk():
    few = _queries_for_export(2)
    many = _queries_for_export(20)
    assert few == many


def test_export_rows_come_in_chunks_of_the_given_size():
    proverb = proverb_create()
    for _ in range(5):
        narrative_create(proverb=proverb)
    assert [len(chunk) for chunk in export_rows(chunk_size=2)] == [2, 2, 1]


def test_export_rows_carry_integrity_flags_and_the_writing_summary_not_the_record():
    proverb = proverb_create(PROVERB)
    pasted = crowd_narrative_create(proverb=proverb, text=STORY)
    NarrativeIntegrity.objects.create(
        narrative=pasted, telemetry=writing_record(typed=0, pasted=len(STORY))
    )
    narrative_create(proverb=proverb, text="Imported story.")
    pasted_row, imported_row = _rows()
    assert pasted_row["integrity_flags"] == ["pasted"]
    assert pasted_row["writing"]["pasted_share"] == 1.0
    assert "intervals" not in pasted_row["writing"]
    assert imported_row["integrity_flags"] == [] and imported_row["writing"] is None


def test_export_rows_say_when_the_worker_agreed_to_the_batchs_pledge():
    from crowd.pledges import pledge_record
    from tests.factories import batch_create

    proverb = proverb_create(PROVERB)
    batch = batch_create(task_type="write", pledge="No AI tools.")
    pledged = crowd_narrative_create(proverb=proverb, batch=batch, text=STORY)
    pledge = pledge_record(batch=batch, worker=pledged.worker)
    crowd_narrative_create(proverb=proverb, batch=batch, text=STORY + " Again.")
    narrative_create(proverb=proverb, text="Imported.")
    rows = {row["id"]: row["pledged_at"] for row in _rows()}
    assert rows.pop(pledged.pk) == pledge.agreed_at.isoformat()
    assert set(rows.values()) == {None}
