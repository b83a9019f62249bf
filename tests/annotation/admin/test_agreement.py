"""Admin pages of align, rate and choose batches: creation, agreement, gold, results."""

import json

import pytest

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Batch
from tests.factories import (
    narrative_create,
    proverb_create,
    rating_create,
    task_batch_create,
    worker_create,
    written_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def write():
    return written_batch_create()


def test_new_batch_form_creates_a_chained_batch_with_its_items(client, researcher, write):
    client.force_login(researcher)
    form = client.get("/admin/crowd/batch/new/choose/")
    assert form.status_code == 200
    assert "Draw from the dataset" in form.content.decode()
    response = client.post(
        "/admin/crowd/batch/new/choose/",
        {
            "name": "Which proverb?",
            "target_per_item": 3,
            "reward": "0.10",
            "time_allowed_minutes": 10,
            "source_batch": write.pk,
            "seed": 1,
            "distractors": "random",
            "options": 5,
            "gold_min_accuracy": 0.75,
            "gold_min_answers": 3,
            "publish": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()
    batch = Batch.objects.get(name="Which proverb?")
    assert (batch.source_batch, batch.status) == (write, "published")
    assert batch.settings["distractors"] == "random"
    assert batch.items.count() == 1


def test_new_batch_form_needs_a_source(client, researcher):
    client.force_login(researcher)
    response = client.post(
        "/admin/crowd/batch/new/align/",
        {
            "name": "Nowhere",
            "target_per_item": 2,
            "reward": "0",
            "time_allowed_minutes": 10,
            "seed": 1,
            "min_pairs": 1,
            "max_pairs": 5,
        },
    )
    assert response.status_code == 200
    assert "Choose a source batch" in response.content.decode()


def test_report_page_shows_figures_and_aggregated_answers(client, reviewer, write):
    choose = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=choose, worker=worker_create(display_name="Kim"))
    correct = assignment.item.choice_question.correct_id
    assignment_submit(assignment=assignment, payload={"chosen": correct})
    client.force_login(reviewer)
    html = client.get(f"/admin/agreement/{choose.pk}/").content.decode()
    assert 'data-testid="human-accuracy">1.000<' in html
    assert "Time is money ✔" in html
    assert "Kim" in html
    assert "Add gold items" not in html  # reviewers read only


def test_report_page_shows_a_majority_vote_tie_as_a_tie(client, reviewer, write):
    for text in ("Haste makes waste", "Look before you leap", "Birds of a feather", "No pain"):
        proverb_create(text, status="curated")
    choose = task_batch_create(task_type="choose", source_batch=write, target_per_item=2)
    first = assignment_reserve_next(batch=choose, worker=worker_create())
    question = first.item.choice_question
    other = next(pk for pk in question.options if pk != question.correct_id)
    assignment_submit(assignment=first, payload={"chosen": other})
    second = assignment_reserve_next(batch=choose, worker=worker_create())
    assignment_submit(assignment=second, payload={"chosen": question.correct_id})
    client.force_login(reviewer)
    html = client.get(f"/admin/agreement/{choose.pk}/").content.decode()
    tie = html.split('data-testid="tie">')[1].split("<")[0]
    assert tie.startswith("Tie: ")
    assert "Time is money" in tie
    assert " / " in tie
    assert "1 tied question(s)" in html


def test_index_lists_the_batches(client, reviewer, write):
    rate = task_batch_create(task_type="rate", source_batch=write, name="Rate them")
    client.force_login(reviewer)
    html = client.get("/admin/agreement/").content.decode()
    assert f'href="/admin/agreement/{rate.pk}/">Rate them<' in html


def test_reviewer_cannot_refresh_or_add_gold(client, reviewer, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    client.force_login(reviewer)
    assert client.post(f"/admin/agreement/{rate.pk}/refresh/").status_code == 403
    assert client.post(f"/admin/agreement/{rate.pk}/gold/").status_code == 403


def test_researcher_adds_gold_items_from_the_report_page(client, researcher, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    client.force_login(researcher)
    response = client.post(
        f"/admin/agreement/{rate.pk}/gold/",
        {"narratives": str(control.pk), "answer": '{"relatedness": {"max": 2}}'},
        follow=True,
    )
    assert "1 gold item(s) added: “A bicycle.” (Haste makes waste)." in response.content.decode()
    assert rate.items.get(is_gold=True).gold_answer == {"relatedness": {"min": 1, "max": 2}}


def test_the_gold_form_takes_the_apis_list_of_ranges_each_criterion_once(client, researcher, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    client.force_login(researcher)
    url = f"/admin/agreement/{rate.pk}/gold/"

    twice = '[{"criterion": "overall", "max": 2}, {"criterion": "overall", "min": 1}]'
    refused = client.post(url, {"narratives": str(control.pk), "answer": twice}, follow=True)
    assert "give the range of &#x27;overall&#x27; once" in refused.content.decode()
    assert not rate.items.filter(is_gold=True).exists()

    ranges = (
        '[{"criterion": "relatedness", "max": 2}, {"criterion": "overall", "min": 1, "max": 3}]'
    )
    client.post(url, {"narratives": str(control.pk), "answer": ranges})
    assert rate.items.get(is_gold=True).gold_answer == {
        "relatedness": {"min": 1, "max": 2},
        "overall": {"min": 1, "max": 3},
    }


def test_results_download_is_json(client, researcher, write):
    align = task_batch_create(task_type="align", source_batch=write)
    client.force_login(researcher)
    response = client.get(f"/admin/agreement/{align.pk}/results/")
    assert (
        response["Content-Disposition"] == f'attachment; filename="batch-{align.pk}-results.json"'
    )
    assert json.loads(response.content) == []


def test_anonymous_is_sent_to_login(client, write):
    response = client.get("/admin/agreement/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_multiple_choice_gold_needs_only_the_narratives(client, researcher, write):
    choose = task_batch_create(task_type="choose", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    client.force_login(researcher)
    page = client.get(f"/admin/agreement/{choose.pk}/").content.decode()
    assert 'name="narratives"' in page
    assert 'name="answer"' not in page
    client.post(f"/admin/agreement/{choose.pk}/gold/", {"narratives": str(control.pk)})
    gold = choose.items.get(is_gold=True)
    assert gold.gold_answer == {"chosen": control.proverb_id}
    assert gold.choice_question.correct == control.proverb


def test_gold_answer_that_is_not_json_is_reported(client, researcher, write):
    rate = task_batch_create(task_type="rate", source_batch=write)
    control = narrative_create(proverb=proverb_create("Haste makes waste"), text="A bicycle.")
    client.force_login(researcher)
    response = client.post(
        f"/admin/agreement/{rate.pk}/gold/",
        {"narratives": str(control.pk), "answer": "{relatedness: 2"},
        follow=True,
    )
    assert "not valid JSON" in response.content.decode()
    assert not rate.items.filter(is_gold=True).exists()


def test_report_page_says_why_an_alpha_is_unstable(client, reviewer):
    batch = task_batch_create(task_type="rate", publish=False, settings={"draw": []})
    proverb = proverb_create("Haste makes waste")
    raters = [worker_create(), worker_create()]
    for number, values in enumerate([(3, 4), (4, 5), (5, 3)]):
        narrative = narrative_create(proverb=proverb, text=f"Story {number}.")
        for worker, value in zip(raters, values, strict=True):
            rating_create(
                narrative=narrative, criterion="overall", value=value, batch=batch, worker=worker
            )
    client.force_login(reviewer)
    html = client.get(f"/admin/agreement/{batch.pk}/").content.decode()
    assert 'data-testid="alpha-note">Unstable: every rating is between 3 and 5' in html
