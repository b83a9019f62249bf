"""MTurk batch results CSV into the dataset: good rows, bad rows by line, re-import."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Narrative
from annotation.task_types.align.models import SpanPair
from annotation.task_types.rate.models import Rating
from crowd.models import Assignment, Worker
from mturk.importing import mturk_results_import
from mturk.results import ResultsFileError
from tests.factories import BIRDS, narrative_create, proverb_create

pytestmark = pytest.mark.django_db

WRITE_CSV = Path(__file__).parents[1] / "fixtures" / "mturk" / "batch_results_write.csv"
WRITE_MAPPING = "proverb=Input.proverb,narrative=Answer.story"


def _import(mapping: str = WRITE_MAPPING) -> dict:
    out = io.StringIO()
    call_command(
        "import_mturk_results",
        str(WRITE_CSV),
        "--batch-type",
        "write",
        "--mapping",
        mapping,
        "--json",
        stdout=out,
        stderr=io.StringIO(),
    )
    return json.loads(out.getvalue())


def test_good_rows_become_narratives_with_their_workers_and_statuses():
    report = _import()
    assert report["created"] == 3
    by_id = {a.provider_assignment_id: a for a in Assignment.objects.select_related("worker")}
    assert by_id["3ASG1"].status == "approved" and by_id["3ASG1"].worker.external_id == "A1ALICE"
    assert by_id["3ASG2"].status == "rejected"
    assert by_id["3ASG3"].status == "submitted"
    assert Worker.objects.filter(provider="mturk").count() == 2
    approved = Narrative.objects.get(assignment=by_id["3ASG1"])
    assert approved.status == "approved" and approved.source == "crowd"
    assert approved.proverb.text == BIRDS
    assert by_id["3ASG1"].submitted_at.isoformat() == "2020-07-21T17:31:12+00:00"


def test_bad_rows_are_reported_by_line_and_the_rest_kept():
    report = _import()
    assert [error["line"] for error in report["errors"]] == [5, 6, 7, 8]
    messages = " ".join(error["message"] for error in report["errors"])
    assert "Empty AssignmentId" in messages
    assert "'Paid'" in messages
    assert "proverb is empty" in messages
    assert "repeats line 2" in messages


def test_reimporting_the_same_file_changes_nothing():
    _import()
    before = (Assignment.objects.count(), Narrative.objects.count(), Worker.objects.count())
    again = _import()
    assert again["created"] == 0 and again["unchanged"] == 3
    after = (Assignment.objects.count(), Narrative.objects.count(), Worker.objects.count())
    assert after == before


def test_a_mapping_naming_a_missing_column_writes_nothing():
    with pytest.raises(CommandError, match=r"no column Answer\.tale"):
        _import("proverb=Input.proverb,narrative=Answer.tale")
    assert not Assignment.objects.exists()


def test_align_rows_become_span_pairs_located_in_the_texts():
    story = narrative_create(
        proverb=proverb_create(BIRDS), text="Maya and Leo both loved jazz.", status="approved"
    )
    content = (
        "HITId,AssignmentId,WorkerId,AssignmentStatus,SubmitTime,WorkTimeInSeconds,"
        "Input.proverb,Input.story,Answer.p1,Answer.n1,Answer.p2,Answer.n2\n"
        f'H1,AS1,AW1,Approved,2020-07-21T10:00:00,60,{BIRDS},"{story.text}",'
        "Birds of a feather,Maya and Leo,,\n"
        f'H1,AS2,AW2,Approved,2020-07-21T10:00:00,60,{BIRDS},"{story.text}",'
        "flock together,the moon,,\n"
    ).encode()
    report = mturk_results_import(
        content=content,
        batch_type="align",
        mapping=(
            "proverb=Input.proverb,narrative=Input.story,proverb_span_1=Answer.p1,"
            "narrative_span_1=Answer.n1,proverb_span_2=Answer.p2,narrative_span_2=Answer.n2"
        ),
        batch_name="Past alignments",
    )
    assert report.created == 1
    assert report.errors == [
        {"line": 3, "message": "The narrative span of pair 1 ('the moon') is not in the narrative."}
    ]
    pair = SpanPair.objects.get()
    assert pair.narrative == story
    assert (pair.proverb_span, pair.narrative_span) == ("Birds of a feather", "Maya and Leo")


def test_rate_rows_become_ratings():
    content = (
        "HITId,AssignmentId,WorkerId,AssignmentStatus,SubmitTime,WorkTimeInSeconds,"
        "Input.proverb,Input.story,Answer.rel,Answer.int,Answer.flu,Answer.all\n"
        f"H1,AS1,AW1,Approved,,60,{BIRDS},Maya and Leo both loved jazz.,5,4,3,4\n"
    ).encode()
    report = mturk_results_import(
        content=content,
        batch_type="rate",
        mapping=(
            "proverb=Input.proverb,narrative=Input.story,rating.relatedness=Answer.rel,"
            "rating.interesting=Answer.int,rating.fluency=Answer.flu,rating.overall=Answer.all"
        ),
        batch_name="Past ratings",
    )
    assert report.errors == [] and report.created == 1
    assert {r.criterion: r.value for r in Rating.objects.all()}["relatedness"] == 5


def test_a_write_mapping_without_the_narrative_is_refused():
    with pytest.raises(ResultsFileError, match="needs narrative"):
        mturk_results_import(
            content=WRITE_CSV.read_bytes(),
            batch_type="write",
            mapping="proverb=Input.proverb",
            batch_name="x",
        )


@pytest.mark.parametrize(
    ("batch_type", "mapping", "refusal"),
    [
        ("rate", "proverb=Input.p,narrative=Input.n", r"needs rating\.<criterion>"),
        ("align", "proverb=Input.p,narrative=Input.n,rating.x=Answer.x", "align import has no"),
        ("align", "proverb=Input.p,narrative=Input.n,proverb_span_2=Answer.s", "needs proverb_s"),
        (
            "choose",
            "proverb=Input.p",
            "Unknown batch type 'choose': use align, rate, template, write",
        ),
    ],
)
def test_a_mapping_the_task_type_cannot_read_writes_nothing(batch_type, mapping, refusal):
    with pytest.raises(ResultsFileError, match=refusal):
        mturk_results_import(
            content=WRITE_CSV.read_bytes(), batch_type=batch_type, mapping=mapping, batch_name="x"
        )
    assert not Assignment.objects.exists()


def test_imported_results_join_the_dataset_the_dashboard_reads():
    from annotation.datasets.records import dataset_narratives

    report = _import()
    in_batch = dataset_narratives(batches=[report["batch"]])
    assert in_batch.count() == 3
    approved = dataset_narratives(batches=[report["batch"]], approved_only=True)
    assert [n.assignment.provider_assignment_id for n in approved] == ["3ASG1"]


def test_a_field_over_the_csv_limit_is_refused_with_its_line_and_column():
    rows = WRITE_CSV.read_text(encoding="utf-8").splitlines(keepends=True)
    long_story = '"' + "A very long story, " * 8_000 + '"'  # 152,000 characters
    rows.insert(3, f"3HIT9,T1,3ASG9,A5FRED,Approved,,,60,Time is money,{long_story},\r\n")
    with pytest.raises(ResultsFileError, match=r"^Line 4: field Answer\.story is longer than"):
        mturk_results_import(
            content="".join(rows).encode(),
            batch_type="write",
            mapping=WRITE_MAPPING,
            batch_name="Past batch",
        )
    assert not Assignment.objects.exists()


def test_stories_imported_with_rate_results_get_the_dataset_check(
    django_capture_on_commit_callbacks,
):
    from annotation.models import NarrativeIntegrity
    from annotation.quality.flags import narrative_flags

    story = "Maya and Leo met at a chess club and loved old jazz records and long walks."
    original = narrative_create(proverb=proverb_create(BIRDS), text=story, source_label="ePiC")
    renamed = story.replace("Maya", "Chen").replace("Leo", "Omar")
    content = (
        "HITId,AssignmentId,WorkerId,AssignmentStatus,SubmitTime,WorkTimeInSeconds,"
        "Input.proverb,Input.story,Answer.rel,Answer.int,Answer.flu,Answer.all\n"
        f"H1,AS1,AW1,Approved,,60,{BIRDS},{renamed},5,4,3,4\n"
    ).encode()
    with django_capture_on_commit_callbacks(execute=True):
        report = mturk_results_import(
            content=content,
            batch_type="rate",
            mapping=(
                "proverb=Input.proverb,narrative=Input.story,rating.relatedness=Answer.rel,"
                "rating.interesting=Answer.int,rating.fluency=Answer.flu,rating.overall=Answer.all"
            ),
            batch_name="Past ratings",
        )
    assert report.errors == []
    imported = Narrative.objects.get(text=renamed)
    assert NarrativeIntegrity.objects.get(narrative=imported).checked_at is not None
    [flag] = narrative_flags(imported)
    assert flag["code"] == "near_duplicate" and flag["details"]["narrative"] == original.pk
