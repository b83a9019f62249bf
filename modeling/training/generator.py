"""What the generation baseline's generators share (a seq2seq model, modeling.training.seq2seq,
and a causal decoder, modeling.training.causal): teacher-forced loss, the dev loss that
chooses the epoch, and decoding (greedy, or beam search when num_beams > 1, with
no_repeat_ngram_size; keyword-biased when asked, and labelled so). No Django.
"""

from __future__ import annotations

from pathlib import Path

import torch

from common.encoder import autocast
from modeling.training.examples import Example
from modeling.training.hyperparameters import Hyperparameters

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
    Subclasses set `model`, `tokenizer`, `path`, `kind`, `new_parameters` and give `inputs`
    (a decoding batch), `loss` and `prompt_width` (where a decoded row's new tokens start)."""

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
