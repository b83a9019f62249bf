"""What a run is asked to do, with no heavy imports: the baseline tasks, which of them
train, the hyperparameters, and the exception that stops a run between steps."""

from __future__ import annotations

from dataclasses import dataclass

TASKS = {
    "retrieval": "Proverb retrieval, off-the-shelf embeddings (Table 4)",
    "biencoder": "Proverb prediction, bi-encoder with in-batch negatives (Table 7)",
    "classifier": "Proverb prediction, classifier started from proverb embeddings (Table 7, seen)",
    "alignment": "Alignment prediction, narrative span for a proverb span (Table 8)",
    "pipeline": "Proverb then alignment prediction, from two finished runs (Table 9)",
}
TRAINABLE = ("biencoder", "classifier", "alignment")
# Tasks whose predictions rank proverbs (distractors, the pipeline's proverb run).
PROVERB_TASKS = ("retrieval", "biencoder", "classifier")


class Cancelled(Exception):
    """The run was asked to stop; raised between steps."""


@dataclass
class Hyperparameters:
    epochs: int = 5
    batch_size: int = 16
    learning_rate: float = 2e-5
    max_length: int = 256
    proverb_max_length: int = 64
    scale: float = 20.0
    eval_batch_size: int = 64
    span_max_tokens: int = 64  # alignment: longest narrative span predicted, in tokens

    @classmethod
    def from_dict(cls, values: dict) -> Hyperparameters:
        known = {key: value for key, value in values.items() if key in cls.__dataclass_fields__}
        hyperparameters = cls(**known)
        if hyperparameters.epochs < 1 or hyperparameters.batch_size < 2:
            raise ValueError("epochs must be at least 1 and batch size at least 2")
        if hyperparameters.span_max_tokens < 1:
            raise ValueError("the longest span must be at least 1 token")
        return hyperparameters
