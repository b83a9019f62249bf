"""A template batch's results: MTurk's Batch results CSV column for column, read back by
Parable's own MTurk results import to the same answers; JSONL; agreement per categorical
field; and the dataset card with its methods section."""

import csv
import io
import json

import pytest

from annotation.task_types.template.models import TemplateAnswer
from annotation.task_types.template.results import (
    HIT_COLUMNS,
    agreement_report,
    results_card,
    results_csv,
    results_jsonl,
)
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd.batches import batch_publish
from crowd.review import assignment_approve, assignment_approve_exclude, assignment_reject
from mturk.importing import mturk_results_import
from tests.annotation.task_types.template.helpers import answered, import_mapping, template_batch

pytestmark = pytest.mark.django_db


def fields(sentiment, aspects=(), explanation="", topic=None):
    sent = [["sentiment", sentiment], *(["aspects", aspect] for aspect in aspects)]
    sent += [["topic", topic]] if topic else []
    return [*sent, ["explanation", explanation], ["read_seconds", "9"]]


@pytest.fixture
def batch():
    batch = batch_publish(batch=template_batch(reward_cents=25))
    stored = answered(
        batch,
        [
            (1, "w1", fields("positive", ["price", "quality"], "Good, but the battery", "kitchen")),
            (1, "w2", fields("positive", ["price"], "=SUM(A1) was the price", "electronics")),
            (1, "w3", fields("negative", [], "-5 stars for the battery", "electronics")),
            (2, "w1", fields("negative", ["quality"], "Broke at once")),
            (2, "w2", fields("negative", [], "Lid broke;\nrefund slow")),
            (3, "w1", fields("neutral", [], "It is a book")),
            (3, "w3", fields("positive", ["quality"], "Has pages")),
            (4, "w1", fields("positive", [], "Fair")),
            (4, "w2", fields("negative", [], "Nothing special")),
        ],
    )
    assignment_approve(assignment=stored[0])
    assignment_reject(assignment=stored[2], message="Please read the whole review.")
    assignment_approve_exclude(assignment=stored[5], reason="Copied text")
    return batch


def read(batch) -> list[dict]:
    stream = io.StringIO()
    results_csv(batch=batch, stream=stream)
    return list(csv.DictReader(io.StringIO(stream.getvalue())))


def test_the_csv_has_mturks_columns_in_mturks_order(batch):
    stream = io.StringIO()
    assert results_csv(batch=batch, stream=stream) == 8  # the excluded answer left out
    header = next(csv.reader(io.StringIO(stream.getvalue())))
    inputs = ["Input.review_text", "Input.source", "Input.review_id", "Input.annotator_note"]
    answers = ["Answer.sentiment", "Answer.on_topic", "Answer.topic", "Answer.aspects"]
    answers += ["Answer.explanation", "Answer.read_seconds"]
    assert header == [*HIT_COLUMNS, *inputs, *answers, "Approve", "Reject"]
    assert stream.getvalue().startswith('"HITId","HITTypeId","Title",')  # every cell quoted


def test_each_row_says_what_mturks_would(batch):
    rows = read(batch)
    first = rows[0]
    answer = TemplateAnswer.objects.get(assignment_id=int(first["AssignmentId"]))
    assignment = answer.assignment
    assert first["HITId"] == str(assignment.item_id) and first["Title"] == batch.name
    assert first["Reward"] == "0.25" and first["MaxAssignments"] == "3"
    assert first["WorkerId"] == WorkerPseudonyms(export_salt())("local:w1")
    assert first["AssignmentStatus"] == "Approved" and first["ApprovalTime"]
    assert first["SubmitTime"].endswith(f"UTC {assignment.submitted_at.year}")
    seconds = int((assignment.submitted_at - assignment.started_at).total_seconds())
    assert first["WorkTimeInSeconds"] == str(seconds)
    assert first["Answer.aspects"] == "price|quality"
    assert first["Answer.on_topic"] == "" and first["LifetimeApprovalRate"] == ""  # unknown
    assert first["Input.review_id"] == "R1001"
    rejected = next(row for row in rows if row["AssignmentStatus"] == "Rejected")
    assert rejected["RequesterFeedback"] == "Please read the whole review."
    assert rejected["RejectionTime"] and not rejected["ApprovalTime"]
    assert rejected["Answer.explanation"] == "'-5 stars for the battery"  # text, no formula
    assert [row["AssignmentStatus"] for row in rows].count("Submitted") == 6
    assert "'=SUM(A1) was the price" in [row["Answer.explanation"] for row in rows]


