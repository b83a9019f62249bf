"""The generation baseline (ePiC Table 11) trained, decoded and scored, with either kind of
generator: a seq2seq model (modeling.training.seq2seq) or a causal decoder
(modeling.training.causal), chosen by the checkpoint's config (`load_generator`).

No Django. Training: AdamW with teacher forcing (the model's own loss over the story's
tokens), bf16 autocast on CUDA, progress every step, cancel between steps. The epoch is
the one with the lowest loss on the dev slice (test is never looked at before the end);
the test narratives are then decoded (greedy, or beam search when num_beams > 1, with
no_repeat_ngram_size; keyword-biased when asked, and labelled so) and scored by BLEU,
ROUGE-L, keyword recall, the spread of the outputs and the health check against the
references (modeling.training.generation, modeling.training.health).
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from common.encoder import ModelNotFound, autocast, loading, resolve_model
from modeling.training.examples import Example
from modeling.training.generation import generation_metrics, generation_parts, keywords_found
from modeling.training.health import english_pipeline
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.loop import Clock, Reporter, Steps, environment, optimizer_schedule

SELECTION = "lowest dev loss"
# Added to the logits of a keyword's tokens not yet written, in keyword-biased decoding.
KEYWORD_BIAS = 4.0
DECODING_LABELS = {
    "none": "the model alone",
    "biased": "keyword-biased decoding (each input keyword's tokens raised by "
    f"{KEYWORD_BIAS:g} until written): lexically guided, not the model alone",
}


class Generator:
    """A model that writes a narrative from a proverb and keywords, and its tokenizer.

    Subclasses set `model`, `tokenizer`, `path`, `kind`, `new_parameters` and give
    `inputs` (a decoding batch), `loss` and the width of the prompt a decoded row starts
    with (`prompt_width`)."""

    model: torch.nn.Module
    tokenizer: object
    path: str
    kind: str
    new_parameters: set[str] = frozenset()  # parameters the checkpoint lacks

    def inputs(self, examples: list[Example], hp: Hyperparameters) -> dict:
        raise NotImplementedError

    def loss(self, examples: list[Example], hp: Hyperparameters) -> tuple[torch.Tensor, int]:
        """Mean token loss of the batch (teacher forcing) and how many target tokens it has."""
        raise NotImplementedError

    def prompt_width(self, inputs: dict) -> int:
        """Tokens of each decoded row that come before the written narrative."""
        return 0

    def loss_batch_size(self, hp: Hyperparameters) -> int:
        """Examples per batch of the dev loss."""
        return hp.eval_batch_size

    def parameter_groups(self) -> tuple[list, list]:
        """The trainable parameters the checkpoint held, and the new ones, which learn at
        the head's rate (modeling.training.loop)."""
        named = [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]
        held = [parameter for name, parameter in named if name not in self.new_parameters]
        new = [parameter for name, parameter in named if name in self.new_parameters]
        return held, new

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> Generator:
        self.model.to(device)
        return self

    @torch.inference_mode()
    def dev_loss(self, examples: list[Example], hp: Hyperparameters) -> float | None:
        """Token-weighted mean loss over `examples`."""
        self.model.eval()
        total = tokens = 0.0
        size = self.loss_batch_size(hp)
        for start in range(0, len(examples), size):
            loss, count = self.loss(examples[start : start + size], hp)
            total += loss.item() * count
            tokens += count
        return total / tokens if tokens else None

    def keyword_bias(self, examples: list[Example], hp: Hyperparameters, written_from: int):
        """Keyword-biased decoding (hp.keyword_decoding "biased"): a logits processor that
        raises, in each row, the tokens of its example's keywords not yet written (in the
        row's tokens from `written_from` on)."""
        from transformers import LogitsProcessor, LogitsProcessorList

        special = set(self.tokenizer.all_special_ids)
        wanted = [
            {
                token
                for keyword in example.keywords
                for form in (keyword, f" {keyword}")
                for token in self.tokenizer(form, add_special_tokens=False)["input_ids"]
                if token not in special
            }
            for example in examples
        ]
        beams = hp.num_beams

        class KeywordBias(LogitsProcessor):
            def __call__(self, input_ids, scores):
                for row in range(scores.shape[0]):
                    left = wanted[row // beams] - set(input_ids[row, written_from:].tolist())
                    if left:
                        scores[row, list(left)] += KEYWORD_BIAS
                return scores

        return LogitsProcessorList([KeywordBias()])

    @torch.inference_mode()
    def generate(self, examples: list[Example], hp: Hyperparameters, progress=None) -> list[str]:
        """Generated narratives in the order of `examples`."""
        self.model.eval()
        texts: list[str] = []
        size = hp.eval_batch_size
        steps = (len(examples) + size - 1) // size
        for step, start in enumerate(range(0, len(examples), size), start=1):
            batch = examples[start : start + size]
            inputs = self.inputs(batch, hp)
            width = self.prompt_width(inputs)
            guided = hp.keyword_decoding == "biased"
            with autocast(self.device):
                output = self.model.generate(
                    **inputs,
                    max_new_tokens=hp.max_new_tokens,
                    num_beams=hp.num_beams,
                    no_repeat_ngram_size=hp.no_repeat_ngram_size,
                    do_sample=False,
                    logits_processor=self.keyword_bias(batch, hp, width) if guided else None,
                )
            decoded = self.tokenizer.batch_decode(output[:, width:], skip_special_tokens=True)
            texts.extend(" ".join(text.split()) for text in decoded)
            if progress is not None:
                progress(step, steps)
        return texts

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)


