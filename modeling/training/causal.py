"""A causal decoder as the generator: a pretrained language model (GPT-2, Llama, Gemma;
recommended: Gemma 3 270M, `manage.py install_checkpoint gemma-3-270m`) fine-tuned to
continue the prompt (generation.prompt_text) with the narrative, the loss over its tokens.

No Django. The token embeddings stay frozen (in Gemma also the output layer, 170M of 268M
parameters: about 2 GB of gradient and optimizer state in fp32). Decoding keeps the new tokens.
"""

from __future__ import annotations

import torch

from common.encoder import LOAD_DTYPE, ModelNotFound, autocast, loading
from modeling.training.examples import Example
from modeling.training.generation import prompt_text
from modeling.training.generator import Generator
from modeling.training.hyperparameters import Hyperparameters

KIND_CAUSAL = "causal decoder prompted with the proverb and keywords"


class CausalDecoder(Generator):
    kind = KIND_CAUSAL

    def __init__(self, path: str):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = path
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, **loading())
            self.model = AutoModelForCausalLM.from_pretrained(path, **loading(dtype=LOAD_DTYPE))
        except (OSError, ValueError) as error:
            raise ModelNotFound(f"Cannot load the causal decoder {path!r} ({error}).") from error
        self.eos = self.tokenizer.eos_token_id
        if self.eos is None:
            raise ModelNotFound(f"The tokenizer of {path!r} has no end token to stop at.")
        self.pad = self.tokenizer.pad_token_id
        if self.pad is None:
            self.pad = self.eos
        for target in (self.model.config, self.model.generation_config):
            target.pad_token_id, target.eos_token_id = self.pad, self.eos
        self.model.get_input_embeddings().requires_grad_(False)

    def _ids(self, texts: list[str], limit: int, *, special: bool) -> list[list[int]]:
        ids = self.tokenizer(texts, add_special_tokens=special)["input_ids"]
        return [row[:limit] for row in ids]

    def _padded(self, rows: list[list[int]], *, left: bool, fill: int) -> torch.Tensor:
        width = max(map(len, rows))
        return torch.tensor(
            [
                ([fill] * (width - len(r)) + r) if left else (r + [fill] * (width - len(r)))
                for r in rows
            ],
            device=self.device,
        )

    def inputs(self, examples: list[Example], hp: Hyperparameters) -> dict:
        """The prompts, left-padded for decoding."""
        prompts = self._ids([prompt_text(e) for e in examples], hp.source_max_length, special=True)
        return {
            "input_ids": self._padded(prompts, left=True, fill=self.pad),
            "attention_mask": self._padded([[1] * len(p) for p in prompts], left=True, fill=0),
        }

    def prompt_width(self, inputs: dict) -> int:
        return inputs["input_ids"].shape[1]

    def loss_batch_size(self, hp: Hyperparameters) -> int:
        # The training batch's size: a batch's logits over a large vocabulary take memory
        # (Gemma's 262k tokens: 1 GB per 1,000 tokens, twice in the loss), and the dev
        # loss of 16 stories at once was killed for memory where training ran.
        return hp.batch_size

    def loss(self, examples: list[Example], hp: Hyperparameters) -> tuple[torch.Tensor, int]:
        prompts = self._ids([prompt_text(e) for e in examples], hp.source_max_length, special=True)
        stories = self._ids(
            [f" {e.narrative}" for e in examples], hp.target_max_length - 1, special=False
        )
        rows = [p + s + [self.eos] for p, s in zip(prompts, stories, strict=True)]
        labels = [[-100] * len(p) + s + [self.eos] for p, s in zip(prompts, stories, strict=True)]
        labels = self._padded(labels, left=False, fill=-100)
        with autocast(self.device):
            output = self.model(
                input_ids=self._padded(rows, left=False, fill=self.pad),
                attention_mask=self._padded([[1] * len(r) for r in rows], left=False, fill=0),
                labels=labels,
            )
        return output.loss.float(), int((labels != -100).sum())
