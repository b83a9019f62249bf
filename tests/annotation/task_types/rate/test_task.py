"""The rate task type: criteria, the server's refusals, storage, targets by source, gold."""

import pytest

from annotation.quality.gold import gold_items_add, worker_gold_report
from annotation.task_parts.spans import PALETTE
from annotation.task_types.rate.models import Rating
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Batch
from crowd.task_types import SubmissionError
from tests.factories import (
    alignment_create,
    crowd_narrative_create,
    invite_path,
    narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

RATE = task_types.get("rate")
PROVERB = "Don't count your chickens before they hatch"
STORY = "Ana sold the eggs before the hens had even laid them, and lost the deal."
ALL_FOUR = {"relatedness": 4, "interesting": 3, "fluency": 5, "overall": 4}


@pytest.fixture
def write():
    return write_batch_create(proverbs=[proverb_create(PROVERB)])


@pytest.fixture
def narrative(write):
    return crowd_narrative_create(proverb=write.items.get().proverb, text=STORY, batch=write)


def reserve(source, **settings):
    batch = task_batch_create(task_type="rate", source_batch=source, settings=settings)
    return assignment_reserve_next(batch=batch, worker=worker_create())


def test_default_criteria_are_epics_with_anchors_and_a_positive_three():
    settings = RATE.clean_settings({})
    assert [c["label"] for c in settings["criteria"]] == [
        "Relatedness",
        "Interesting/Creative",
        "Fluency",
        "Overall",
    ]
    relatedness = settings["criteria"][0]
    assert relatedness["anchors"]["1"] == "Totally unrelated"
    assert relatedness["anchors"]["5"] == "Perfectly related"
    assert "3 leans positive" in settings["scale_note"]


def test_alignment_target_defaults_to_one_alignment_criterion():
    settings = RATE.clean_settings({"target": "alignments"})
    assert [c["key"] for c in settings["criteria"]] == ["alignment"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"criteria": []}, "non-empty"),
        ({"criteria": [{"key": "Bad Key"}]}, "lowercase"),
        ({"criteria": [{"key": "a"}, {"key": "a"}]}, "used twice"),
        ({"criteria": [{"key": "a", "anchors": {"6": "x"}}]}, "values 1 to 5"),
        ({"target": "proverbs"}, "target"),
        ({"draw": [{"source": "web"}]}, "source must be one of"),
        ({"sample": 0}, "sample"),
        ({"gold_min_accuracy": 2}, "gold_min_accuracy"),
    ],
)
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        RATE.clean_settings(settings)


def test_full_form_is_stored_one_rating_per_criterion(narrative):
    assignment = reserve(narrative.assignment.item.batch)
    outcome = assignment_submit(assignment=assignment, payload={"ratings": ALL_FOUR})
    stored = {r.criterion: r.value for r in Rating.objects.filter(assignment=assignment)}
    assert stored == ALL_FOUR
    assert outcome.result == {"ratings": ALL_FOUR}
    assert Rating.objects.filter(narrative=narrative, alignment__isnull=True).count() == 4


def test_incomplete_form_is_refused_naming_what_is_missing(narrative):
    assignment = reserve(narrative.assignment.item.batch)
    with pytest.raises(SubmissionError, match="Fluency, Overall are missing") as refused:
        assignment_submit(
            assignment=assignment, payload={"ratings": {"relatedness": 4, "interesting": 3}}
        )
    assert refused.value.details == {"missing": ["fluency", "overall"]}
    assert not Rating.objects.exists()


@pytest.mark.parametrize("value", [0, 6, "4", 3.5, True])
def test_values_outside_one_to_five_are_refused(narrative, value):
    assignment = reserve(narrative.assignment.item.batch)
    with pytest.raises(SubmissionError, match="from 1 to 5"):
        assignment_submit(
            assignment=assignment, payload={"ratings": {**ALL_FOUR, "fluency": value}}
        )


def test_unknown_criterion_is_refused(narrative):
    assignment = reserve(narrative.assignment.item.batch)
    with pytest.raises(SubmissionError, match="Unknown criteria: humour"):
        assignment_submit(assignment=assignment, payload={"ratings": {**ALL_FOUR, "humour": 2}})


def test_rating_page_shows_every_criterion_with_its_anchors(client, narrative):
    assignment = reserve(narrative.assignment.item.batch)
    client.get(invite_path(worker=assignment.worker))
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    for key in ALL_FOUR:
        assert page.count(f'name="{key}"') == 5
    assert "Totally unrelated" in page
    assert "3 leans positive" in page


