"""The rounds' figures: per round, the stories that fooled their opponent (a story humans
did not match left out), and each round's model on every round's test stories (none it
trained on), each story ranked once."""

import pytest

from annotation.datasets.records import dataset_narratives
from annotation.datasets.splits import narrative_splits_assign
from annotation.models import NarrativeRound, OpponentEvaluation
from annotation.opponents.backend import opponent_rank
from annotation.opponents.evaluation import rounds_analysis
from crowd.models import Batch
from modeling.runs.snapshots import snapshot_freeze
from tests.factories import STORIES, crowd_narrative_create, finished_run_create

pytestmark = pytest.mark.django_db


def round_stories(proverbs, number: int, **record) -> list:
    """An approved crowd story of each of STORIES' texts (told again in later rounds), each
    recorded as written in the round."""
    batch = Batch.objects.create(name=f"Round {number}", task_type="write")
    stories = []
    for text, told in STORIES.items():
        for story in told:
            narrative = crowd_narrative_create(
                proverb=proverbs[text], text=f"{story} (Round {number}.)", batch=batch
            )
            NarrativeRound.objects.create(narrative=narrative, round=number, **record)
            stories.append(narrative)
    return stories


def accuracy_of(run, narratives, proverbs) -> float:
    ranked = sorted((p.pk, p.text) for p in proverbs.values())
    orders = opponent_rank(run_id=run.pk, proverbs=ranked, texts=[n.text for n in narratives])
    hits = [order[0][0] == n.proverb_id for n, order in zip(narratives, orders, strict=True)]
    return sum(hits) / len(hits)


def test_each_round_counts_the_stories_that_fooled_its_opponent(opponent, proverbs):
    round_stories(proverbs, 1)
    second = round_stories(proverbs, 2, opponent_run=opponent.pk, opponent_label="run x")
    NarrativeRound.objects.filter(narrative__in=second[:12]).update(fooled=True, checks=3)
    NarrativeRound.objects.filter(narrative__in=second[12:20]).update(fooled=False, checks=1)
    NarrativeRound.objects.filter(narrative=second[0]).update(validate=True, validation="unmatched")
    NarrativeRound.objects.filter(narrative=second[1]).update(validate=True, validation="confirmed")
    NarrativeRound.objects.filter(narrative=second[2]).update(validate=True)  # awaiting
    first, later = rounds_analysis(narratives=dataset_narratives())["by_round"]
    assert (first["round"], first["stories"], first["answered"], first["fooled_share"]) == (
        1,
        24,
        0,
        None,  # no opponent: unknown, never 0
    )
    assert (later["stories"], later["answered"], later["fooled"]) == (24, 20, 12)
    assert later["fooled_share"] == pytest.approx(12 / 20)
    assert (later["unmatched"], later["confirmed"], later["awaiting_validation"]) == (1, 1, 1)
    # Fooling stories that count: 12, less the unmatched one and the one awaiting, over the
    # 19 answered stories that count.
    assert later["validated_fooled_share"] == pytest.approx(10 / 19)
    assert later["checks_mean"] == pytest.approx((12 * 3 + 8 * 1 + 4 * 0) / 24)
    assert later["opponents"] == ["run x"] and later["opponent_runs"] == [opponent.pk]


def test_each_rounds_model_is_evaluated_on_every_rounds_test_stories(opponent, proverbs):
    first = round_stories(proverbs, 1)
    second = round_stories(proverbs, 2, opponent_run=opponent.pk)
    narrative_splits_assign(seed=0)
    evaluation = rounds_analysis(narratives=dataset_narratives())["evaluation"]
    assert evaluation["rounds"] == [1, 2] and evaluation["errors"] == {}
    (model,) = evaluation["models"]
    assert (model["run"], model["rounds_opposed"], model["setting"]) == (opponent.pk, [2], "seen")
    cells = evaluation["cells"][0]
    for stories, cell in zip((first, second), cells, strict=True):
        tested = [n for n in stories if type(n).objects.get(pk=n.pk).split_seen == "test"]
        assert cell["n"] == len(tested) > 0
        assert cell["accuracy"] == pytest.approx(accuracy_of(opponent, tested, proverbs))
        assert cell["candidates"] == len(proverbs)
    ranked = OpponentEvaluation.objects.count()
    assert ranked == sum(cell["n"] for cell in cells)
    # A fresh analysis ranks nothing again.
    assert rounds_analysis(narratives=dataset_narratives())["evaluation"]["cells"][0] == cells
    assert OpponentEvaluation.objects.count() == ranked


def test_a_model_is_never_evaluated_on_stories_it_trained_on(tiny_model, proverbs):
    first = round_stories(proverbs, 1)
    narrative_splits_assign(seed=0)
    trained = finished_run_create(
        probabilities={}, task="biencoder", model_name=tiny_model, artifact=tiny_model
    )
    assert trained.snapshot == snapshot_freeze()
    round_stories(proverbs, 2, opponent_run=trained.pk)
    narrative_splits_assign(seed=1)  # drawn again: some stories it trained on are test now
    cells = rounds_analysis(narratives=dataset_narratives())["evaluation"]["cells"][0]
    seen_train = {e["narrative_id"] for e in trained.snapshot.examples if e["seen"] == "train"}
    now_test = {n.pk for n in first if type(n).objects.get(pk=n.pk).split_seen == "test"}
    assert now_test & seen_train, "the new draw moves some trained stories to test"
    assert cells[0]["n"] == len(now_test - seen_train)


def test_a_model_that_cannot_load_is_named_and_its_cells_left_unknown(opponent, proverbs):
    round_stories(proverbs, 1)
    round_stories(proverbs, 2, opponent_run=opponent.pk)
    narrative_splits_assign(seed=0)
    opponent.status = "cancelled"
    opponent.save()
    evaluation = rounds_analysis(narratives=dataset_narratives())["evaluation"]
    assert evaluation["cells"] == [[None, None]]
    assert f"No finished proverb run {opponent.pk}" in evaluation["errors"][str(opponent.pk)]


def test_without_rounds_there_is_nothing_to_evaluate(proverbs):
    crowd_narrative_create(proverb=proverbs["Practice makes perfect"], text="She practised.")
    assert rounds_analysis(narratives=dataset_narratives()) == {
        "by_round": [],
        "evaluation": None,
    }
