"""Alignment prediction (ePiC Table 8) and the pipeline's combination (Table 9), as plain
Python: span mapping, span choice, a tiny model trained end to end, refusals."""

import pytest
import torch

from modeling.training.alignment import best_spans, encode, load_artifact, predict
from modeling.training.examples import Example, SnapshotError
from modeling.training.hyperparameters import Hyperparameters, Reporter
from modeling.training.registry import run_task
from modeling.training.spans import SpanItem, pipeline_combine, span_items, token_span
from tests.modeling.conftest import aligned_examples


def tokenizer_of(folder):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder)


def test_character_span_maps_onto_the_narrative_tokens(tiny_model):
    tokenizer = tokenizer_of(tiny_model)
    narrative = "the cat gathers moss the dog wins"
    start = narrative.index("gathers")
    item = SpanItem(1, narrative, 1, "a rolling stone gathers no moss", "moss", start, start + 12)
    encoded = encode(tokenizer, [item], 64, "cpu")
    first, last = encoded.gold[0]
    tokens = encoded.inputs["input_ids"][0][first : last + 1].tolist()
    assert tokenizer.decode(tokens) == "gathers moss"
    # The narrative mask covers the narrative's tokens only (not the proverb segment).
    narrative_tokens = encoded.inputs["input_ids"][0][encoded.narrative[0]].tolist()
    assert tokenizer.decode(narrative_tokens) == narrative


def test_span_cut_by_truncation_has_no_tokens(tiny_model):
    tokenizer = tokenizer_of(tiny_model)
    narrative = " ".join(["the cat"] * 20) + " rain"
    end_word = len(narrative) - 4
    inside = SpanItem(1, narrative, 1, "rain", "rain", 4, 7)  # "cat", near the start
    cut = SpanItem(2, narrative, 1, "rain", "rain", end_word, len(narrative))
    encoded = encode(tokenizer, [inside, cut], 16, "cpu")
    assert encoded.gold[0] is not None and encoded.gold[1] is None


def test_a_proverb_side_longer_than_the_max_length_is_cut_too(tiny_model):
    tokenizer = tokenizer_of(tiny_model)
    proverb = " ".join(["early bird catches the worm"] * 6)  # 30 tokens alone
    narrative = "the cat wins the race " * 4
    item = SpanItem(1, narrative, 1, proverb, proverb, 4, 7)
    encoded = encode(tokenizer, [item], 16, "cpu")
    assert encoded.inputs["input_ids"].shape[1] == 16
    kept = tokenizer.decode(encoded.inputs["input_ids"][0][encoded.narrative[0]].tolist())
    assert narrative.startswith(kept) and kept.startswith("the cat")
    assert encoded.gold[0] is not None  # "cat", the narrative's second word, is kept


def test_token_span_by_hand():
    # [CLS] q [SEP] n0 n1 n2 [SEP] [PAD]; the narrative "ab cd ef" is sequence 1.
    offsets = [(0, 0), (0, 1), (0, 0), (0, 2), (3, 5), (6, 8), (0, 0), (0, 0)]
    ids = [None, 0, None, 1, 1, 1, None, None]
    text = "ab cd ef"
    assert token_span(offsets, ids, text, 3, 8) == (4, 5)
    assert token_span(offsets, ids, text, 1, 4) == (3, 4)  # partial words: their tokens
    assert token_span(offsets, ids, text + " gh", 6, 11) is None  # "gh" was truncated
    assert token_span(offsets, ids, text + "  ", 6, 10) == (5, 5)  # trailing blanks only
    assert token_span(offsets, ids, text, 2, 3) is None  # the blank: no token


def test_best_span_is_valid_within_the_narrative_and_the_length_cap():
    start = torch.tensor([[9.0, 0.0, 1.0, 0.0, 5.0, 0.0]])
    end = torch.tensor([[9.0, 0.0, 0.0, 3.0, 0.0, 4.0]])
    narrative = torch.tensor([[False, True, True, True, True, True]])
    # Token 0 scores best but is not narrative; end must not precede start.
    assert best_spans(start, end, narrative, max_tokens=64) == [(4, 5)]
    # At most one token: the best single token is 4 (5 + 0) against 5 (0 + 4).
    assert best_spans(start, end, narrative, max_tokens=1) == [(4, 4)]
    assert best_spans(start, end, torch.zeros_like(narrative), max_tokens=64) == [(0, 0)]


TINY = Hyperparameters(epochs=2, batch_size=4, max_length=32)


