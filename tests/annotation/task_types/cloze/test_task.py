"""The cloze task: items per condition from approved narratives, fragments refused by the
server and the live check, responses scored by their main-verb lemma."""

import json
import math

import pytest

from annotation.quality.reports import batch_agreement
from annotation.task_types.cloze.models import ClozeItem, ClozeResponse
from annotation.task_types.cloze.task import blank_position, lemma_agreement
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.task_types import SubmissionError
from tests.factories import (
    crowd_narrative_create,
    invite_path,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

STORY = (
    "Anna lost her keys on Monday. She searched the whole house twice. Her brother found "
    "them in the fridge. Everyone laughed about it at dinner."
)


@pytest.fixture
def write():
    batch = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=STORY)
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text="Too short. Two.")
    return batch


def cloze_batch(write, condition="full", blank="middle"):
    return task_batch_create(
        task_type="cloze",
        source_batch=write,
        target_per_item=3,
        settings={"condition": condition, "blank": blank},
    )


@pytest.mark.parametrize("condition", ["full", "arguments", "subject_verb"])
def test_each_condition_shows_the_other_sentences_its_way(write, condition):
    batch = cloze_batch(write, condition)
    item = batch.items.get().cloze_item  # the two-sentence story is left out
    assert (item.condition, item.blank_index) == (condition, 2)
    assert item.shown[2] is None
    assert item.original_lemma == "find"
    expected = {
        "full": "She searched the whole house twice.",
        "arguments": "She search house.",
        "subject_verb": "She search.",
    }
    assert item.shown[1] == expected[condition]


def test_random_blank_is_seeded_and_never_the_first_sentence():
    positions = {blank_position(narrative_id=n, count=5, blank="random", seed=1) for n in range(40)}
    assert positions == {1, 2, 3, 4}
    assert blank_position(narrative_id=3, count=5, blank="random", seed=2) == blank_position(
        narrative_id=3, count=5, blank="random", seed=2
    )


def test_a_fragment_is_refused_with_its_reason_and_nothing_stored(write):
    batch = cloze_batch(write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    with pytest.raises(SubmissionError) as raised:
        assignment_submit(assignment=assignment, payload={"text": "in the fridge"})
    assert "needs a verb and a subject" in raised.value.message
    assert raised.value.details["missing"] == ["verb", "subject"]
    assert not ClozeResponse.objects.exists()


def test_a_full_sentence_is_stored_with_its_lemma_and_whether_it_matches(write):
    batch = cloze_batch(write)
    first = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=first, payload={"text": "Her brother found them in a shoe."})
    second = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=second, payload={"text": "The dog had hidden them."})
    responses = ClozeResponse.objects.order_by("id")
    assert [(r.lemma, r.matches) for r in responses] == [("find", True), ("hide", False)]


def test_the_live_check_says_what_is_missing_to_the_assignment_worker_only(client, write):
    batch = cloze_batch(write)
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch))
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    url = f"/tasks/a/{assignment.pk}/check/"
    answer = client.post(url, json.dumps({"text": "the red door"}), content_type="application/json")
    assert answer.status_code == 200
    assert answer.json()["missing"] == ["verb", "subject"]
    assert client.post(url, json.dumps({"text": "It opened."}), "application/json").json()["ok"]
    other = assignment_reserve_next(batch=batch, worker=worker_create())
    refused = client.post(f"/tasks/a/{other.pk}/check/", "{}", content_type="application/json")
    assert refused.status_code == 404
    assert ClozeItem.objects.count() == 1


def test_task_types_without_a_live_check_answer_404(client):
    batch = write_batch_create(proverbs=[proverb_create("Haste makes waste")])
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch))
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    response = client.post(f"/tasks/a/{assignment.pk}/check/", "{}", "application/json")
    assert response.status_code == 404


