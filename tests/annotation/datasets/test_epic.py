"""The ePiC import service: proverbs, narratives, span pairs, splits, re-import."""

import json
from pathlib import Path

import pytest

from annotation.datasets.epic import dataset_import_epic
from annotation.datasets.epic_files import EpicFileError
from annotation.models import Narrative, Proverb
from annotation.task_types.align.models import SpanPair
from tests.factories import crowd_narrative_create, proverb_create

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"


def _records() -> list[dict]:
    return json.loads((FIXTURE / "dataset.json").read_text())


def _content(records: list[dict]) -> bytes:
    return json.dumps(records).encode()


def _record(pk="Q9N1", quote="Time is money", narrative="He paid for speed.", **spans) -> dict:
    fields = {"quote": quote, "narrative": narrative}
    fields.update({f"span_quote_{slot}": "" for slot in range(1, 6)})
    fields.update({f"span_narrative_{slot}": "" for slot in range(1, 6)})
    fields.update(spans)
    return {"pk": pk, "fields": fields}


def test_import_counts_proverbs_narratives_and_span_pairs():
    report = dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    assert (report.proverbs, report.proverbs_created) == (3, 3)
    assert (report.narratives, report.narratives_created) == (6, 6)
    assert (report.span_pairs, report.ambiguous_spans, report.unresolved_spans) == (11, 1, 1)
    assert SpanPair.objects.count() == 11


def test_import_reports_progress_by_stage_and_record(settings):
    import annotation.datasets.epic as epic

    records = [
        _record(pk=f"Q1N{k}", narrative=f"Time ran out for {k}.", span_quote_1="Time",
                span_narrative_1="Time")
        for k in range(1, 2_501)
    ]  # fmt: skip
    seen = []
    dataset_import_epic(content=_content(records), progress=lambda *step: seen.append(step))
    assert seen[:2] == [(0, 1, "Reading the file"), (1, 1, "Reading the file")]
    resolving = [done for done, total, stage in seen if stage == "Resolving spans"]
    assert resolving == [epic._PROGRESS_RECORDS, 2 * epic._PROGRESS_RECORDS, 2_500]
    assert seen[-2:] == [(0, 2_500, "Writing narratives"), (2_500, 2_500, "Writing narratives")]
    assert Narrative.objects.count() == 2_500


def test_import_marks_narratives_imported_and_approved_without_worker():
    dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes(), source_label="ePiC 2022")
    narrative = Narrative.objects.get(external_id="Q3N1")
    assert narrative.source == Narrative.Source.IMPORTED
    assert narrative.status == Narrative.Status.APPROVED
    assert narrative.source_label == "ePiC 2022"
    assert narrative.worker is None and narrative.assignment is None
    assert narrative.word_count == 19
    proverb = narrative.proverb
    assert (proverb.text, proverb.status, proverb.source) == (
        "Time is money",
        "curated",
        "ePiC 2022",
    )


def test_import_stores_offsets_strings_and_slots_of_span_pairs():
    dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    pair = SpanPair.objects.get(narrative__external_id="Q2N2", position=2)
    assert (pair.proverb_start, pair.proverb_end) == (26, 43)
    assert pair.proverb_span == "Before They Hatch"
    narrative = pair.narrative.text
    assert narrative[pair.narrative_start : pair.narrative_end] == pair.narrative_span
    assert pair.ambiguous is False


def test_import_flags_a_span_found_twice_as_ambiguous_with_first_occurrence():
    dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    pair = SpanPair.objects.get(narrative__external_id="Q1N2", position=2)
    assert pair.ambiguous is True
    assert pair.narrative_start == pair.narrative.text.index("the garden")


def test_import_reports_an_unresolved_span_and_keeps_the_rest_of_the_record():
    report = dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes())
    [error] = report.errors
    assert (error.record, error.pk, error.slot) == (3, "Q1N3", 3)
    assert "'motivational posters' not found in the narrative" in error.message
    narrative = Narrative.objects.get(external_id="Q1N3")
    assert list(narrative.span_pairs.values_list("position", flat=True)) == [1]


def test_import_reports_a_half_empty_span_pair():
    record = _record(span_quote_2="money", span_narrative_2="")
    report = dataset_import_epic(content=_content([record]))
    [error] = report.errors
    assert (error.pk, error.slot) == ("Q9N1", 2)
    assert "span_narrative_2 is empty" in error.message


def test_malformed_file_writes_nothing():
    records = _records()
    records[4]["fields"].pop("narrative")
    with pytest.raises(EpicFileError) as caught:
        dataset_import_epic(content=_content(records))
    assert [(p.record, p.pk) for p in caught.value.errors] == [(5, "Q2N2")]
    assert Proverb.objects.count() == Narrative.objects.count() == 0


def test_malformed_split_file_writes_nothing():
    splits = {
        "epic_seen_train_pks.json": b'["Q1N1"]',
        "epic_seen_test_pks.json": b'["Q1N1"]',
        "epic_unseen_train_pks.json": b'["Q1N1"]',
        "epic_unseen_test_pks.json": b"[]",
    }
    with pytest.raises(EpicFileError, match="Q1N1 is in both seen train and seen test"):
        dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes(), splits=splits)
    assert Narrative.objects.count() == 0