def test_alignments_of_an_approved_align_batch_are_rated_with_their_colours(client, narrative):
    align = task_batch_create(task_type="align", source_batch=narrative.assignment.item.batch)
    approved = alignment_create(narrative=narrative, pairs=[(17, 25, 13, 17)], batch=align)
    alignment_create(narrative=narrative, pairs=[(6, 11, 4, 8)], batch=align, status="submitted")
    assignment = reserve(align, target="alignments")
    assert assignment.item.source_assignment == approved
    assert assignment.item.narrative == narrative
    assignment_submit(assignment=assignment, payload={"ratings": {"alignment": 4}})
    rating = Rating.objects.get(assignment=assignment)
    assert (rating.alignment, rating.narrative, rating.value) == (approved, narrative, 4)
    client.get(invite_path(worker=assignment.worker))
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert f'style="background:{PALETTE[0]}" data-pairs="1">eggs</span>' in page


def test_an_alignment_rating_batch_needs_an_align_source(write):
    with pytest.raises(ValueError, match="only draw from batches that make alignments"):
        task_batch_create(task_type="rate", source_batch=write, settings={"target": "alignments"})


def test_draws_take_narratives_by_source_with_a_sample_each():
    proverb = proverb_create(PROVERB)
    imported = [
        narrative_create(proverb=proverb, text=f"Imported {n}", source_label="Tan et al. 2015")
        for n in range(5)
    ]
    narrative_create(proverb=proverb, text="Other corpus", source_label="Wang et al. 2020")
    model = [narrative_create(proverb=proverb, text=f"Model {n}", source="model") for n in range(3)]
    narrative_create(proverb=proverb, text="Rejected model", source="model", status="rejected")
    crowd = crowd_narrative_create(proverb=proverb, text="Crowd approved")
    crowd_narrative_create(proverb=proverb, text="Crowd waiting", status="submitted")
    batch = task_batch_create(
        task_type="rate",
        settings={
            "draw": [
                {"source": "imported", "source_label": "Tan et al. 2015", "sample": 2},
                {"source": "model"},
                {"source": "crowd"},
            ]
        },
    )
    drawn = set(batch.items.values_list("narrative", flat=True))
    assert len(drawn & {n.pk for n in imported}) == 2
    assert {n.pk for n in model} <= drawn
    assert crowd.pk in drawn
    assert len(drawn) == 2 + 3 + 1


def test_a_seeded_sample_is_the_same_each_time():
    proverb = proverb_create(PROVERB)
    for n in range(10):
        narrative_create(proverb=proverb, text=f"Imported {n}")

    def drawn(seed):
        batch = task_batch_create(
            task_type="rate", settings={"draw": [{"source": "imported", "sample": 4}], "seed": seed}
        )
        return set(batch.items.values_list("narrative", flat=True))

    assert drawn(1) == drawn(1)
    assert len(drawn(1)) == 4
    assert any(drawn(seed) != drawn(1) for seed in range(2, 6))


def test_gold_rating_items_check_answers_against_ranges(narrative):
    batch = task_batch_create(
        task_type="rate",
        source_batch=narrative.assignment.item.batch,
        settings={"gold_min_answers": 1},
    )
    off_topic = narrative_create(proverb=narrative.proverb, text="A story about a bicycle.")
    gold_items_add(
        batch=batch,
        narratives=[off_topic],
        answer={"relatedness": {"max": 2}, "overall": {"max": 2}},
    )
    careful, careless = worker_create(), worker_create()
    for worker, relatedness in ((careful, 1), (careless, 5)):
        assignment = assignment_reserve_next(batch=batch, worker=worker)
        assert assignment.item.is_gold  # gold items come first
        assignment_submit(
            assignment=assignment,
            payload={"ratings": {**ALL_FOUR, "relatedness": relatedness, "overall": 2}},
        )
    report = worker_gold_report(batch=batch)
    assert report[careful.pk] == {"correct": 1, "total": 1, "accuracy": 1.0, "flagged": False}
    assert report[careless.pk] == {"correct": 0, "total": 1, "accuracy": 0.0, "flagged": True}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (None, "needs ranges"),
        ({"humour": {"max": 2}}, "not a criterion"),
        ({"overall": {"min": 4, "max": 2}}, "min <= max"),
        ({"overall": {"least": 2}}, '"min" and/or "max"'),
    ],
)
def test_bad_gold_rating_answers_are_refused(narrative, answer, message):
    batch = task_batch_create(task_type="rate", source_batch=narrative.assignment.item.batch)
    other = narrative_create(proverb=narrative.proverb, text="Another story.")
    with pytest.raises(ValueError, match=message):
        gold_items_add(batch=batch, narratives=[other], answer=answer)


