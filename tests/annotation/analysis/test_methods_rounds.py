"""The methods statement's rounds part: each round's design (opponent, mode, bonus,
validation, checks allowed) and figures, as the dashboard's analysis gives them; nothing
for a study in no round."""

import pytest

from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import latex_escape, methods_latex, methods_markdown
from annotation.analysis.selectors import dataset_analysis
from annotation.datasets.splits import narrative_splits_assign
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.review import assignment_approve
from tests.annotation.opponents.conftest import CHICKENS
from tests.factories import (
    crowd_narrative_create,
    round_batch_create,
    round_story_write,
    worker_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rounds(opponent, proverbs, verdicts, django_capture_on_commit_callbacks):
    """Round 1 with no opponent; round 2 against the retrieval run in bonus mode: one story
    that fooled it, one it found; every story approved, splits drawn."""
    found, fooled = verdicts
    first = round_batch_create(proverbs=[proverbs[CHICKENS]], round=1, name="Pilot round")
    second = round_batch_create(
        proverbs=[proverbs[CHICKENS]],
        name="Against retrieval",
        opponent={"run": opponent.pk, "mode": "bonus", "bonus_cents": 30, "max_checks": 4},
        target_per_item=3,
    )
    written = [assignment_reserve_next(batch=first, worker=worker_create())]
    assignment_submit(assignment=written[0], payload={"text": fooled[1]})
    written += [round_story_write(second, fooled[0]), round_story_write(second, found[0])]
    with django_capture_on_commit_callbacks(execute=True):
        for assignment in written:
            assignment_approve(assignment=assignment)
    narrative_splits_assign(seed=0)


def test_the_statement_describes_each_round_and_what_it_found(rounds, opponent, settings):
    settings.PARABLE_LAB_CURRENCY = "GBP"  # the lab's currency: amounts are written with it
    document = methods_document(analysis=dataset_analysis())
    text = methods_markdown(document)
    assert "## Model-in-the-loop rounds" in text
    assert "Stories were collected in 2 rounds, after Dynabench" in text
    assert "Round 1: 1 approved stories; batch “Pilot round” had no opponent." in text
    assert (
        f"batch “Against retrieval” played against run {opponent.pk}, the retrieval baseline "
        f"with {opponent.model_name}, off the shelf, trained on nothing: once a story passed "
        "the writing rules, its writer could ask the model, up to 4 times per task, and saw "
        "whether it ranked the proverb first; a story that fooled the model earned a bonus of "
        "0.30 GBP once approved" in text
    )
    assert "Of the 2 stories the model ranked, 50% fooled it (1)" in text
    assert "1 bonus paid" in text
    assert "Each round's opponent was evaluated on every round's test stories" in text
    figures = {label: value for label, value, _ in document.sources}
    assert figures["round 2: share that fooled the model"] == "50%"
    assert figures["round 2: checks per story"] == "1"
    assert latex_escape("Model-in-the-loop rounds") in methods_latex(document)


def test_a_study_in_no_round_says_nothing_of_rounds(proverbs):
    crowd_narrative_create(proverb=proverbs[CHICKENS], text="Tom counted the eggs too soon.")
    assert "rounds" not in methods_markdown(methods_document(analysis=dataset_analysis()))