def test_page_shows_the_story_with_the_gap_and_escapes_it(client, write):
    batch = cloze_batch(write, condition="full")
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch))
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "She searched the whole house twice." in page
    assert "Her brother found them" not in page
    assert 'data-testid="answer"' in page


def test_lemma_agreement_is_one_minus_normalised_entropy():
    assert lemma_agreement(["go", "go", "go"]) == 1
    assert lemma_agreement(["go", "run", "eat"]) == pytest.approx(0)
    half = -2 * (0.5 * math.log(0.5))
    assert lemma_agreement(["go", "go", "run", "run"]) == pytest.approx(1 - half / math.log(4))
    assert lemma_agreement(["go"]) is None


def test_cloze_report_gives_match_rate_and_agreement_per_batch():
    write = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(
        proverb=write.items.get().proverb,
        batch=write,
        text="Anna lost her keys. She searched the house. Her brother found them. They laughed.",
    )
    batch = task_batch_create(
        task_type="cloze", source_batch=write, target_per_item=3, settings={"blank": "middle"}
    )
    for text in ("Her brother found them.", "The cat found them.", "She gave up."):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create())
        assignment_submit(assignment=assignment, payload={"text": text})
    report = batch_agreement(batch=batch)["cloze"]
    assert report["match_rate"] == pytest.approx(2 / 3)
    assert report["agreement"] == pytest.approx(lemma_agreement(["find", "find", "give"]))
    assert report["by_item"][0]["lemmas"] == {"find": 2, "give": 1}


def _stories_batch(texts, proverb="Haste makes waste"):
    batch = write_batch_create(proverbs=[proverb_create(proverb)])
    for text in texts:
        crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=text)
    return batch


SHORT = ["Too short. Two.", "One line only.", "Tiny. Story.", "Just this."]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_sample_is_drawn_among_the_stories_long_enough_only(seed):
    longer = STORY.replace("Anna", "Mia")
    write = _stories_batch([*SHORT, STORY, longer])
    batch = task_batch_create(
        task_type="cloze",
        source_batch=write,
        target_per_item=3,
        settings={"condition": "full", "blank": "middle", "sample": 2, "seed": seed},
    )
    assert sorted(item.narrative.text for item in batch.items.all()) == sorted([STORY, longer])


def test_the_batch_form_says_how_many_stories_qualify(client, researcher):
    write = _stories_batch([*SHORT, STORY])
    client.force_login(researcher)
    form = client.get("/admin/crowd/batch/new/cloze/").content.decode()
    assert f"{write.name}: 5 approved stories, 1 with 3 sentences or more" in form
    assert "fewer than 3 sentences are left out before sampling" in form
    fields = {
        "name": "Cloze",
        "target_per_item": 3,
        "reward": "0",
        "time_allowed_minutes": 10,
        "source_batch": write.pk,
        "seed": 1,
        "sample": 3,
        "condition": "full",
        "blank": "random",
    }
    response = client.post("/admin/crowd/batch/new/cloze/", fields, follow=True)
    assert "1 of the 5 stories chosen have 3 sentences or more" in response.content.decode()
    short_only = _stories_batch(SHORT[:2], proverb="Look before you leap")
    response = client.post(
        "/admin/crowd/batch/new/cloze/", {**fields, "name": "No", "source_batch": short_only.pk}
    )
    assert "None of the 2 stories chosen has 3 sentences or more" in response.content.decode()


def test_results_record_names_the_batch_item_and_the_cloze_item_apart(write):
    batch = cloze_batch(write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": "The cat found them."})
    [record] = task_types.get("cloze").batch_results(batch=batch)
    item = assignment.item
    assert (record["item"], record["cloze_item"]) == (item.pk, item.cloze_item_id)
    assert record["is_gold"] is False
    assert (record["original"], record["text"]) == (
        "Her brother found them in the fridge.",
        "The cat found them.",
    )
    assert (record["original_lemma"], record["lemma"], record["matches"]) == ("find", "find", True)
