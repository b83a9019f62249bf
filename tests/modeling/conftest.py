"""A tiny BERT with a WordPiece tokenizer trained in memory, saved to a folder: no download."""

import pytest

WORDS = (
    "the",
    "a",
    "cat",
    "dog",
    "bird",
    "fish",
    "tree",
    "river",
    "stone",
    "house",
    "road",
    "early",
    "late",
    "slow",
    "steady",
    "wins",
    "race",
    "feather",
    "flock",
    "together",
    "rolling",
    "gathers",
    "moss",
    "worm",
    "catches",
    "haste",
    "waste",
    "look",
    "leap",
    "before",
    "storm",
    "calm",
    "after",
    "rain",
    "sun",
)


def tiny_model_folder(folder) -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials)
    tokenizer.train_from_iterator([" ".join(WORDS)] * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    config = BertConfig(
        vocab_size=fast.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    import torch

    torch.manual_seed(0)
    BertModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture
def artifacts(settings, tmp_path):
    settings.PARABLE_MODELING_ARTIFACTS = str(tmp_path / "models")
    return tmp_path / "models"


TINY_HYPERPARAMETERS = {"epochs": 2, "batch_size": 4, "max_length": 32}
