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
# The hyperparameters only the alignment task reads.
ALIGNMENT_FIELDS = ("span_max_tokens",)


def fields_of(task: str, names) -> list[str]:
    """The hyperparameter names among `names` that `task` reads: another task's own
    settings (generation's decoding, alignment's span length) left out."""
    others = {
        "generation": GENERATION_FIELDS,
        "alignment": ALIGNMENT_FIELDS,
    }
    unread = {name for owner, own in others.items() if owner != task for name in own}
    return [name for name in names if name not in unread]


SCHEDULES = ("linear", "constant")  # after the warm-up: linear decay to 0, or constant
# The training hyperparameters every fine-tuned task reads beside the learning rate.
TRAINING_FIELDS = ("head_learning_rate", "warmup_ratio", "schedule", "scale")


class Cancelled(Exception):
    """The run was asked to stop; raised between steps."""


@dataclass
class Hyperparameters:
    epochs: int = 5
    batch_size: int = 16
    learning_rate: float = 2e-5  # the parameters the checkpoint holds
    # Parameters the checkpoint does not hold: a classifier's or span model's head, a
    # warm-started decoder's cross-attention (modeling.training.loop).
    head_learning_rate: float = 1e-3
    warmup_ratio: float = 0.1  # share of the steps with a linearly rising learning rate
    schedule: str = "linear"
    max_length: int = 256
    proverb_max_length: int = 64
    scale: float = 20.0  # the logits' scale over cosine similarities (temperature 1/scale)
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
        if min(hyperparameters.learning_rate, hyperparameters.head_learning_rate) <= 0:
            raise ValueError("learning rates must be above 0")
        if not 0 <= hyperparameters.warmup_ratio < 1:
            raise ValueError("the warm-up share is at least 0 and below 1")
        if hyperparameters.schedule not in SCHEDULES:
            raise ValueError(f"the schedule is one of {', '.join(SCHEDULES)}")
        if hyperparameters.scale <= 0:
            raise ValueError("the scale must be above 0")
        if hyperparameters.span_max_tokens < 1:
            raise ValueError("the longest span must be at least 1 token")
        if min(hyperparameters.max_new_tokens, hyperparameters.num_beams) < 1:
            raise ValueError("max new tokens and beams must be at least 1")
        if hyperparameters.no_repeat_ngram_size < 0:
            raise ValueError("no-repeat n-gram size is 0 (off) or more")
        return hyperparameters
