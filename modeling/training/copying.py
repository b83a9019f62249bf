"""A warm-started encoder-decoder that can copy its input's tokens (a pointer-generator).

No Django. Why: warm-started from an encoder, the decoder ignored its input (its new
cross-attention learnt nothing before its self-attention learnt the stories' language model;
docs/baselines.md gives the measurements). So the output mixes (See et al., 2017) the
decoder's vocabulary distribution and a copy distribution over the input's tokens,
p = g * p_vocab + (1 - g) * p_copy, p_copy an attention of the decoder's last hidden state
over the encoder's states (special tokens and padding left out), g a gate learnt per position.
Decoding, it returns the log of the mixture as its logits, so transformers' generate decodes it
as it is; given labels it returns the loss alone, from each label's two probabilities (no batch
x length x vocabulary tensor of copies). `copy_from_source` in its config says how to load it.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from transformers import EncoderDecoderModel
from transformers.modeling_outputs import Seq2SeqLMOutput
from transformers.models.encoder_decoder.modeling_encoder_decoder import shift_tokens_right

SOURCE_IDS = "decoder_source_ids"  # generate's keyword for the copyable input tokens


class CopyingEncoderDecoder(EncoderDecoderModel):
    """EncoderDecoderModel whose output distribution can copy input tokens (see module)."""

    def __init__(self, config=None, encoder=None, decoder=None):
        super().__init__(config=config, encoder=encoder, decoder=decoder)
        size = self.decoder.config.hidden_size
        self.copy_query = nn.Linear(size, size)
        self.copy_key = nn.Linear(self.encoder.config.hidden_size, size)
        self.copy_gate = nn.Linear(size, 1)
        self.config.copy_from_source = True

    def forward(self, *args, labels=None, decoder_source_ids=None, **kwargs):
        source = decoder_source_ids
        if labels is not None and kwargs.get("decoder_input_ids") is None:
            # What the parent does with labels, whose loss is computed here instead.
            start, pad = self.config.decoder_start_token_id, self.config.pad_token_id
            kwargs["decoder_input_ids"] = shift_tokens_right(labels, pad, start)
            kwargs["decoder_attention_mask"] = (kwargs["decoder_input_ids"] != pad).long()
        output = super().forward(*args, decoder_output_hidden_states=True, **kwargs)
        hidden = output.decoder_hidden_states[-1]
        encoded = output.encoder_last_hidden_state
        scores = self.copy_query(hidden) @ self.copy_key(encoded).transpose(1, 2)
        copyable = (source >= 0)[:, None, :]
        scores = (scores.float() / math.sqrt(hidden.shape[-1])).masked_fill(~copyable, -1e9)
        attention = torch.softmax(scores, dim=-1) * copyable
        logits = output.logits.float()
        gate = torch.sigmoid(self.copy_gate(hidden).float())
        if labels is not None:  # the loss alone: p of each label, never a vocabulary of copies
            target = labels.clamp(min=0)
            vocabulary = torch.log_softmax(logits, dim=-1).gather(-1, target[..., None]).exp()
            copied = (attention * (source[:, None, :] == target[..., None])).sum(-1)
            mixed = gate[..., 0] * vocabulary[..., 0] + (1 - gate[..., 0]) * copied
            known = labels != -100
            loss = -torch.log(mixed.clamp_min(1e-12))[known].mean()
            return Seq2SeqLMOutput(loss=loss, past_key_values=output.past_key_values)
        index = source.clamp(min=0)[:, None, :].expand(-1, logits.shape[1], -1)
        copied = torch.zeros_like(logits).scatter_add_(2, index, attention)
        mixed = gate * torch.softmax(logits, dim=-1) + (1 - gate) * copied
        return Seq2SeqLMOutput(
            logits=torch.log(mixed.clamp_min(1e-12)),
            past_key_values=output.past_key_values,
            encoder_last_hidden_state=encoded,
        )


def copyable_ids(input_ids: torch.Tensor, attention_mask: torch.Tensor, special: set[int]):
    """The input ids a CopyingEncoderDecoder may copy: -1 for padding and special tokens."""
    blocked = ~attention_mask.bool()
    for token in special:
        blocked |= input_ids == token
    return input_ids.masked_fill(blocked, -1)
