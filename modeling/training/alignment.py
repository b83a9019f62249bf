"""Alignment prediction (ePiC Table 8): the narrative span aligned with a proverb span.

No Django. Any encoder with a fast tokenizer reads "proverb span <sep> proverb" then the
narrative, cut at `max_length` from the longer segment first. A linear head gives each token
a start and an end logit, trained by cross-entropy on the gold tokens (a pair whose gold span
was cut off is skipped and counted). The prediction is the best valid span (start <= end,
narrative tokens, at most `span_max_tokens`); the epoch is chosen on dev span F1.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from common.encoder import Encoder, autocast
from modeling.training.examples import SnapshotError
from modeling.training.hyperparameters import Hyperparameters, RunRequest
from modeling.training.loop import finished, seeded, shuffled_batches, train_epochs
from modeling.training.metrics import span_metrics, span_scores
from modeling.training.spans import SpanItem, aligned_parts, span_items, token_span

HEAD_FILE = "span_head.pt"


class SpanModel(nn.Module):
    """An encoder's transformer with a start/end head over its tokens."""

    def __init__(self, encoder: Encoder):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(encoder.dimension, 2)

    def forward(self, inputs: dict) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.encoder.transformer(**inputs).last_hidden_state
        logits = self.head(hidden).float()
        return logits[..., 0], logits[..., 1]


@dataclass
class Encoded:
    inputs: dict  # the model's tensors, on its device
    offsets: list[list[tuple[int, int]]]
    narrative: torch.Tensor  # bool, batch x tokens: the narrative's own tokens
    gold: list[tuple[int, int] | None]  # gold start and end token, None past truncation


def first_segment(item: SpanItem, tokenizer) -> str:
    return f"{item.proverb_span} {tokenizer.sep_token or '|'} {item.proverb}"


def encode(tokenizer, items: list[SpanItem], max_length: int, device) -> Encoded:
    batch = tokenizer(
        [first_segment(item, tokenizer) for item in items],
        [item.narrative for item in items],
        # The longer segment is cut first: the narrative, unless the proverb side is longer
        # than what would be left of it ("only_second" fails on such a pair).
        truncation="longest_first",
        max_length=max_length,
        padding=True,
        return_offsets_mapping=True,
        return_tensors="pt",
    )
    offsets = [[tuple(pair) for pair in row] for row in batch.pop("offset_mapping").tolist()]
    sequence_ids = [batch.sequence_ids(row) for row in range(len(items))]
    narrative = torch.tensor(
        [
            [sequence == 1 and end > start for sequence, (start, end) in zip(ids, row, strict=True)]
            for ids, row in zip(sequence_ids, offsets, strict=True)
        ],
        dtype=torch.bool,
    )
    gold = [
        token_span(offsets[row], sequence_ids[row], item.narrative, item.start, item.end)
        for row, item in enumerate(items)
    ]
    inputs = {key: value.to(device) for key, value in batch.items()}
    return Encoded(inputs, offsets, narrative.to(device), gold)