def test_parables_mturk_import_reads_the_csv_back_to_the_same_answers(batch):
    stream = io.StringIO()
    results_csv(batch=batch, stream=stream)
    content = stream.getvalue().encode()
    mapping = import_mapping(next(csv.reader(io.StringIO(stream.getvalue()))))
    report = mturk_results_import(
        content=content, batch_type="template", mapping=mapping, batch_name="Read back"
    )
    assert (report.created, report.errors) == (8, [])

    def answers_by(batch_name):
        found = {}
        kept = TemplateAnswer.objects.filter(assignment__item__batch__name=batch_name)
        for answer in kept.exclude(assignment__status="excluded"):
            key = (answer.row.values["review_id"], answer.row.values["review_text"])
            mine = {name: value for name, value in answer.answers.items() if value != ""}
            found.setdefault(key, []).append((answer.assignment.status, mine))
        return {key: sorted(value, key=repr) for key, value in found.items()}

    assert answers_by("Read back") == answers_by(batch.name)
    again = mturk_results_import(
        content=content, batch_type="template", mapping=mapping, batch_name="Read back"
    )
    assert (again.created, again.unchanged) == (0, 8)


def test_jsonl_carries_each_answer_with_its_writing_record(batch):
    stream = io.StringIO()
    assert results_jsonl(batch=batch, stream=stream) == 8
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert records[0]["answers"]["aspects"] == "price|quality"
    assert records[0]["inputs"]["source"] == "amazon.com"
    assert records[0]["worker"] == WorkerPseudonyms(export_salt())("local:w1")
    assert records[0]["writing"] == {} and records[0]["away"] is None  # none sent: unknown


def test_agreement_per_categorical_field_and_the_majority_per_item(batch):
    report = agreement_report(batch=batch)
    assert report["answers"] == 7  # submitted and approved; rejected and excluded left out
    by_field = {field["field"]: field for field in report["fields"]}
    assert set(by_field) == {"sentiment", "on_topic", "topic", "aspects"}
    # Items 1 and 2 agree (positive, negative), item 4 splits; item 3 has one answer.
    assert by_field["sentiment"]["items_with_two"] == 3
    assert by_field["sentiment"]["alpha"] == pytest.approx(1 - (1 / 3) / 0.6)
    assert by_field["on_topic"]["alpha"] is None  # nobody answered it: undefined
    first, fourth = report["by_item"][0], report["by_item"][3]
    assert first["majority"]["sentiment"] == {"answer": "positive", "tied": []}
    assert first["majority"]["aspects"]["tied"] == ["price", "price|quality"]
    assert fourth["majority"]["sentiment"] == {"answer": None, "tied": ["negative", "positive"]}
    assert fourth["majority"]["aspects"] == {"answer": "", "tied": []}  # none ticked, twice


def test_the_card_describes_the_batch_truly(batch):
    card = results_card(batch=batch)
    assert "The requester's own Amazon Mechanical Turk HIT template “Reviews”" in card
    assert "one item per row of its input CSV" in card
    assert "each of the 5 items was to be answered by 3 different workers" in card
    assert "8 answers from 3 workers were submitted: 1 approved, 1 rejected and 6 awaiting" in card
    assert "Agreement on sentiment (radio): Krippendorff's alpha (nominal) 0.444" in card
    assert "Agreement on on_topic (radio): Krippendorff's alpha (nominal) undefined" in card
    assert import_mapping(["HITId", "Input.a", "Answer.b"]) == "input.a=Input.a,answer.b=Answer.b"


def test_the_downloads_need_the_view_permission(client, researcher, worker_user, batch):
    url = f"/admin/annotation/templateanswer/results/{batch.pk}/csv/"
    client.force_login(researcher)
    response = client.get(url)
    assert response["Content-Disposition"] == f'attachment; filename="batch-{batch.pk}-results.csv"'
    assert response.content.decode().startswith('"HITId"')
    agreement = client.get(url.replace("/csv/", "/agreement/")).json()
    assert agreement["by_item"][0]["majority"]["sentiment"]["answer"] == "positive"
    client.force_login(worker_user)
    assert client.get(url).status_code == 302  # not staff: the admin's login
