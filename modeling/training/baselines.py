"""The proverb baselines (ePiC Tables 4 and 7): retrieval, bi-encoder and classifier.

No Django. `proverb_run` (called by modeling.training.registry) returns everything a run
stores. Retrieval scores embeddings' cosine untrained; the bi-encoder trains with in-batch
negatives over distinct proverbs; the classifier is a head started from the proverbs'
embeddings. Every run also scores similar motifs (Table 13) and, given a study's proverbs, a
round's own task. The epoch is chosen on dev; the best test epoch is only shown as such.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from common.encoder import Encoder, autocast
from modeling.training.examples import Example, Parts, proverbs_of, split_parts
from modeling.training.hyperparameters import Hyperparameters, RunRequest
from modeling.training.loop import finished, seeded, shuffled_batches, train_epochs
from modeling.training.metrics import MOTIF_DISTANCES, motif_accuracy, ranking_metrics, softmax
from modeling.training.ranker import HEAD_FILE, LABELS_FILE, proverb_vectors, round_task

TOP_K = 5


class InBatchNegatives:
    """The bi-encoder's objective: batches of distinct proverbs, each narrative against
    the batch's proverbs."""

    head = False

    def batches(self, train: list[Example], hp: Hyperparameters, rng) -> list[list[Example]]:
        return distinct_proverb_batches(train, hp.batch_size, rng)

    def logits(self, encoder: Encoder, batch, narratives, head, label_index, hp):
        proverbs = encoder([e.proverb for e in batch], hp.proverb_max_length)
        targets = torch.arange(len(batch), device=encoder.device)
        return hp.scale * narratives @ nn.functional.normalize(proverbs, dim=-1).T, targets


class ProverbHead(InBatchNegatives):
    """The classifier's objective: a head over the train proverbs, its rows started from
    the proverbs' own embeddings; shuffled batches."""

    head = True

    def batches(self, train: list[Example], hp: Hyperparameters, rng) -> list[list[Example]]:
        return shuffled_batches(train, hp.batch_size, rng)

    def logits(self, encoder: Encoder, batch, narratives, head, label_index, hp):
        indices = [label_index[e.proverb_id] for e in batch]
        targets = torch.tensor(indices, device=encoder.device)
        return hp.scale * narratives @ nn.functional.normalize(head, dim=-1).T, targets


OBJECTIVES = {"biencoder": InBatchNegatives(), "classifier": ProverbHead()}


def proverb_run(objective: str, request: RunRequest) -> dict:
    """Score (retrieval) or train and score (an OBJECTIVES key) a proverb baseline; the
    result is JSON-ready, its metrics with `round_task` where the request has a study's
    proverbs (see round_task). Raises SnapshotError, Cancelled, ModelNotFound."""
    hp, reporter, examples = request.hyperparameters, request.reporter, request.examples
    clock = seeded(request.seed)
    training = OBJECTIVES.get(objective)
    parts = split_parts(examples, setting=request.setting, seed=request.seed, dev=bool(training))
    reporter.progress({"stage": "loading model", "elapsed": 0.0})
    encoder = Encoder(request.model, max_length=hp.max_length).to(request.device)
    loaded = clock.elapsed()
    if training is None:
        result = _retrieval(encoder, examples, parts, request.setting, hp, reporter)
    else:
        result = _fine_tune(training, encoder, parts, request, clock)
    if len(parts.test) >= 2:
        reporter.progress({"stage": "similar motifs"})
        # Retrieval's narratives are embedded already; a trained encoder embeds them anew.
        embeddings = result.get("embeddings") or Embeddings(encoder, hp)
        result["metrics"]["motifs"] = _motifs(embeddings, parts.test, result["predictions"])
    result.pop("embeddings", None)
    head = result.pop("head", None)
    if request.round_proverbs:
        reporter.progress({"stage": "a round's task"})
        labels = [proverb_id for proverb_id, _ in parts.train_proverbs] if head is not None else []
        result["metrics"]["round_task"] = {
            **round_task(encoder, parts.test, request.round_proverbs, hp, head, labels),
            "trained_stories": len(parts.train) if training else 0,
            "trained_proverbs": len(proverbs_of(parts.train)) if training else 0,
        }
    if request.artifact_dir is not None and training is not None:
        _save_artifact(encoder, head, parts.train_proverbs, request.artifact_dir)
    result.update(model_path=encoder.path, pooling=encoder.pooling)
    return finished(result, clock, loaded, request)


