"""A tiny BERT with a fixed WordPiece vocabulary, saved to a folder: no download."""

import random

import pytest

from modeling.examples import Example

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


# Characters a word may start or continue with: any other one becomes [UNK].
CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789"
PUNCTUATION = ".,;:!?'\"-()"


def tiny_vocabulary() -> dict[str, int]:
    """A fixed WordPiece vocabulary: the special tokens, WORDS whole, and single
    characters (word-initial and ## continuations) for every other word.

    Fixed rather than trained: the WordPiece trainer breaks frequency ties differently
    in each process, so the same text came to different token counts across runs.
    """
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += [*CHARACTERS, *PUNCTUATION, *(f"##{c}" for c in CHARACTERS)]
    tokens += [word for word in WORDS if word not in tokens]
    return {token: number for number, token in enumerate(tokens)}


def tiny_model_folder(folder) -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.WordPiece(vocab=tiny_vocabulary(), unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
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


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """One thread per test process: the tiny models gain nothing from more, and the
    machine's cores are shared."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture
def artifacts(settings, tmp_path):
    settings.PARABLE_MODELING_ARTIFACTS = str(tmp_path / "models")
    return tmp_path / "models"


TINY_HYPERPARAMETERS = {"epochs": 2, "batch_size": 4, "max_length": 32}


def aligned_examples(proverbs: int = 4, per_proverb: int = 5, aligned: int | None = None):
    """Narratives of tiny-model words, each holding its proverb's first word once: the
    alignment pairs that word of the proverb with it in the narrative."""
    rng = random.Random(0)
    rows = []
    for p in range(1, proverbs + 1):
        proverb = " ".join(WORDS[3 * p : 3 * p + 3])
        key = WORDS[3 * p]
        for k in range(per_proverb):
            words = [rng.choice(WORDS[:3]) for _ in range(8)]
            at = rng.randrange(8)
            words[at] = key
            start = len(" ".join(words[:at])) + (1 if at else 0)
            number = len(rows)
            alignments = ((key, start, start + len(key)),)
            rows.append(
                Example(
                    narrative_id=p * 100 + k,
                    narrative=" ".join(words),
                    proverb_id=p,
                    proverb=proverb,
                    seen="train" if k < 3 else "test",
                    unseen="train" if p <= 3 else "test",
                    alignments=alignments if aligned is None or number < aligned else (),
                )
            )
    return rows