def best_spans(
    start: torch.Tensor, end: torch.Tensor, narrative: torch.Tensor, max_tokens: int
) -> list[tuple[int, int]]:
    """Per row, the (start, end) tokens maximising start + end logits over narrative tokens
    with start <= end < start + max_tokens; (0, 0) for a row without narrative tokens."""
    start = start.float().masked_fill(~narrative, float("-inf"))
    end = end.float().masked_fill(~narrative, float("-inf"))
    length = start.shape[1]
    index = torch.arange(length, device=start.device)
    width = index[None, :] - index[:, None]
    valid = (width >= 0) & (width < max_tokens)
    scores = (start[:, :, None] + end[:, None, :]).masked_fill(~valid, float("-inf"))
    best = scores.flatten(1).argmax(dim=1).tolist()
    has_tokens = narrative.any(dim=1).tolist()
    return [
        (flat // length, flat % length) if any_token else (0, 0)
        for flat, any_token in zip(best, has_tokens, strict=True)
    ]


def trimmed(text: str, begin: int, finish: int) -> tuple[int, int]:
    """[begin, finish) without the white space at its ends: a byte-level BPE token
    (RoBERTa's) may carry the space before its word in its offsets."""
    while begin < finish and text[begin].isspace():
        begin += 1
    while finish > begin and text[finish - 1].isspace():
        finish -= 1
    return begin, finish


def _loss(model: SpanModel, encoded: Encoded, rows: list[int]) -> torch.Tensor:
    start, end = model(encoded.inputs)
    mask = encoded.narrative
    start = start.masked_fill(~mask, -1e4)[rows]
    end = end.masked_fill(~mask, -1e4)[rows]
    device = start.device
    gold_start = torch.tensor([encoded.gold[row][0] for row in rows], device=device)
    gold_end = torch.tensor([encoded.gold[row][1] for row in rows], device=device)
    cross_entropy = nn.functional.cross_entropy
    return (cross_entropy(start, gold_start) + cross_entropy(end, gold_end)) / 2


@torch.inference_mode()
def predict(model: SpanModel, items: list[SpanItem], hp: Hyperparameters) -> list[dict]:
    """Each item's predicted span in characters, its gold span, texts and span scores."""
    was_training = model.training
    model.eval()
    tokenizer = model.encoder.tokenizer
    device = model.encoder.device
    predictions = []
    with autocast(device):
        for first in range(0, len(items), hp.eval_batch_size):
            chunk = items[first : first + hp.eval_batch_size]
            encoded = encode(tokenizer, chunk, hp.max_length, device)
            start, end = model(encoded.inputs)
            spans = best_spans(start, end, encoded.narrative, hp.span_max_tokens)
            for row, (item, (i, j)) in enumerate(zip(chunk, spans, strict=True)):
                text = item.narrative
                begin, finish = trimmed(
                    text, encoded.offsets[row][i][0], encoded.offsets[row][j][1]
                )
                predictions.append(
                    {
                        "narrative_id": item.narrative_id,
                        "proverb_id": item.proverb_id,
                        "proverb_span": item.proverb_span,
                        "gold": [item.start, item.end],
                        "gold_text": text[item.start : item.end],
                        "predicted": [begin, finish],
                        "predicted_text": text[begin:finish],
                        "truncated": encoded.gold[row] is None,
                        **span_scores(text, (begin, finish), (item.start, item.end)),
                    }
                )
    model.train(was_training)
    return predictions


def trainable(tokenizer, items: list[SpanItem], hp: Hyperparameters) -> list[SpanItem]:
    """The items whose gold span lies within the kept narrative tokens."""
    kept = []
    for first in range(0, len(items), hp.eval_batch_size):
        chunk = items[first : first + hp.eval_batch_size]
        encoded = encode(tokenizer, chunk, hp.max_length, "cpu")
        kept.extend(item for item, gold in zip(chunk, encoded.gold, strict=True) if gold)
    return kept


def alignment_task(request: RunRequest) -> dict:
    """Train and score span prediction on the snapshot's aligned narratives (see the module)."""
    hp, examples, model = request.hyperparameters, request.examples, request.model
    clock = seeded(request.seed)
    parts = aligned_parts(examples, setting=request.setting, seed=request.seed)
    train, dev, test = (span_items(part) for part in (parts.train, parts.dev, parts.test))
    request.reporter.progress({"stage": "loading model", "elapsed": 0.0})
    encoder = Encoder(model, max_length=hp.max_length)
    if not encoder.tokenizer.is_fast:
        raise SnapshotError(
            f"The model {model!r} has no fast tokenizer: span prediction needs its offset "
            "mapping to place the spans."
        )
    span_model = SpanModel(encoder).to(request.device)
    loaded = clock.elapsed()
    kept = trainable(encoder.tokenizer, train, hp)
    if not kept:
        raise SnapshotError(
            f"None of the {len(train)} training span pairs lies within the first "
            f"{hp.max_length} tokens: raise max length."
        )
    result = _train(span_model, kept, dev, test, request, clock)
    result["counts"] = {
        "train": len(kept),
        "train_truncated_skipped": len(train) - len(kept),
        "dev": len(dev),
        "test": len(test),
        "test_truncated": sum(p["truncated"] for p in result["predictions"]),
        "narratives": {"train": len(parts.train), "dev": len(parts.dev), "test": len(parts.test)},
        "unaligned_narratives_left_out": sum(not span_items([e]) for e in examples),
    }
    if request.artifact_dir is not None:
        save_artifact(span_model, request.artifact_dir)
    result.update(model_path=encoder.path, pooling=None)
    return finished(result, clock, loaded, request)


def _train(model: SpanModel, train, dev, test, request: RunRequest, clock):
    hp = request.hyperparameters

    def loss(batch: list[SpanItem]) -> torch.Tensor:
        encoded = encode(model.encoder.tokenizer, batch, hp.max_length, model.encoder.device)
        with autocast(model.encoder.device):
            return _loss(model, encoded, list(range(len(batch))))

    def evaluate() -> tuple[dict, list[dict]]:
        dev_predictions, test_predictions = predict(model, dev, hp), predict(model, test, hp)
        figures = {"dev": span_metrics(dev_predictions), "test": span_metrics(test_predictions)}
        return figures, test_predictions

    trained = train_epochs(
        model=model,
        parameters=(model.encoder.parameters(), model.head.parameters()),
        batches=lambda rng: shuffled_batches(train, hp.batch_size, rng),
        loss=loss,
        evaluate=evaluate,
        dev_key=lambda record: (record["dev"]["f1"], record["dev"]["exact"]),
        shown="f1",
        request=request,
        clock=clock,
    )
    return {
        **trained.selection(("f1", "exact")),
        "candidates": [],
        "durations": {"train": trained.train_seconds, "evaluate": trained.evaluate_seconds},
    }


def save_artifact(model: SpanModel, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    model.encoder.transformer.save_pretrained(folder)
    model.encoder.tokenizer.save_pretrained(folder)
    torch.save(model.head.state_dict(), folder / HEAD_FILE)


def load_artifact(folder: Path, *, max_length: int = 256) -> SpanModel:
    """A saved span model: the folder's encoder and its start/end head."""
    model = SpanModel(Encoder(str(folder), max_length=max_length))
    model.head.load_state_dict(torch.load(Path(folder) / HEAD_FILE, weights_only=True))
    return model