def load_generator(model_name: str) -> Generator:
    """The checkpoint as a generator: a causal decoder (GPT-2, Llama, Gemma: a causal LM
    with no masked-LM form) as modeling.training.causal's, anything else as a seq2seq model
    (modeling.training.seq2seq: T5, BART, or an encoder warm-started); ModelNotFound."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    path = resolve_model(model_name)
    try:
        config = AutoConfig.from_pretrained(path, **loading())
    except (OSError, ValueError) as error:
        raise ModelNotFound(
            f"Cannot load the model {model_name!r} for generation: not a folder, not a "
            f"PyPI-shipped model, or not loadable from a hub here ({error})."
        ) from error
    kind = config.model_type
    if kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and kind not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        from modeling.training.causal import CausalDecoder

        return CausalDecoder(path)
    from modeling.training.seq2seq import Seq2Seq

    return Seq2Seq(model_name)


def run_generation(
    *,
    examples: list[Example],
    setting: str,
    model: str,
    hyperparameters: Hyperparameters,
    seed: int,
    reporter: Reporter,
    artifact_dir: Path | None,
    device: torch.device,
) -> dict:
    """Train on the narratives with keywords, choose the epoch on dev, decode and score test.

    The result has the keys of every baseline's (modeling.training.registry). Raises
    SnapshotError, ModelNotFound, Cancelled.
    """
    hp = hyperparameters
    clock = Clock()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    selected = generation_parts(examples, setting=setting, seed=seed, hp=hp)
    parts = selected.parts
    reporter.progress({"stage": "loading model", "elapsed": 0.0})
    generator = load_generator(model).to(device)
    loaded = clock.elapsed()
    rng = random.Random(seed)
    history: list[dict] = []
    best: dict | None = None
    evaluate_seconds = 0.0
    steps_per_epoch = (len(parts.train) + hp.batch_size - 1) // hp.batch_size
    steps = Steps(reporter, clock, hp.epochs, total=steps_per_epoch * hp.epochs)
    optimizer, steps.scheduler = optimizer_schedule(*generator.parameter_groups(), hp, steps.total)
    for epoch in range(1, hp.epochs + 1):
        order = list(parts.train)
        rng.shuffle(order)
        batches = [order[i : i + hp.batch_size] for i in range(0, len(order), hp.batch_size)]
        generator.model.train()
        epoch_started = time.monotonic()
        losses = []
        for step, batch in enumerate(batches, start=1):
            steps.check(epoch, step, len(batches))
            loss, _ = generator.loss(batch, hp)
            dev = {"dev_loss": history[-1]["dev"]["loss"] if history else None}
            losses.append(steps.optimize(loss, optimizer, epoch, step, len(batches), dev))
        seconds = steps.trained(epoch, epoch_started)
        evaluate_started = time.monotonic()
        dev_loss = generator.dev_loss(parts.dev, hp)
        evaluate_seconds += time.monotonic() - evaluate_started
        record = {
            "epoch": epoch,
            "loss": float(np.mean(losses)) if losses else None,
            "dev": {"loss": dev_loss},
            "seconds": seconds,
            "examples_per_second": len(order) / seconds if seconds else None,
        }
        history.append(record)
        if best is None or dev_loss < best["record"]["dev"]["loss"]:
            state = {k: v.detach().cpu().clone() for k, v in generator.model.state_dict().items()}
            best = {"record": record, "state": copy.deepcopy(state)}
    generator.model.load_state_dict(best["state"])
    generate_started = time.monotonic()

    def decoding(step: int, steps: int) -> None:
        reporter.progress(
            {"stage": "generating test narratives", "step": step, "steps": steps, "epoch": None}
        )

    test = parts.test
    generated = generator.generate(test, hp, progress=decoding)
    generate_seconds = time.monotonic() - generate_started
    reporter.progress({"stage": "scoring test narratives", "elapsed": clock.elapsed()})
    metrics = generation_metrics(
        generated,
        [e.narrative for e in test],
        [list(e.keywords) for e in test],
        nlp=english_pipeline(),
    )
    predictions = [
        {
            "narrative_id": example.narrative_id,
            "proverb_id": example.proverb_id,
            "proverb": example.proverb,
            "keywords": list(example.keywords),
            "reference": example.narrative,
            "generated": text,
            "keywords_found": sum(keywords_found(text, example.keywords)),
        }
        for example, text in zip(test, generated, strict=True)
    ]
    if artifact_dir is not None:
        generator.save(artifact_dir)
    return {
        "epochs": history,
        "selected_epoch": best["record"]["epoch"],
        "metrics": {
            "test": {**metrics, "decoding": DECODING_LABELS[hp.keyword_decoding]},
            "dev": best["record"]["dev"],
            "selection": SELECTION,
        },
        "predictions": predictions,
        "candidates": [],
        "counts": {
            "train": len(parts.train),
            "dev": len(parts.dev),
            "test": len(test),
            "without_keywords": selected.left_out,
        },
        "durations": {
            "load": loaded,
            "train": steps.train_seconds,
            "evaluate": evaluate_seconds,
            "generate": generate_seconds,
            "total": clock.elapsed(),
        },
        "environment": environment(device),
        "hyperparameters": asdict(hp),
        "model_path": generator.path,
        "pooling": None,
        "model_kind": generator.kind,
    }