def test_import_applies_split_files():
    splits = {path.name: path.read_bytes() for path in (FIXTURE / "splits").iterdir()}
    report = dataset_import_epic(content=(FIXTURE / "dataset.json").read_bytes(), splits=splits)
    assert report.splits == {"seen": {"train": 4, "test": 2}, "unseen": {"train": 4, "test": 2}}
    q2n1 = Narrative.objects.get(external_id="Q2N1")
    assert (q2n1.split_seen, q2n1.split_unseen) == ("train", "test")


def test_reimport_of_the_same_file_changes_nothing():
    content = (FIXTURE / "dataset.json").read_bytes()
    dataset_import_epic(content=content)
    before = list(SpanPair.objects.values_list("id", "narrative_id", "position"))
    report = dataset_import_epic(content=content)
    assert (report.narratives_created, report.narratives_updated) == (0, 0)
    assert report.narratives_unchanged == 6
    assert report.proverbs_created == 0
    assert list(SpanPair.objects.values_list("id", "narrative_id", "position")) == before


def test_reimport_with_a_changed_narrative_updates_it_and_its_span_pairs():
    records = _records()
    dataset_import_epic(content=_content(records))
    records[5]["fields"]["narrative"] = "Every minute cost money, so Raj lost customers."
    report = dataset_import_epic(content=_content(records))
    assert (report.narratives_updated, report.narratives_unchanged) == (1, 5)
    narrative = Narrative.objects.get(external_id="Q3N1")
    assert narrative.text.startswith("Every minute")
    pair = narrative.span_pairs.get(position=2)
    assert narrative.text[pair.narrative_start : pair.narrative_end] == "lost customers"


def test_import_matches_an_existing_proverb_by_normalized_text_and_warns():
    existing = proverb_create("TIME is money!", status="candidate")
    record = _record(span_quote_1="money", span_narrative_1="paid")
    report = dataset_import_epic(content=_content([record]))
    assert report.proverbs_created == 0
    assert Narrative.objects.get().proverb == existing
    [warning] = report.warnings
    assert "please confirm" in warning.message
    assert report.inexact_matches == [
        {
            "pk": "Q9N1",
            "quote": "Time is money",
            "proverb": existing.pk,
            "proverb_text": "TIME is money!",
            "records": 1,
        }
    ]
    assert Narrative.objects.get().proverb_quote == "Time is money"


def test_spans_are_resolved_in_the_record_s_own_quote():
    proverb_create("A stitch in time saves nine.")
    record = _record(
        quote="A stitch in time, saves nine",
        narrative="She fixed the leak at once.",
        span_quote_1="time, saves",
        span_narrative_1="at once",
    )
    report = dataset_import_epic(content=_content([record]))
    assert report.unresolved_spans == 0
    pair = SpanPair.objects.get()
    assert (pair.proverb_span, pair.proverb_start, pair.proverb_end) == ("time, saves", 12, 23)


def test_an_exact_match_keeps_no_separate_quote_and_lists_nothing_to_confirm():
    proverb_create("Time is money")
    report = dataset_import_epic(content=_content([_record()]))
    assert report.inexact_matches == []
    assert Narrative.objects.get().proverb_quote == ""


def test_import_refuses_a_pk_that_belongs_to_a_crowd_narrative():
    crowd_narrative_create(proverb=proverb_create("Time is money"), external_id="Q9N1")
    with pytest.raises(EpicFileError, match="belongs to a narrative of source crowd"):
        dataset_import_epic(content=_content([_record()]))
    assert Narrative.objects.filter(source="imported").count() == 0


def test_import_recognises_a_parable_record_by_its_generated_pk():
    proverb = proverb_create("Time is money")
    crowd_narrative_create(proverb=proverb, text="First.")
    crowd_narrative_create(proverb=proverb, text="He paid for speed.")
    report = dataset_import_epic(content=_content([_record(pk=f"Q{proverb.pk}N2")]))
    assert report.narratives_unchanged == 1
    assert Narrative.objects.count() == 2


@pytest.mark.django_db
def test_imported_stories_are_queued_for_the_dataset_check_and_flagged_once_it_runs(
    django_capture_on_commit_callbacks,
):
    from annotation.models import NarrativeIntegrity
    from annotation.quality.flags import narrative_flags

    story = "Maya and Leo met at a chess club and loved old jazz records and long walks."
    blank = {f"span_{side}_{n}": "" for side in ("quote", "narrative") for n in range(1, 6)}
    records = [
        {"pk": pk, "fields": {"quote": "Birds of a feather flock together", "narrative": text}}
        for pk, text in (
            ("Q1N1", story),
            ("Q1N2", story.replace("Leo", "Omar").replace("Maya", "Chen")),
        )
    ]
    for record in records:
        record["fields"].update(blank)
    with django_capture_on_commit_callbacks(execute=True):
        dataset_import_epic(content=json.dumps(records).encode())
    assert NarrativeIntegrity.objects.filter(checked_at__isnull=False).count() == 2
    copy = Narrative.objects.get(external_id="Q1N2")
    flags = narrative_flags(copy)
    assert [flag["code"] for flag in flags] == ["near_duplicate"]
    assert flags[0]["details"]["narrative"] == Narrative.objects.get(external_id="Q1N1").pk
