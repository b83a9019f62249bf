"""The align task type: settings, page, the server's refusals, storage, chaining, review."""

import json

import pytest

from annotation.task_parts.spans import PALETTE
from annotation.task_types.align.models import SpanPair
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment
from crowd.review import assignment_approve
from crowd.task_types import SubmissionError
from tests.factories import (
    crowd_narrative_create,
    invite_path,
    narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

ALIGN = task_types.get("align")
PROVERB = "Don't count your chickens before they hatch"
STORY = "Ana sold the eggs before the hens had even laid them, and lost the deal."


def words(text: str, phrase: str) -> dict:
    start = text.index(phrase)
    return {"start": start, "end": start + len(phrase), "text": phrase}


def pair(proverb_phrase: str, story_phrase: str) -> dict:
    return {"proverb": words(PROVERB, proverb_phrase), "narrative": words(STORY, story_phrase)}


@pytest.fixture
def narrative():
    write = write_batch_create(proverbs=[proverb_create(PROVERB)])
    return crowd_narrative_create(proverb=write.items.get().proverb, text=STORY, batch=write)


def reserve(narrative, **settings):
    batch = task_batch_create(
        task_type="align", source_batch=narrative.assignment.item.batch, settings=settings
    )
    return assignment_reserve_next(batch=batch, worker=worker_create())


def test_defaults_allow_one_to_five_pairs():
    assert ALIGN.clean_settings({})["min_pairs"] == 1
    assert ALIGN.clean_settings({})["max_pairs"] == 5


@pytest.mark.parametrize(
    "settings", [{"max_pairs": 6}, {"min_pairs": 0}, {"min_pairs": 3, "max_pairs": 2}]
)
def test_pair_bounds_outside_one_to_five_are_refused(settings):
    with pytest.raises(ValueError, match="min_pairs"):
        ALIGN.clean_settings(settings)


def test_page_context_gives_both_texts_with_their_tokens(narrative):
    assignment = reserve(narrative, max_pairs=3)
    config = ALIGN.page_context(assignment=assignment)["task_config"]
    assert config["proverb"]["text"] == PROVERB
    assert config["narrative"]["text"] == STORY
    assert config["proverb"]["tokens"][1] == (6, 11)  # "count"
    assert config["max_pairs"] == 3
    assert config["palette"] == list(PALETTE)


def test_submission_is_stored_as_offsets_and_covered_strings(narrative):
    assignment = reserve(narrative)
    outcome = assignment_submit(
        assignment=assignment,
        payload={"pairs": [pair("chickens", "eggs"), pair("before they hatch", "before the hens")]},
    )
    rows = list(SpanPair.objects.filter(assignment=assignment).order_by("position"))
    assert [(r.position, r.proverb_span, r.narrative_span) for r in rows] == [
        (1, "chickens", "eggs"),
        (2, "before they hatch", "before the hens"),
    ]
    assert (rows[0].proverb_start, rows[0].proverb_end) == (17, 25)
    assert (rows[0].narrative_start, rows[0].narrative_end) == (13, 17)
    assert outcome.result["pairs"][1]["narrative"]["text"] == "before the hens"


def test_retried_submit_returns_the_stored_pairs(narrative):
    assignment = reserve(narrative)
    payload = {"pairs": [pair("chickens", "eggs")]}
    assignment_submit(assignment=assignment, payload=payload, submission_key="k1")
    again = assignment_submit(assignment=assignment, payload=payload, submission_key="k1")
    assert again.replayed
    assert SpanPair.objects.filter(assignment=assignment).count() == 1


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([], "Pair at least 1"),
        (
            [{"proverb": {"start": 6, "end": 6, "text": ""}, "narrative": words(STORY, "eggs")}],
            "empty",
        ),
        (
            [{"proverb": {"start": 40, "end": 60, "text": "x"}, "narrative": words(STORY, "eggs")}],
            "outside the proverb",
        ),
        (
            [
                {
                    "proverb": {"start": 6, "end": 25, "text": "count chickens"},
                    "narrative": words(STORY, "eggs"),
                }
            ],
            "not one contiguous stretch",
        ),
        ([pair("chickens", "eggs"), pair("chickens", "eggs")], "repeats pair 1"),
    ],
)
def test_server_refuses(narrative, pairs, message):
    assignment = reserve(narrative)
    with pytest.raises(SubmissionError, match=message):
        assignment_submit(assignment=assignment, payload={"pairs": pairs})
    assert not SpanPair.objects.exists()


