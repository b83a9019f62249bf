"""crowd.task_types: a task type defined here and nowhere else runs through the whole
platform (create batch, reserve, submit, review, agreement, export) by its declared
interface alone."""

import json

import pytest

from annotation.models import Narrative
from annotation.quality.agreement import pairwise_label_agreement
from annotation.quality.gold import gold_items_add
from annotation.quality.reports import counted
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError, TaskType
from tests.factories import proverb_create, worker_create

pytestmark = pytest.mark.django_db


class GlossTask(TaskType):
    """A worker paraphrases a proverb in a few words; the gloss is kept as a narrative.
    Agreement: how often two glosses of a proverb start with the same word."""

    key = "test_gloss"
    label = "Gloss a proverb"
    template = "task_types/write/page.html"
    agreement_template = "admin/annotation/agreement/figures.html"

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        gloss = str(payload.get("gloss", "")).strip()
        if not 1 <= len(gloss.split()) <= 5:
            raise SubmissionError("A gloss is one to five words.", field="gloss")
        return {"gloss": gloss}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        Narrative.objects.create(
            proverb=assignment.item.proverb,
            text=cleaned["gloss"],
            source_label=assignment.item.batch.name,
            assignment=assignment,
            worker=assignment.worker,
            word_count=len(cleaned["gloss"].split()),
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"gloss": Narrative.objects.get(assignment=assignment).text}

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        status = Narrative.Status.APPROVED if approved else Narrative.Status.REJECTED
        Narrative.objects.filter(assignment=assignment).update(status=status)

    def agreement(self, *, batch) -> dict:
        rows = counted(Narrative, batch).values_list(
            "assignment__item_id", "assignment__worker_id", "text"
        )
        first_words = [(item, worker, text.split()[0].lower()) for item, worker, text in rows]
        return {
            "glosses": len(first_words),
            "first_word_agreement": pairwise_label_agreement(first_words),
        }


@pytest.fixture
def gloss_type():
    task_type = task_types.register(GlossTask())
    yield task_type
    task_types.unregister(task_type.key)


def test_a_type_defined_in_a_test_runs_from_batch_to_export(
    gloss_type, researcher_api, researcher, client
):
    proverb = proverb_create("Patience is a virtue")
    created = researcher_api.post(
        "/api/batches/",
        {
            "name": "Glosses <b>1</b>",
            "task_type": "test_gloss",
            "items": [{"proverb": proverb.pk}],
            "target_per_item": 3,
            "publish": True,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    batch_id = created.json()["id"]
    batch = Batch.objects.get(pk=batch_id)

    workers = [worker_create() for _ in range(3)]
    assignments = [assignment_reserve_next(batch=batch, worker=w) for w in workers]
    with pytest.raises(SubmissionError):
        assignment_submit(assignment=assignments[0], payload={"gloss": ""})
    assert not Narrative.objects.filter(assignment=assignments[0]).exists()
    for assignment, gloss in zip(
        assignments, ("Patience pays off", "patience wins", "Hurry <up>"), strict=True
    ):
        outcome = assignment_submit(assignment=assignment, payload={"gloss": gloss})
        assert outcome.result == {"gloss": gloss}

    client.force_login(researcher)
    shown = client.get(f"/admin/review/{batch_id}/next/").json()["submission"]
    assert shown["assignment"] == assignments[0].pk
    assert shown["display"] == {"kind": "result", "fields": [["gloss", "Patience pays off"]]}
    for assignment, decision in zip(assignments, ("approve", "approve", "reject"), strict=True):
        decided = client.post(
            f"/admin/review/{batch_id}/{assignment.pk}/decide/",
            {"decision": decision, "message": "Not a gloss of this proverb."},
        )
        assert decided.status_code == 200, decided.content
    statuses = [Narrative.objects.get(assignment=a).status for a in assignments]
    assert statuses == ["approved", "approved", "rejected"]

    report = researcher_api.get(f"/api/agreement/{batch_id}/").json()
    assert report["test_gloss"] == {"glosses": 2, "first_word_agreement": 1.0}
    assert [row["approved"] for row in report["quality"]["workers"]] == [1, 1, 0]
    listed = client.get("/admin/agreement/").content.decode()
    assert f'href="/admin/agreement/{batch_id}/"' in listed
    page = client.get(f"/admin/agreement/{batch_id}/").content.decode()
    assert '<td data-figure="first_word_agreement">1.000</td>' in page
    assert "Glosses &lt;b&gt;1&lt;/b&gt;" in page

    download = client.get(f"/admin/agreement/{batch_id}/results/")
    records = json.loads(download.content)
    assert [(r["worker"], r["status"], r["gloss"]) for r in records] == [
        (workers[0].pk, "approved", "Patience pays off"),
        (workers[1].pk, "approved", "patience wins"),
        (workers[2].pk, "rejected", "Hurry <up>"),
    ]


def test_a_type_without_agreement_or_gold_is_refused_both(gloss_type, researcher_api):
    class PlainTask(GlossTask):
        key = "test_plain"
        agreement_template = ""

    task_types.register(PlainTask())
    try:
        proverb = proverb_create()
        created = researcher_api.post(
            "/api/batches/",
            {"name": "Plain", "task_type": "test_plain", "items": [{"proverb": proverb.pk}]},
            format="json",
        )
        assert created.status_code == 201, created.content
        batch = Batch.objects.get(pk=created.json()["id"])
        assert researcher_api.get(f"/api/agreement/{batch.pk}/").status_code == 404
        listed = researcher_api.get("/api/agreement/").json()["results"]
        assert batch.pk not in [row["id"] for row in listed]
        with pytest.raises(ValueError, match="Gloss a proverb batches have no gold items"):
            gold_items_add(batch=batch, narratives=[])
        assert batch.items.count() == 1
    finally:
        task_types.unregister("test_plain")


def test_settings_are_held_to_the_types_schema_with_null_where_it_allows():
    class Sized(GlossTask):
        def settings_schema(self):
            size = {"type": "integer", "minimum": 1, "nullable": True}
            return {"type": "object", "additionalProperties": False, "properties": {"size": size}}

    task_type = Sized()
    assert task_type.checked_settings({"size": None})["size"] is None
    with pytest.raises(ValueError, match=r"settings\.size: 0 is less than the minimum of 1"):
        task_type.checked_settings({"size": 0})
    with pytest.raises(ValueError, match="'colour' was unexpected"):
        task_type.checked_settings({"colour": "red"})
    assert task_types.TaskType().settings_schema() == {"type": "object"}
