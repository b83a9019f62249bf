"""A proverb run's ranking of a study's proverbs for stories, as rounds' checks ask it
(ProverbRanker), and its figures on a round's own task as it finishes (round_task). No
Django. A classifier's head rows (its artifact's HEAD_FILE, their ids in LABELS_FILE) stand
for the proverbs it was trained on; every other proverb is its text embedded."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from common.encoder import Encoder, shared_encoder
from modeling.training.examples import Example

HEAD_FILE = "classifier_head.pt"
LABELS_FILE = "classifier_labels.json"  # the proverb id of each head row


def proverb_vectors(encoder: Encoder, proverbs, hp, head=None, labels=()) -> torch.Tensor:
    """The vectors stories are scored against, one per (id, text) of `proverbs`: a
    classifier's trained head row for a proverb of its `labels` (the head's rows' ids, the
    head on the CPU), the encoder's embedding of the text for the others (and for every
    proverb of a retrieval or bi-encoder run)."""
    row_of = {proverb_id: row for row, proverb_id in enumerate(labels)}
    texts = [text for proverb_id, text in proverbs if proverb_id not in row_of]
    embedded = iter(encoder.embed(texts, max_length=hp.proverb_max_length) if texts else [])
    return torch.stack(
        [
            nn.functional.normalize(head[row_of[proverb_id]].float(), dim=-1)
            if proverb_id in row_of
            else next(embedded)
            for proverb_id, _ in proverbs
        ]
    )


def round_task(encoder, stories: list[Example], proverbs, hp, head=None, labels=()) -> dict:
    """The model on a round's own task, as a check asks it: each held-out story's proverb
    ranked among `proverbs` (the study's curated proverbs, and the story's own should they
    not hold it). Its share ranked first and mean rank, beside chance's (1/n and (n+1)/2
    over n candidates); None without a story."""
    ranked = sorted({**{e.proverb_id: e.proverb for e in stories}, **dict(proverbs)}.items())
    column = {proverb_id: i for i, (proverb_id, _) in enumerate(ranked)}
    offered = np.array([column[proverb_id] for proverb_id, _ in proverbs])
    ranks, sizes = [], []
    if stories:
        vectors = proverb_vectors(encoder, ranked, hp, head, labels)
        texts = [e.narrative for e in stories]
        scores = (encoder.embed(texts, max_length=hp.max_length) @ vectors.T).numpy()
        for row, example in zip(scores, stories, strict=True):
            others = offered[offered != column[example.proverb_id]]
            ranks.append(1 + int((row[others] > row[column[example.proverb_id]]).sum()))
            sizes.append(len(others) + 1)
    figures = {
        "top1": [rank == 1 for rank in ranks],
        "mean_rank": ranks,
        "chance_top1": [1 / n for n in sizes],
        "chance_mean_rank": [(n + 1) / 2 for n in sizes],
    }
    return {
        "stories": len(stories),
        "proverbs": len(proverbs),
        **{name: float(np.mean(values)) if values else None for name, values in figures.items()},
    }


class ProverbRanker:
    """A finished proverb run loaded once (the process's shared encoder of its checkpoint,
    bf16 where the CPU computes bf16), with the proverbs' vectors computed once, here:
    `rank_texts` costs one encoder pass per story."""

    def __init__(self, *, model: str, proverbs: Sequence[tuple[int, str]], hyperparameters):
        self.hp = hyperparameters
        self.encoder = shared_encoder(model)
        self.ids = [proverb_id for proverb_id, _ in proverbs]
        folder = Path(self.encoder.path)
        head, labels = None, []
        if (folder / HEAD_FILE).is_file() and (folder / LABELS_FILE).is_file():
            head = torch.load(folder / HEAD_FILE, weights_only=True)
            labels = json.loads((folder / LABELS_FILE).read_text())
        self.vectors = proverb_vectors(self.encoder, proverbs, hyperparameters, head, labels)

    def rank_texts(self, texts: list[str]) -> list[list[tuple[int, float]]]:
        """For each text, [(proverb id, cosine)] against every proverb, best first."""
        if not texts:
            return []
        scores = (
            self.encoder.embed(texts, max_length=self.hp.max_length) @ self.vectors.T
        ).tolist()
        return [
            sorted(zip(self.ids, row, strict=True), key=lambda pair: -pair[1]) for row in scores
        ]
