"""A causal decoder as the generator: a tiny GPT-2 built from a config (no download), with a
word-level tokenizer made in memory, trained on stories written by people (the figurative
set's, tests/fixtures/generation, MIT licence)."""

import dataclasses
import json
import re
from pathlib import Path

import pytest

from modeling.training.causal import KIND_CAUSAL, CausalDecoder
from modeling.training.examples import Example
from modeling.training.generation import generation_parts, prompt_text
from modeling.training.generation_run import load_generator
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.registry import run_task
from modeling.training.seq2seq import KIND_COPYING

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "generation"
TINY = Hyperparameters(
    epochs=3,
    batch_size=4,
    learning_rate=5e-3,
    warmup_ratio=0.1,
    source_max_length=64,
    target_max_length=96,
    max_new_tokens=40,
    eval_batch_size=16,
)


def story_examples() -> list[Example]:
    """The fixture's 80 stories: its 40 train stories (the dev slice is held out of them)
    and its 40 test stories."""
    rows = [json.loads(line) for line in (FIXTURES / "figurative_stories.jsonl").open()]
    figures = {row["proverb"]: number for number, row in enumerate(rows, start=1)}
    return [
        Example(
            narrative_id=row["narrative_id"],
            narrative=row["narrative"],
            proverb_id=figures[row["proverb"]],
            proverb=row["proverb"],
            seen=row["seen"],
            unseen="",
            keywords=tuple(row["keywords"]),
        )
        for row in rows
    ]


def tiny_gpt2_folder(folder: Path) -> str:
    """A randomly initialised two-layer GPT-2 whose tokenizer has one token per lowercased
    word or punctuation mark of the stories, their prompts and keywords (sorted ids)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    texts = [t for e in story_examples() for t in (e.narrative, prompt_text(e), *e.keywords)]
    words = sorted({w for text in texts for w in re.findall(r"\w+|[^\w\s]", text.lower())})
    vocabulary = {t: n for n, t in enumerate(["<pad>", "<unk>", "</s>", *words])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token="<unk>"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()  # words joined by spaces
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", unk_token="<unk>", eos_token="</s>"
    )
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=192,
        n_embd=64,
        n_layer=2,
        n_head=2,
        eos_token_id=2,
        tie_word_embeddings=False,  # its own output layer learns; the input embeddings stay
    )
    GPT2LMHeadModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory) -> str:
    return tiny_gpt2_folder(tmp_path_factory.mktemp("tiny-gpt2"))


def test_a_causal_decoder_is_loaded_as_one_and_an_encoder_as_a_warm_started_seq2seq(
    gpt2, tiny_model
):
    assert load_generator(gpt2).kind == KIND_CAUSAL
    assert load_generator(tiny_model).kind == KIND_COPYING


def test_the_loss_is_over_the_story_and_its_end_never_the_prompt(gpt2):
    decoder = CausalDecoder(gpt2)
    examples = story_examples()[:3]
    hp = dataclasses.replace(TINY, target_max_length=10_000)
    _, tokens = decoder.loss(examples, hp)
    stories = decoder.tokenizer([f" {e.narrative}" for e in examples], add_special_tokens=False)
    assert tokens == sum(len(ids) + 1 for ids in stories["input_ids"])


def test_decoding_keeps_only_the_new_tokens_after_the_prompt(gpt2):
    decoder = CausalDecoder(gpt2)
    hp = dataclasses.replace(TINY, max_new_tokens=3, no_repeat_ngram_size=0)
    texts = decoder.generate(story_examples()[:5], hp)
    assert len(texts) == 5
    assert all(len(text.split()) <= 3 and "keywords" not in text for text in texts)


def test_a_tiny_causal_decoder_learns_from_english_stories_and_is_not_taken_for_a_writer(
    gpt2, tmp_path
):
    examples = story_examples()
    parts = generation_parts(examples, setting="seen", seed=1).parts
    untrained = CausalDecoder(gpt2).dev_loss(parts.dev, TINY)
    artifact = tmp_path / "artifact"
    result = run_task(
        task="generation",
        examples=examples,
        setting="seen",
        model=gpt2,
        hyperparameters=TINY,
        seed=1,
        artifact_dir=artifact,
    )
    assert result["model_kind"] == KIND_CAUSAL
    assert result["counts"]["test"] == 40 == len(result["predictions"])
    chosen = min(record["dev"]["loss"] for record in result["epochs"])
    assert chosen < untrained - 1.0  # a nat under the untrained model's: it learnt words
    test = result["metrics"]["test"]
    # Three epochs of 30-odd stories teach a tiny decoder no English: the check says so.
    assert test["health"]["passed"] is False
    assert "vocabulary" in test["health"]["failed"] or "distinct_3" in test["health"]["failed"]
    # The artifact is a causal decoder that loads and writes again.
    reloaded = load_generator(str(artifact))
    assert reloaded.kind == KIND_CAUSAL
    assert len(reloaded.generate(examples[:2], dataclasses.replace(TINY, max_new_tokens=4))) == 2


def test_the_train_and_test_sizes_take_the_first_stories_of_each_part():
    examples = story_examples()
    hp = dataclasses.replace(TINY, train_size=20, test_size=5)
    parts = generation_parts(examples, setting="seen", seed=1, hp=hp).parts
    train = [e.narrative_id for e in examples if e.seen == "train"][:20]
    assert sorted(e.narrative_id for e in parts.train + parts.dev) == sorted(train)
    assert [e.narrative_id for e in parts.test] == [
        e.narrative_id for e in examples if e.seen == "test"
    ][:5]
    with pytest.raises(ValueError, match="train and test sizes"):
        Hyperparameters.from_dict({"train_size": -1})
