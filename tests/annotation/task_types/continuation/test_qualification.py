"""The qualification test of a continuation batch: scored once, gating reservation and submit."""

import pytest

from annotation.models import ContinuationPair
from annotation.quality.reports import batch_agreement
from annotation.task_types.continuation.models import QualificationAttempt
from annotation.task_types.continuation.qualification import (
    clean_qualification,
    qualification_attempt_create,
)
from crowd.assignments import NoWorkAvailable, assignment_reserve_next
from crowd.models import Batch
from tests.factories import (
    continuation_batch_create,
    figurative_import_fixture,
    figurative_narrative_create,
    invite_path,
    worker_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs():
    figurative_import_fixture("idiom")
    return list(ContinuationPair.objects.order_by("id"))


@pytest.fixture
def batch(pairs):
    return continuation_batch_create(
        narratives=[figurative_narrative_create()],
        settings={"qualification": {"pairs": [p.pk for p in pairs], "min_correct": 2}},
    )


def answers(pairs, right: int) -> dict:
    return {
        str(pair.pk): pair.correct if index < right else 3 - pair.correct
        for index, pair in enumerate(pairs)
    }


def test_settings_name_existing_pairs_and_a_reachable_minimum(pairs):
    with pytest.raises(ValueError, match="No option pair 999"):
        clean_qualification({"pairs": [999]})
    with pytest.raises(ValueError, match="from 0 to 1"):
        clean_qualification({"pairs": [pairs[0].pk], "min_correct": 2})
    assert clean_qualification({"pairs": [pairs[0].pk]}) == {
        "pairs": [pairs[0].pk],
        "min_correct": 1,
    }


def test_a_worker_gets_no_task_before_passing_and_one_after(batch, pairs):
    worker = worker_create()
    with pytest.raises(NoWorkAvailable) as refused:
        assignment_reserve_next(batch=batch, worker=worker)
    assert refused.value.code == "qualification"
    attempt = qualification_attempt_create(batch=batch, worker=worker, answers=answers(pairs, 2))
    assert (attempt.correct, attempt.passed) == (2, True)
    assert assignment_reserve_next(batch=batch, worker=worker)


def test_one_attempt_only_a_failed_worker_stays_out(batch, pairs):
    worker = worker_create()
    failed = qualification_attempt_create(batch=batch, worker=worker, answers=answers(pairs, 1))
    assert not failed.passed
    again = qualification_attempt_create(batch=batch, worker=worker, answers=answers(pairs, 3))
    assert again == failed and QualificationAttempt.objects.count() == 1
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=worker)


def test_the_worker_pages_lead_through_the_test_to_the_task(client, batch, pairs):
    worker = worker_create()
    response = client.get(invite_path(worker=worker, batch=batch), follow=True)
    assert response.redirect_chain[-1][0] == f"/tasks/{batch.pk}/qualify/"
    page = response.content.decode()
    assert page.count('type="radio"') == 6
    missing = client.post(f"/tasks/{batch.pk}/qualify/", {f"q{pairs[0].pk}": "1"})
    assert "Answer every question" in missing.content.decode()
    posted = {f"q{pk}": value for pk, value in answers(pairs, 3).items()}
    done = client.post(f"/tasks/{batch.pk}/qualify/", posted, follow=True)
    assert done.redirect_chain[-1][0].startswith("/tasks/a/")
    assert QualificationAttempt.objects.get(worker=worker).passed


def test_the_report_counts_attempts_and_passes(batch, pairs):
    qualification_attempt_create(batch=batch, worker=worker_create(), answers=answers(pairs, 3))
    qualification_attempt_create(batch=batch, worker=worker_create(), answers=answers(pairs, 0))
    report = batch_agreement(batch=batch)["continue"]
    assert (report["qualification_passed"], report["qualification_attempts"]) == (1, 2)


def test_the_api_answers_a_qualification_as_the_stored_pairs_allow(researcher_api, pairs):
    """A pair that does not exist is a 404 and one whose answer is withheld a 409 (the
    request is well formed; the stored data refuses it); a minimum above the pairs, or a
    pair given twice, is a 400; nothing is created on any refusal."""
    withheld = pairs[1]
    ContinuationPair.objects.filter(pk=withheld.pk).update(correct=None)

    def create(qualification):
        return researcher_api.post(
            "/api/batches/",
            {
                "name": "Qualified",
                "task_type": "continue",
                "items": [],  # a draft; its narratives are added from the admin
                "settings": {"qualification": qualification},
            },
            format="json",
        )

    missing = create({"pairs": [pairs[0].pk, 2_000_000]})
    assert missing.status_code == 404 and "No option pair 2000000" in missing.json()["detail"]
    unlabelled = create({"pairs": [withheld.pk]})
    assert unlabelled.status_code == 409 and "no known answer" in unlabelled.json()["detail"]
    too_many = create({"pairs": [pairs[0].pk], "min_correct": 2})
    assert too_many.status_code == 400 and "from 0 to 1" in too_many.json()["detail"]
    twice = create({"pairs": [pairs[0].pk, pairs[0].pk]})
    assert twice.status_code == 400 and "non-unique" in twice.json()["detail"]
    assert not Batch.objects.exists()
    created = create({"pairs": [pairs[0].pk], "min_correct": 1})
    assert created.status_code == 201, created.json()
    assert created.json()["settings"]["qualification"] == {"pairs": [pairs[0].pk], "min_correct": 1}
