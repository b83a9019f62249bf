"""What a run is asked to do, with no heavy imports: the hyperparameters, the request every
trainer takes, its callbacks, and the exception that stops a run between steps (the
baselines are declared in modeling.training.registry)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from modeling.training.examples import Example

# The hyperparameters only the generation task reads.
GENERATION_FIELDS = (
    "target_max_length",
    "max_new_tokens",
    "num_beams",
    "no_repeat_ngram_size",
    "train_size",
    "test_size",
)
# The hyperparameters only the alignment task reads.
ALIGNMENT_FIELDS = ("span_max_tokens",)
# Decoding: "none" (the model alone, the default figure), or "biased": each input keyword's
# tokens raised while decoding (lexically guided decoding, labelled as such).
KEYWORD_DECODING = ("none", "biased")
SCHEDULES = ("linear", "constant")  # after the warm-up: linear decay to 0, or constant
CHOICES = {"schedule": SCHEDULES, "keyword_decoding": KEYWORD_DECODING}
_SUBSET = "Generation only: the first N train (or test) narratives; 0: all."
# The hyperparameters a researcher sets for a run, in the order the admin's launch form and
# run_baseline offer them, with what each is for.
OFFERED = {
    "epochs": "",
    "batch_size": "",
    "learning_rate": "The checkpoint's own parameters.",
    "head_learning_rate": "New parameters: the classifier's and span model's head, a "
    "warm-started decoder's cross-attention.",
    "warmup_ratio": "Share of the steps with a rising learning rate.",
    "schedule": "After the warm-up: linear decay to 0, or constant.",
    "scale": "Proverb tasks: the scale of the cosine logits (1 / temperature).",
    "max_length": "",
    "span_max_tokens": "Alignment: the longest narrative span predicted, in tokens.",
    "target_max_length": "Generation only.",
    "max_new_tokens": "Generation only.",
    "num_beams": "Generation only; 1: greedy decoding.",
    "no_repeat_ngram_size": "Generation only.",
    "train_size": _SUBSET,
    "test_size": _SUBSET,
    "keyword_decoding": "Generation only: 'biased' raises each input keyword's tokens while "
    "decoding (lexically guided decoding, labelled as such; never the default figure).",
}


class Cancelled(Exception):
    """The run was asked to stop; raised between steps."""


@dataclass
class Reporter:
    """Callbacks of a run: progress(fields) as it goes, should_stop() polled between steps."""

    progress: Callable[[dict], None] = lambda fields: None
    should_stop: Callable[[], bool] = lambda: False


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
    keyword_decoding: str = "none"
    # Generation on a subset: the first train_size train and test_size test narratives of
    # the split (0: all); the dev slice is held out of those train narratives.
    train_size: int = 0
    test_size: int = 0

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
        if hyperparameters.keyword_decoding not in KEYWORD_DECODING:
            raise ValueError(f"keyword decoding is one of {', '.join(KEYWORD_DECODING)}")
        if min(hyperparameters.train_size, hyperparameters.test_size) < 0:
            raise ValueError("train and test sizes are 0 (all) or more")
        if hyperparameters.no_repeat_ngram_size < 0:
            raise ValueError("no-repeat n-gram size is 0 (off) or more")
        return hyperparameters


@dataclass(frozen=True)
class RunRequest:
    """What one baseline run is asked to do (registry.run_task builds it, every trainer takes
    it): its data, model, hyperparameters and seed, its callbacks, the folder that keeps the
    trained model (None: none kept), the torch device, and a study's curated proverbs that a
    proverb run also ranks (its metrics' `round_task`)."""

    examples: list[Example]
    setting: str
    model: str
    hyperparameters: Hyperparameters
    seed: int
    reporter: Reporter
    artifact_dir: Path | None
    device: object
    round_proverbs: Sequence[tuple[int, str]] = ()
