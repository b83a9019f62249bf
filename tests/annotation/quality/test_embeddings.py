"""Integrity embeddings come from the project's one encoder (common.encoder)."""

import numpy as np

from annotation.quality.embeddings import (
    embed,
    embedding_model_path,
    from_bytes,
    sentence_model,
    to_bytes,
)
from common.encoder import Encoder, shared_encoder


def test_narratives_are_embedded_by_the_shared_encoder_as_unit_vectors():
    path = embedding_model_path()
    assert sentence_model(path) is shared_encoder(path)
    texts = ["A rolling stone gathers no moss.", "She never stayed; she never settled."]
    vectors = embed(texts)
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    reference = Encoder(path).embed(texts).numpy()  # fp32, the checkpoint's pooling
    assert (vectors * reference).sum(axis=1).min() > 0.995
    assert np.allclose(from_bytes(to_bytes(vectors[0])), vectors[0], atol=1e-3)
    assert embed([]).shape == (0, 0)