def test_alignment_run_trains_chooses_on_dev_and_predicts_spans(tiny_model, tmp_path):
    examples = aligned_examples()
    progress = []
    result = run_task(
        task="alignment",
        examples=examples,
        setting="seen",
        model=tiny_model,
        hyperparameters=TINY,
        seed=1,
        reporter=Reporter(progress=progress.append),
        artifact_dir=tmp_path / "run",
    )
    assert [record["epoch"] for record in result["epochs"]] == [1, 2]
    chosen = result["epochs"][result["selected_epoch"] - 1]
    assert chosen["dev"]["f1"] == max(r["dev"]["f1"] for r in result["epochs"])
    assert result["metrics"]["test"] == chosen["test"]
    counts = result["counts"]
    assert counts["test"] == 8 and chosen["test"]["total"] == 8  # 2 test narratives x 4
    assert counts["train"] + counts["dev"] == 12 and counts["train_truncated_skipped"] == 0
    texts = {e.narrative_id: e.narrative for e in examples}
    for prediction in result["predictions"]:
        begin, finish = prediction["predicted"]
        assert 0 <= begin <= finish <= len(texts[prediction["narrative_id"]])
        assert prediction["predicted_text"] == texts[prediction["narrative_id"]][begin:finish]
        assert prediction["gold_text"] == prediction["proverb_span"]
    figures = [p["f1"] for p in result["predictions"]]
    assert result["metrics"]["test"]["f1"] == pytest.approx(sum(figures) / len(figures))
    training = [p for p in progress if p["stage"] == "training"]
    assert {"loss", "elapsed", "remaining", "step", "steps", "dev_f1"} <= set(training[-1])
    # The saved model predicts as the selected epoch did.
    saved = load_artifact(tmp_path / "run", max_length=32)
    test = span_items([e for e in examples if e.seen == "test"])
    again = predict(saved, test, TINY)
    assert [p["predicted"] for p in again] == [p["predicted"] for p in result["predictions"]]


def test_training_pairs_cut_by_truncation_are_skipped_and_counted(tiny_model):
    examples = aligned_examples()
    # Proverb 1's three seen train narratives get their span past 32 tokens: the dev slice
    # takes one of them, the two left in train are skipped.
    for index in range(3):
        example = examples[index]
        narrative = example.narrative + " " + " ".join(["the"] * 40) + " late"
        end = len(narrative)
        examples[index] = Example(
            **{**vars(example), "narrative": narrative, "alignments": (("late", end - 4, end),)}
        )
    result = run_task(
        task="alignment",
        examples=examples,
        setting="seen",
        model=tiny_model,
        hyperparameters=Hyperparameters(epochs=1, batch_size=4, max_length=32),
        seed=1,
    )
    assert result["counts"]["train_truncated_skipped"] == 2
    assert result["counts"]["train"] == 12 - 4 - 2 and result["counts"]["dev"] == 4


def test_too_few_aligned_narratives_are_refused_with_the_numbers(tiny_model):
    message = (
        "at least 3 in seen train and 1 in seen test; the snapshot has 2 and 0 "
        r"\(2 of its 20 narratives have an alignment\)"
    )
    with pytest.raises(SnapshotError, match=message):
        run_task(
            task="alignment",
            examples=aligned_examples(aligned=2),
            setting="seen",
            model=tiny_model,
            hyperparameters=TINY,
            seed=1,
        )


def span_prediction(narrative_id: int, f1: float) -> dict:
    return {
        "narrative_id": narrative_id,
        "precision": f1,
        "recall": f1,
        "f1": f1,
        "exact": float(f1 == 1.0),
    }


def test_pipeline_scores_spans_only_where_the_proverb_was_right():
    proverb = [
        {"narrative_id": 1, "rank": 1},
        {"narrative_id": 2, "rank": 3},
        {"narrative_id": 3, "rank": 1},
        {"narrative_id": 4, "rank": 2},  # no alignment: counts for accuracy only
    ]
    spans = [span_prediction(1, 0.5), span_prediction(1, 1.0), span_prediction(2, 0.8)]
    spans.append(span_prediction(3, 0.2))
    combined = pipeline_combine(proverb, spans)
    test = combined["metrics"]["test"]
    # Narrative 2's proverb was wrong: its 0.8 becomes 0.
    assert test["f1"] == pytest.approx((0.5 + 1.0 + 0.0 + 0.2) / 4)
    assert test["exact"] == pytest.approx(1 / 4) and test["total"] == 4
    proverbs = combined["metrics"]["proverb"]
    assert proverbs["accuracy"] == pytest.approx(2 / 4)
    assert proverbs["aligned_accuracy"] == pytest.approx(2 / 3)
    assert combined["metrics"]["alignment_alone"]["f1"] == pytest.approx(2.5 / 4)
    assert [row["proverb_correct"] for row in combined["predictions"]] == [
        True,
        True,
        False,
        True,
    ]


def test_pipeline_refuses_runs_scored_on_different_narratives():
    with pytest.raises(ValueError, match=r"1 narrative.* no prediction in the proverb run"):
        pipeline_combine([{"narrative_id": 1, "rank": 1}], [span_prediction(9, 1.0)])