def test_a_narrative_already_in_the_batch_cannot_become_gold(narrative):
    batch = task_batch_create(task_type="rate", source_batch=narrative.assignment.item.batch)
    with pytest.raises(ValueError, match="already items"):
        gold_items_add(batch=batch, narratives=[narrative], answer={"overall": {"min": 3}})


def test_review_list_shows_one_row_per_rating_form(client, researcher, narrative):
    assignment = reserve(narrative.assignment.item.batch)
    assignment_submit(assignment=assignment, payload={"ratings": ALL_FOUR})
    client.force_login(researcher)
    html = client.get(
        f"/admin/annotation/rating/?batch={assignment.item.batch_id}"
    ).content.decode()
    assert html.count('name="_selected_action"') == 1
    assert "Relatedness: <strong>4</strong><br>Interesting/Creative: <strong>3</strong><br>" in html
    assert "not reviewed yet" in html


def _form_fields(**changes) -> dict:
    """The rate batch form as a researcher posts it, ePiC's criteria as shown."""
    from annotation.task_types.rate.task import NARRATIVE_CRITERIA

    fields = {
        "name": "Rate",
        "target_per_item": 3,
        "reward": "0",
        "time_allowed_minutes": 10,
        "seed": 1,
        "target": "narratives",
        "gold_min_accuracy": 0.75,
        "gold_min_answers": 3,
    }
    for row, criterion in enumerate(NARRATIVE_CRITERIA, start=1):
        values = [criterion["key"], criterion["label"], criterion["question"]]
        values += [criterion["anchors"][str(value)] for value in range(1, 6)]
        fields.update({f"criterion_{row}_{index}": value for index, value in enumerate(values)})
    return {**fields, **changes}


def test_the_batch_form_shows_epics_criteria_and_draws_as_fields(client, researcher):
    client.force_login(researcher)
    page = client.get("/admin/crowd/batch/new/rate/").content.decode()
    assert "null" not in page
    assert '<textarea name="criteria"' not in page and '<textarea name="draw"' not in page
    assert page.count('data-testid="criterion-row"') == 6
    for text in ('value="relatedness"', 'value="Interesting/Creative"', 'value="Very poor"'):
        assert text in page
    assert 'name="draw_1_0"' in page and 'name="draw_1_2"' in page


def test_the_batch_form_stores_edited_criteria_and_draws(client, researcher, narrative):
    narrative_create(proverb=narrative.proverb, text="Imported one", source_label="Tan 2015")
    client.force_login(researcher)
    posted = _form_fields(
        criterion_2_1="Creativity",
        criterion_4_0="",  # Overall dropped
        criterion_5_0="humour",
        criterion_5_1="Humour",
        criterion_5_3="Not funny",
        draw_1_0="imported",
        draw_1_1="Tan 2015",
        draw_1_2="1",
    )
    response = client.post("/admin/crowd/batch/new/rate/", posted)
    assert response.status_code == 302, response.content.decode()
    batch = Batch.objects.get(name="Rate")
    criteria = batch.settings["criteria"]
    assert [c["key"] for c in criteria] == ["relatedness", "interesting", "fluency", "humour"]
    assert criteria[1]["label"] == "Creativity"
    assert criteria[3] == {
        "key": "humour",
        "label": "Humour",
        "question": "",
        "anchors": {"1": "Not funny"},
    }
    assert batch.settings["draw"] == [
        {"source": "imported", "source_label": "Tan 2015", "sample": 1}
    ]
    assert batch.items.get().narrative.text == "Imported one"


def test_unchanged_criteria_give_alignments_their_own(client, researcher, narrative):
    align = task_batch_create(task_type="align", source_batch=narrative.assignment.item.batch)
    client.force_login(researcher)
    posted = _form_fields(target="alignments", source_batch=align.pk)
    assert client.post("/admin/crowd/batch/new/rate/", posted).status_code == 302
    criteria = Batch.objects.get(name="Rate").settings["criteria"]
    assert [c["key"] for c in criteria] == ["alignment"]