def test_more_pairs_than_the_batch_allows_are_refused(narrative):
    assignment = reserve(narrative, max_pairs=2)
    with pytest.raises(SubmissionError, match="At most 2 pairs") as refused:
        assignment_submit(
            assignment=assignment,
            payload={
                "pairs": [pair("count", "sold"), pair("chickens", "eggs"), pair("hatch", "laid")]
            },
        )
    assert refused.value.field == "pairs"


def test_task_page_renders_escaped_texts_and_config(client, narrative):
    assignment = reserve(narrative)
    client.get(invite_path(worker=assignment.worker))
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "/static/task_types/align/page.js" in page
    config = json.loads(page.split('id="task-config" type="application/json">')[1].split("<")[0])
    assert config["submit_url"] == f"/tasks/a/{assignment.pk}/submit/"
    assert config["narrative"]["text"] == STORY


def test_items_come_from_approved_narratives_of_the_source_batch():
    write = write_batch_create(proverbs=[proverb_create(PROVERB)])
    proverb = write.items.get().proverb
    approved = crowd_narrative_create(proverb=proverb, batch=write, text=STORY)
    crowd_narrative_create(proverb=proverb, batch=write, status="submitted")
    crowd_narrative_create(proverb=proverb, batch=write, status="rejected")
    narrative_create(proverb=proverb)  # imported: not part of the source batch
    batch = task_batch_create(task_type="align", source_batch=write)
    assert list(batch.items.values_list("narrative", flat=True)) == [approved.pk]


def test_an_align_batch_cannot_draw_from_a_rate_batch(narrative):
    rate = task_batch_create(task_type="rate", source_batch=narrative.assignment.item.batch)
    with pytest.raises(ValueError, match="only draw from batches that make narratives"):
        task_batch_create(task_type="align", source_batch=rate)


def test_worker_is_never_given_an_alignment_of_their_own_story(narrative):
    batch = task_batch_create(task_type="align", source_batch=narrative.assignment.item.batch)
    from crowd.assignments import NoWorkAvailable

    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=narrative.worker)
    assert assignment_reserve_next(batch=batch, worker=worker_create()).item.narrative == narrative


def test_review_list_draws_the_alignment_in_its_colours(client, researcher, narrative):
    assignment = reserve(narrative)
    assignment_submit(
        assignment=assignment,
        payload={"pairs": [pair("chickens", "eggs"), pair("hatch", "laid")]},
    )
    client.force_login(researcher)
    page = client.get(f"/admin/annotation/spanpair/?batch={assignment.item.batch_id}")
    html = page.content.decode()
    assert page.status_code == 200
    assert (
        f'<span style="background:{PALETTE[0]};border-radius:3px" data-pairs="1">chickens' in html
    )
    assert f'<span style="background:{PALETTE[1]};border-radius:3px" data-pairs="2">laid' in html
    assert "Agreement and quality of this batch" in html


def test_review_action_approves_the_alignment(client, researcher, narrative):
    assignment = reserve(narrative)
    assignment_submit(assignment=assignment, payload={"pairs": [pair("chickens", "eggs")]})
    first = SpanPair.objects.get(assignment=assignment)
    client.force_login(researcher)
    client.post(
        "/admin/annotation/spanpair/",
        {"action": "approve_selected", "_selected_action": [first.pk]},
    )
    assert Assignment.objects.get(pk=assignment.pk).status == "approved"


def test_approving_an_alignment_keeps_it_for_the_dataset(narrative):
    assignment = reserve(narrative)
    assignment_submit(assignment=assignment, payload={"pairs": [pair("chickens", "eggs")]})
    assignment_approve(assignment=assignment)
    records = ALIGN.batch_results(batch=assignment.item.batch)
    assert records == [
        {
            "assignment": assignment.pk,
            "item": assignment.item_id,
            "is_gold": False,
            "worker": assignment.worker_id,
            "status": "approved",
            "narrative": narrative.pk,
            "proverb": PROVERB,
            "pairs": [
                {
                    "position": 1,
                    "proverb": {"start": 17, "end": 25, "text": "chickens"},
                    "narrative": {"start": 13, "end": 17, "text": "eggs"},
                }
            ],
        }
    ]


def test_an_alignment_opens_read_only_with_its_drawing(client, reviewer, narrative):
    assignment = reserve(narrative)
    assignment_submit(assignment=assignment, payload={"pairs": [pair("chickens", "eggs")]})
    first = SpanPair.objects.get(assignment=assignment)
    client.force_login(reviewer)
    page = client.get(f"/admin/annotation/spanpair/{first.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-pairs="1">chickens</span>' in html
    assert 'name="_save"' not in html
