"""The agreement and chained-batch API: staff with batch permissions only."""

import pytest

from crowd.assignments import assignment_reserve_next, assignment_submit
from tests.factories import (
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    written_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def write():
    return written_batch_create()


def test_creating_a_chained_batch_takes_the_approved_narratives(researcher_api, write):
    response = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Align the first batch",
            "task_type": "align",
            "source_batch": write.pk,
            "target_per_item": 2,
            "settings": {"max_pairs": 3},
            "publish": True,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["source_batch"], body["item_count"]) == ("published", write.pk, 1)
    assert body["settings"]["max_pairs"] == 3


def test_one_create_body_makes_a_drawn_batch_at_either_url_with_the_types_target(
    researcher_api, write
):
    body = {"name": "Align", "task_type": "align", "source_batch": write.pk}
    for url in ("/api/batches/", "/api/chained-batches/"):
        created = researcher_api.post(url, body, format="json")
        assert created.status_code == 201, created.json()
        assert (created.json()["item_count"], created.json()["target_per_item"]) == (1, 2)
    placed = {
        "name": "Write",
        "task_type": "write",
        "items": [{"proverb": write.items.get().proverb_id}],
    }
    assert (
        researcher_api.post("/api/batches/", placed, format="json").json()["target_per_item"] == 10
    )


def test_a_batch_of_a_type_that_takes_items_refuses_a_source_batch(researcher_api, write):
    refused = researcher_api.post(
        "/api/batches/",
        {"name": "Write", "task_type": "write", "source_batch": write.pk},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["source_batch"] == [
        "Write narratives batches take items, not a source batch."
    ]


def test_a_batch_needs_a_source_or_a_draw(researcher_api):
    response = researcher_api.post(
        "/api/chained-batches/", {"name": "Nothing", "task_type": "rate"}, format="json"
    )
    assert response.status_code == 400
    assert "source_batch" in str(response.json())


def test_bad_settings_are_a_400_with_the_reason(researcher_api, write):
    response = researcher_api.post(
        "/api/chained-batches/",
        {"name": "x", "task_type": "align", "source_batch": write.pk, "settings": {"max_pairs": 9}},
        format="json",
    )
    assert response.status_code == 400
    assert "max_pairs" in response.json()["detail"]


def test_drawing_imported_narratives_to_rate(researcher_api):
    proverb = proverb_create("Time is money")
    for n in range(3):
        narrative_create(proverb=proverb, text=f"Imported {n}", source_label="Tan et al. 2015")
    response = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Rate Tan",
            "task_type": "rate",
            "settings": {"draw": [{"source": "imported", "sample": 2}]},
        },
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["item_count"] == 2


def test_agreement_report_of_a_batch(researcher_api, write):
    choose = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=choose, worker=worker_create())
    correct = assignment.item.choice_question.correct_id
    assignment_submit(assignment=assignment, payload={"chosen": correct})
    report = researcher_api.get(f"/api/agreement/{choose.pk}/").json()
    assert report["task_type"] == "choose"
    assert report["choose"]["human_accuracy"] == 1.0
    assert report["choose"]["aggregated"][0]["majority_vote"] == correct
    assert report["quality"]["workers"][0]["submitted"] == 1


