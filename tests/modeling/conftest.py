"""A tiny BERT with a fixed WordPiece vocabulary, saved to a folder: no download."""

import random

import pytest

from modeling.training.examples import Example

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


def bert_folder(folder, vocabulary, **sizes) -> str:
    """A randomly initialised BERT (two layers of 32 unless `sizes` say otherwise) with a
    BERT tokenizer over `vocabulary` (a tokenizers model), saved to `folder`."""
    import torch
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(vocabulary)
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
    shape = {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 128,
        **sizes,
    }
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=fast.vocab_size, **shape)).save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


def tiny_model_folder(folder) -> str:
    from tokenizers import models

    return bert_folder(folder, models.WordPiece(vocab=tiny_vocabulary(), unk_token="[UNK]"))


def _byte_level_bpe(folder) -> str:
    """A RoBERTa tokenizer (byte-level BPE, <s> </s> specials, no token type ids) whose
    merges make each of WORDS one token, with or without its leading space."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import RobertaTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = {token: number for number, token in enumerate(specials)}
    for symbol in pre_tokenizers.ByteLevel.alphabet():
        vocab.setdefault(symbol, len(vocab))
    merges = []
    # Longest words first, so that a shorter word inside a longer one ("the" in "gathers")
    # does not break it; the merges with the leading space (Ġ) last.
    for word in sorted(WORDS, key=lambda w: (-len(w), w)):
        for end in range(2, len(word) + 1):
            if word[:end] not in vocab:
                merges.append((word[: end - 1], word[end - 1]))
                vocab[word[:end]] = len(vocab)
    for word in WORDS:
        merges.append(("\u0120", word))
        vocab[f"\u0120{word}"] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", vocab["</s>"]), ("<s>", vocab["<s>"]), add_prefix_space=False, trim_offsets=True
    )
    fast = RobertaTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
    )
    fast.save_pretrained(folder)
    return fast


def _mpnet_wordpiece(folder):
    """An MPNet tokenizer: the tiny WordPiece vocabulary with MPNet's specials and pair
    template (<s> A </s></s> B </s>), no token type ids."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import MPNetTokenizerFast

    vocabulary = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4}
    for token in tiny_vocabulary():
        if not token.startswith("["):
            vocabulary[token] = len(vocabulary)
    tokenizer = Tokenizer(models.WordPiece(vocab=vocabulary, unk_token="<unk>"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    fast = MPNetTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
    )
    fast.model_input_names = ["input_ids", "attention_mask"]
    fast.save_pretrained(folder)
    return fast


FAMILIES = ("bert", "roberta", "mpnet")


def tiny_family_folder(folder, family: str) -> str:
    """A randomly initialised two-layer model of `family` (BERT, RoBERTa or MPNet) built
    from its config, with a tokenizer of that family, saved to `folder`."""
    import torch
    from transformers import MPNetConfig, MPNetModel, RobertaConfig, RobertaModel

    if family == "bert":
        return tiny_model_folder(folder)
    sizes = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2}
    sizes["intermediate_size"] = 64
    torch.manual_seed(0)
    if family == "roberta":
        fast = _byte_level_bpe(folder)
        config = RobertaConfig(
            vocab_size=len(fast), max_position_embeddings=130, pad_token_id=1, **sizes
        )
        RobertaModel(config).save_pretrained(folder)
    else:
        fast = _mpnet_wordpiece(folder)
        config = MPNetConfig(
            vocab_size=len(fast), max_position_embeddings=130, pad_token_id=1, **sizes
        )
        MPNetModel(config).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="session", params=FAMILIES)
def family_model(request, tmp_path_factory) -> str:
    """A tiny model of each encoder family in turn."""
    return tiny_family_folder(tmp_path_factory.mktemp(f"tiny-{request.param}"), request.param)


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


def story_model_folder(folder) -> str:
    """A tiny randomly initialised BERT whose tokenizer is built in memory from the shipped
    story set (one token per lowercased word or punctuation mark of its stories, proverbs
    and keywords, in sorted order, so every process gets the same ids)."""
    import re

    from tokenizers import models

    from modeling.training.story_set import story_set_examples

    texts = [
        text
        for example in story_set_examples()
        for text in (example.narrative, example.proverb, *example.keywords)
    ]
    words = sorted({word for text in texts for word in re.findall(r"\w+|[^\w\s]", text.lower())})
    vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    word_level = models.WordLevel(
        vocab={word: number for number, word in enumerate(vocabulary)}, unk_token="[UNK]"
    )
    return bert_folder(
        folder, word_level, hidden_size=64, intermediate_size=128, max_position_embeddings=160
    )


@pytest.fixture(scope="session")
def story_model(tmp_path_factory) -> str:
    return story_model_folder(tmp_path_factory.mktemp("tiny-story-bert"))