class Embeddings:
    """Each distinct text embedded once in a run that does not train: narratives and
    proverbs apart (a proverb has its own max length), rows in the order asked."""

    def __init__(self, encoder: Encoder, hp: Hyperparameters):
        self.encoder, self.hp = encoder, hp
        self.vectors: dict[tuple[bool, str], torch.Tensor] = {}

    def __call__(self, texts: list[str], *, proverbs: bool = False) -> torch.Tensor:
        missing = list(dict.fromkeys(t for t in texts if (proverbs, t) not in self.vectors))
        if missing:
            length = self.hp.proverb_max_length if proverbs else None
            vectors = self.encoder.embed(
                missing, batch_size=self.hp.eval_batch_size, max_length=length
            )
            self.vectors.update(zip(((proverbs, text) for text in missing), vectors, strict=True))
        if not texts:
            return torch.empty(0, self.encoder.dimension)
        return torch.stack([self.vectors[(proverbs, text)] for text in texts])


def _evaluate(
    scores: np.ndarray, examples: list[Example], proverbs: list[tuple[int, str]], scale: float
) -> tuple[dict, list[dict]]:
    column = {proverb_id: i for i, (proverb_id, _) in enumerate(proverbs)}
    gold = [column[example.proverb_id] for example in examples]
    metrics = ranking_metrics(scores, gold)
    probabilities = softmax(scale * scores) if len(examples) else scores
    predictions = []
    for row, example in enumerate(examples):
        order = np.argsort(-scores[row], kind="stable")
        predictions.append(
            {
                "narrative_id": example.narrative_id,
                "proverb_id": example.proverb_id,
                "rank": int(1 + (scores[row] > scores[row, gold[row]]).sum()),
                "predicted": [proverbs[i][0] for i in order[:TOP_K]],
                "probabilities": [round(float(p), 6) for p in probabilities[row]],
            }
        )
    return metrics, predictions


def _retrieval(encoder, examples, parts: Parts, setting: str, hp, reporter) -> dict:
    started = time.monotonic()
    everything = proverbs_of(examples)
    unseen_test = [e for e in examples if e.unseen == "test"]
    scopes = {
        "all": (list(examples), everything),
        "seen_test": ([e for e in examples if e.seen == "test"], everything),
        "unseen_test": (unseen_test, proverbs_of(unseen_test)),
    }
    metrics, predictions = {}, {}
    embeddings = Embeddings(encoder, hp)
    for done, (scope, (narratives, proverbs)) in enumerate(scopes.items()):
        reporter.progress({"stage": f"scoring {scope}", "step": done, "steps": len(scopes)})
        if not narratives:
            metrics[scope] = ranking_metrics(np.zeros((0, 0)), [])
            continue
        scores = (
            embeddings([e.narrative for e in narratives])
            @ embeddings([p[1] for p in proverbs], proverbs=True).T
        )
        metrics[scope], predictions[scope] = _evaluate(
            scores.numpy(), narratives, proverbs, hp.scale
        )
    test_scope = f"{setting}_test"  # its narratives are parts.test, in the same order
    return {
        "epochs": [],
        "selected_epoch": None,
        "metrics": {"test": metrics[test_scope], "scopes": metrics},
        "predictions": predictions.get(test_scope, []),
        "candidates": [list(p) for p in parts.test_proverbs],
        "counts": {"test": len(parts.test), "texts_encoded": len(embeddings.vectors)},
        "durations": {"evaluate": time.monotonic() - started},
        "embeddings": embeddings,
    }


def _motifs(embeddings: Embeddings, test: list[Example], predictions: list[dict]) -> dict:
    """Similar motifs (ePiC Table 13): does each test narrative's nearest other test narrative
    illustrate the same proverb? By the predicted distributions under four distances, and by
    the narrative embeddings alone (cosine)."""
    labels = [example.proverb_id for example in test]
    distributions = np.array([prediction["probabilities"] for prediction in predictions])
    vectors = embeddings([e.narrative for e in test])
    return {
        "narratives": len(test),
        "distribution": {
            distance: motif_accuracy(distributions, labels, distance=distance)
            for distance in MOTIF_DISTANCES
        },
        "embedding_cosine": motif_accuracy(vectors.numpy(), labels, distance="cosine"),
    }