def test_agreement_list_has_only_align_rate_and_choose_batches(researcher_api, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    listed = researcher_api.get("/api/agreement/").json()["results"]
    assert [row["id"] for row in listed] == [rate.pk]


def test_gold_items_through_the_api(researcher_api, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    response = researcher_api.post(
        f"/api/chained-batches/{rate.pk}/gold/",
        {"narratives": [control.pk], "answer": [{"criterion": "relatedness", "max": 2}]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json() == {"added": 1, "items": 2}
    refused = researcher_api.post(
        f"/api/chained-batches/{rate.pk}/gold/",
        {"narratives": [control.pk], "answer": [{"criterion": "relatedness", "max": 2}]},
        format="json",
    )
    assert refused.status_code == 409  # the batch holds it already
    assert "already items of this batch" in refused.json()["detail"]


def test_a_gold_answer_of_the_wrong_shape_is_400_and_one_the_batch_cannot_take_409(
    researcher_api, write
):
    rate = task_batch_create(task_type="rate", source_batch=write)
    choose = task_batch_create(task_type="choose", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    url = f"/api/chained-batches/{rate.pk}/gold/"

    def status_of(answer, where=url):
        body = {"narratives": [control.pk], "answer": answer}
        return researcher_api.post(where, body, format="json").status_code

    # What the schema states, for every batch (a multiple-choice batch ignores answers).
    wrong_shapes = [
        {"relatedness": {"max": 2}},  # ranges by criterion are a list
        [1],
        [{"criterion": "Relatedness", "max": 2}],
        [{"criterion": "relatedness", "max": 6}],
        [{"criterion": "relatedness", "max": True}],
        [{"criterion": "relatedness"}],
        [{"criterion": "relatedness", "least": 1}],
        [None],
        [[{"criterion": "relatedness", "max": 2}]],
    ]
    for answer in wrong_shapes:
        assert status_of(answer) == 400, answer
        assert status_of(answer, f"/api/chained-batches/{choose.pk}/gold/") == 400, answer
    # Two rules no JSON Schema states: min <= max, each criterion once.
    assert status_of([{"criterion": "relatedness", "min": 4, "max": 2}]) == 400
    twice = [{"criterion": "relatedness", "max": 2}, {"criterion": "relatedness", "min": 1}]
    assert status_of(twice) == 400
    # What the batch decides: its criteria, and that rate batches need ranges.
    assert status_of([{"criterion": "suspense", "max": 2}]) == 409
    assert status_of(None) == 409
    assert status_of([]) == 409
    assert rate.items.count() == 1  # nothing added by any of them
    assert status_of([{"criterion": "relatedness", "min": 1, "max": 2}]) == 201


def test_refresh_and_results(researcher_api, write):
    align = task_batch_create(task_type="align", source_batch=write)
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text="Later story.")
    assert researcher_api.post(f"/api/chained-batches/{align.pk}/refresh/").json() == {
        "added": 1,
        "items": 2,
    }
    assert researcher_api.get(f"/api/chained-batches/{align.pk}/results/").json() == []


def test_reviewers_read_reports_but_cannot_create_batches(api_client, reviewer, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    api_client.force_authenticate(reviewer)
    assert api_client.get(f"/api/agreement/{rate.pk}/").status_code == 200
    created = api_client.post(
        "/api/chained-batches/",
        {"name": "x", "task_type": "align", "source_batch": write.pk},
        format="json",
    )
    assert created.status_code == 403
    assert api_client.post(f"/api/chained-batches/{rate.pk}/refresh/").status_code == 403


def test_anonymous_requests_are_refused(api_client, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    assert api_client.get(f"/api/agreement/{rate.pk}/").status_code == 401


def test_a_batch_rating_alignments_gets_the_alignment_instructions(researcher_api, write):
    align = task_batch_create(task_type="align", source_batch=write)
    response = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Rate alignments",
            "task_type": "rate",
            "source_batch": align.pk,
            "settings": {"target": "alignments"},
        },
        format="json",
    )
    assert response.status_code == 201
    assert "matching colours" in response.json()["instructions"]
    assert [c["key"] for c in response.json()["settings"]["criteria"]] == ["alignment"]


def test_a_setting_the_task_type_does_not_take_is_a_400_naming_it(researcher_api, write):
    response = researcher_api.post(
        "/api/chained-batches/",
        {"name": "x", "task_type": "cloze", "source_batch": write.pk, "settings": {"options": 4}},
        format="json",
    )
    assert response.status_code == 400
    assert "'options' was unexpected" in response.json()["detail"]


def test_min_pairs_over_max_pairs_is_refused_as_the_schema_says(researcher_api, write):
    body = {"name": "x", "task_type": "align", "source_batch": write.pk}
    refused = researcher_api.post(
        "/api/chained-batches/",
        {**body, "settings": {"min_pairs": 4, "max_pairs": 3}},
        format="json",
    )
    taken = researcher_api.post(
        "/api/chained-batches/",
        {**body, "settings": {"min_pairs": 3, "max_pairs": 3}},
        format="json",
    )
    assert (refused.status_code, taken.status_code) == (400, 201)


def test_distractors_from_a_model_run_that_does_not_exist_are_a_404(researcher_api):
    proverb = proverb_create("Time is money")
    narrative_create(proverb=proverb, text="Imported", source_label="Tan et al. 2015")
    response = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Choose",
            "task_type": "choose",
            "settings": {"distractors": "model:987654", "draw": [{"source": "imported"}]},
        },
        format="json",
    )
    assert response.status_code == 404
    assert "987654" in response.json()["detail"]


def test_a_source_batch_of_another_type_is_a_409_and_nothing_is_kept(researcher_api, write):
    from crowd.models import Batch

    before = Batch.objects.count()
    response = researcher_api.post(
        "/api/chained-batches/",
        {"name": "Choose the endings", "task_type": "continue_choice", "source_batch": write.pk},
        format="json",
    )
    assert response.status_code == 409
    assert "can only draw from batches that make continuations" in response.json()["detail"]
    assert Batch.objects.count() == before


def test_gold_items_on_a_type_without_gold_are_a_409(researcher_api, write):
    align = task_batch_create(task_type="align", source_batch=write)
    response = researcher_api.post(
        f"/api/chained-batches/{align.pk}/gold/", {"narratives": []}, format="json"
    )
    assert response.status_code == 409
    assert response.json() == {"detail": "Align spans batches have no gold items."}
