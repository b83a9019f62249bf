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
    "generation": "Narrative generation from a proverb and keywords (Table 11)",
}
TRAINABLE = ("biencoder", "classifier", "alignment", "generation")
# Tasks whose predictions rank proverbs (distractors, the pipeline's proverb run).
PROVERB_TASKS = ("retrieval", "biencoder", "classifier")
# The hyperparameters only the generation task reads.
GENERATION_FIELDS = ("target_max_length", "max_new_tokens", "num_beams", "no_repeat_ngram_size")


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
    # Generation: input and target lengths in tokens, and decoding (num_beams 1: greedy).
    source_max_length: int = 64
    target_max_length: int = 128
    max_new_tokens: int = 128
    num_beams: int = 1
    no_repeat_ngram_size: int = 3

    @classmethod
    def from_dict(cls, values: dict) -> Hyperparameters:
        known = {key: value for key, value in values.items() if key in cls.__dataclass_fields__}
        hyperparameters = cls(**known)
        if hyperparameters.epochs < 1 or hyperparameters.batch_size < 2:
            raise ValueError("epochs must be at least 1 and batch size at least 2")
        if hyperparameters.span_max_tokens < 1:
            raise ValueError("the longest span must be at least 1 token")
        if min(hyperparameters.max_new_tokens, hyperparameters.num_beams) < 1:
            raise ValueError("max new tokens and beams must be at least 1")
        if hyperparameters.no_repeat_ngram_size < 0:
            raise ValueError("no-repeat n-gram size is 0 (off) or more")
        return hyperparameters