def distinct_proverb_batches(
    examples: list[Example], batch_size: int, rng: random.Random
) -> list[list[Example]]:
    """Shuffled batches in which no proverb appears twice (in-batch negatives stay negative);
    a batch of one example has no negative and is dropped."""
    order = list(examples)
    rng.shuffle(order)
    batches: list[list[Example]] = []
    open_batches: list[tuple[list[Example], set[int]]] = []
    for example in order:
        for batch, proverbs in open_batches:
            if example.proverb_id not in proverbs:
                batch.append(example)
                proverbs.add(example.proverb_id)
                break
        else:
            open_batches.append(([example], {example.proverb_id}))
        full = [entry for entry in open_batches if len(entry[0]) >= batch_size]
        for entry in full:
            batches.append(entry[0])
            open_batches.remove(entry)
    batches.extend(batch for batch, _ in open_batches if len(batch) >= 2)
    return batches


def _fine_tune(training, encoder: Encoder, parts: Parts, request: RunRequest, clock):
    hp = request.hyperparameters
    labels = parts.train_proverbs
    label_index = {proverb_id: i for i, (proverb_id, _) in enumerate(labels)}
    # What training changes and the chosen epoch keeps: the encoder, and a classifier's head.
    model = nn.ModuleDict({"encoder": encoder})
    head = None
    if training.head:
        initial = encoder.embed([text for _, text in labels], max_length=hp.proverb_max_length)
        head = nn.Parameter(initial.clone().to(encoder.device))
        model.register_parameter("head", head)
    loss_function = nn.CrossEntropyLoss()

    def loss(batch: list[Example]) -> torch.Tensor:
        with autocast(encoder.device):
            narratives = nn.functional.normalize(encoder([e.narrative for e in batch]), dim=-1)
            logits, targets = training.logits(encoder, batch, narratives, head, label_index, hp)
        return loss_function(logits.float(), targets)

    trained = train_epochs(
        model=model,
        parameters=(encoder.parameters(), [head] if head is not None else []),
        batches=lambda rng: training.batches(parts.train, hp, rng),
        loss=loss,
        evaluate=lambda: _epoch_scores(encoder, head, parts, hp),
        dev_key=lambda record: (record["dev"]["accuracy"], record["dev"]["mrr"]),
        shown="accuracy",
        request=request,
        clock=clock,
    )
    return {
        **trained.selection(("accuracy", "mrr")),
        "candidates": [list(p) for p in parts.test_proverbs],
        "counts": {"train": len(parts.train), "dev": len(parts.dev), "test": len(parts.test)},
        "durations": {"train": trained.train_seconds, "evaluate": trained.evaluate_seconds},
        "head": head.detach().cpu().clone() if head is not None else None,
    }


def _epoch_scores(encoder, head, parts: Parts, hp) -> tuple[dict, list[dict]]:
    # A classifier's proverbs are its head's rows; a bi-encoder embeds their texts.
    labels = [proverb_id for proverb_id, _ in parts.train_proverbs] if head is not None else []
    head = head.detach().cpu() if head is not None else None
    record: dict = {}
    test_predictions: list[dict] = []
    for name, examples, proverbs in (
        ("dev", parts.dev, parts.dev_proverbs),
        ("test", parts.test, parts.test_proverbs),
    ):
        vectors = proverb_vectors(encoder, proverbs, hp, head, labels)
        narratives = encoder.embed([e.narrative for e in examples], batch_size=hp.eval_batch_size)
        scores = (narratives @ vectors.T).numpy()
        metrics, predictions = _evaluate(scores, examples, proverbs, hp.scale)
        record[name] = metrics
        if name == "test":
            test_predictions = predictions
    return record, test_predictions


def _save_artifact(encoder: Encoder, head, labels: list[tuple[int, str]], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    encoder.transformer.save_pretrained(folder)
    encoder.tokenizer.save_pretrained(folder)
    if head is not None:
        torch.save(head, folder / HEAD_FILE)
        (folder / LABELS_FILE).write_text(json.dumps([proverb_id for proverb_id, _ in labels]))
