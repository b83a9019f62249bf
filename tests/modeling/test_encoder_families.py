"""Every task with BERT-, RoBERTa- and MPNet-family checkpoints: tiny randomly initialised
models of each family, built from config, each with a tokenizer of its family (WordPiece
with [CLS]/[SEP] and token type ids; byte-level BPE with <s>/</s> and none; MPNet's
WordPiece with <s>/</s> and none)."""

import pytest
import torch

from common.encoder import Encoder, ModelNotFound
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.registry import run_task
from modeling.training.seq2seq import Seq2Seq
from modeling.training.spans import pipeline_combine
from tests.modeling.conftest import FAMILIES, aligned_examples, tiny_family_folder
from tests.modeling.test_baselines import keyed_examples

# Enough epochs that every family clears the floors with room to spare: at 2 (and 4 for
# alignment) the tiny RoBERTa sat near them (accuracy 0.58-0.67, span F1 0.33) and the
# thread count or a test's order could tip it under.
HP = Hyperparameters(epochs=4, batch_size=8, max_length=64, learning_rate=1e-3)


@pytest.mark.parametrize("task", ["retrieval", "biencoder", "classifier"])
def test_proverb_tasks_and_motifs_run_and_read_their_input(family_model, task):
    result = run_task(
        task=task,
        examples=keyed_examples(),
        setting="seen",
        model=family_model,
        hyperparameters=HP,
        seed=1,
    )
    test = result["metrics"]["test"]
    assert test["total"] == 12 and test["candidates"] == 6
    if task != "retrieval":  # a random model off the shelf has no floor; a trained one has
        # Each narrative holds its proverb's words: chance is 1/6.
        assert test["accuracy"] >= 0.5
    assert result["model_path"] == family_model
    motifs = result["metrics"]["motifs"]
    assert motifs["narratives"] == 12 and 0 <= motifs["embedding_cosine"] <= 1
    # The per-narrative probabilities the distractors and the pipeline read.
    assert all(len(p["probabilities"]) == 6 for p in result["predictions"])


def test_alignment_and_pipeline_place_spans_on_the_narrative(family_model):
    examples = aligned_examples(proverbs=4, per_proverb=5)
    hp = Hyperparameters(epochs=8, batch_size=4, max_length=64, learning_rate=1e-3)
    alignment = run_task(
        task="alignment",
        examples=examples,
        setting="seen",
        model=family_model,
        hyperparameters=hp,
        seed=1,
    )
    predictions = alignment["predictions"]
    assert predictions and alignment["counts"]["train_truncated_skipped"] == 0
    for prediction in predictions:
        begin, end = prediction["predicted"]
        assert prediction["predicted_text"] == prediction["predicted_text"].strip() != ""
        assert 0 <= begin < end
    # The gold span is the narrative's one copy of the proverb's first word: learnable.
    assert alignment["metrics"]["test"]["f1"] > 0.3
    proverbs = run_task(
        task="retrieval",
        examples=examples,
        setting="seen",
        model=family_model,
        hyperparameters=hp,
        seed=1,
    )
    combined = pipeline_combine(proverbs["predictions"], predictions)["metrics"]
    assert combined["alignment_alone"] == alignment["metrics"]["test"]
    assert 0 <= combined["test"]["f1"] <= combined["alignment_alone"]["f1"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_checkpoints_load_as_fp32(tmp_path, dtype):
    from transformers import AutoModel

    folder = tiny_family_folder(tmp_path / "roberta", "roberta")
    AutoModel.from_pretrained(folder).to(dtype).save_pretrained(tmp_path / "half")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (tmp_path / "half" / name).write_bytes((tmp_path / "roberta" / name).read_bytes())
    assert AutoModel.from_pretrained(tmp_path / "half", dtype="auto").dtype == dtype
    assert Encoder(str(tmp_path / "half")).transformer.dtype == torch.float32
    assert Seq2Seq(str(tmp_path / "half")).model.dtype == torch.float32


def test_generation_says_an_mpnet_encoder_cannot_be_warm_started_as_a_decoder(tmp_path):
    folder = tiny_family_folder(tmp_path / "mpnet", "mpnet")
    with pytest.raises(ModelNotFound, match="no decoder form"):
        Seq2Seq(folder)


def test_the_families_are_the_three_the_tasks_promise():
    assert FAMILIES == ("bert", "roberta", "mpnet")
