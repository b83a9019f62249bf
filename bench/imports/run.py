"""Times the dataset imports end to end, as a researcher runs them: `import_dataset --format
epic` of an ePiC-shaped release (2,500 English stories of about 65 words, 10 per proverb,
2 or 3 span pairs each, its four split files) and `import_figurative` of the figurative
benchmark's idiom train file (/work/shared/data/figurative-train/idiom-train.jsonl, 3,204
lines), each into a freshly migrated SQLite database (the embedded default: the integrity
check runs in the command, keywords and the texts' kept scores too).

Run from the repository root: `.venv/bin/python bench/imports/run.py [--narratives 2500]
[--runs 2] [--idiom PATH] [--base REV]`. The runs alternate (epic, idiom, idiom, epic, ...);
each is a fresh process. `--base REV` times a checkout of REV too, side by side in mirrored
order (A B B A), and prints the CPU seconds of each import against it. It prints, per
command, its wall seconds, CPU seconds (the process and its
children) and the load average over the run, and ends with the line
`epic import X s wall, figurative idiom train Y s wall` (the best run of each). This machine
is shared: judge by CPU seconds where others load it. Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.analysis.synthetic import TextGenerator  # noqa: E402
from bench.modeling import compose_stories  # noqa: E402

IDIOM_TRAIN = Path("/work/shared/data/figurative-train/idiom-train.jsonl")
TARGETS = {"epic": 30.0, "idiom": 15.0}


def epic_release(folder: Path, narratives: int, seed: int = 0) -> tuple[Path, Path]:
    """An ePiC-shaped release in `folder`: epic.json (10 English stories of about 65 words
    per proverb, composed as bench/modeling/compose_stories.py composes them, 2 or 3 span
    pairs each, a proverb quoted with other case or punctuation now and then, a span that is
    not in its story now and then) and the four split files; returns (file, splits folder).
    The proverbs are the demo list's, then made-up ones for the rest."""
    gen = TextGenerator(seed)
    rng = random.Random(seed)
    known = compose_stories.proverbs()
    count = -(-narratives // 10)
    made_up = list(dict.fromkeys(gen.proverb() for _ in range(count)))
    proverbs = ([text for text, _ in known] + made_up)[:count]
    records = []
    for number in range(narratives):
        proverb_number, k = divmod(number, 10)
        quote = proverbs[proverb_number]
        if rng.random() < 0.05:
            quote = quote.lower() + "."
        text = compose_stories.story(rng, known[proverb_number % len(known)][1])
        fields = {"quote": quote, "narrative": text}
        pairs = 2 + (rng.random() < 0.4)
        for slot in range(1, 6):
            used = slot <= pairs
            fields[f"span_quote_{slot}"] = gen.span(quote, 1, 3) if used else ""
            narrative_span = gen.span(text, 3, 10) if used else ""
            if used and rng.random() < 0.01:
                narrative_span = "words that are not in the story"
            fields[f"span_narrative_{slot}"] = narrative_span
        records.append({"pk": f"Q{proverb_number + 1}N{k + 1}", "fields": fields})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "epic.json"
    path.write_text(json.dumps(records, indent=4, ensure_ascii=False), encoding="utf-8")
    splits = folder / "splits"
    splits.mkdir(exist_ok=True)
    pks = [record["pk"] for record in records]
    unseen_test = {pk for pk in pks if int(pk[1:].split("N")[0]) % 5 == 0}
    seen_test = {pk for pk in pks if pk.endswith(("N9", "N10"))}
    for name, chosen in {
        "epic_seen_train_pks.json": [pk for pk in pks if pk not in seen_test],
        "epic_seen_test_pks.json": [pk for pk in pks if pk in seen_test],
        "epic_unseen_train_pks.json": [pk for pk in pks if pk not in unseen_test],
        "epic_unseen_test_pks.json": [pk for pk in pks if pk in unseen_test],
    }.items():
        (splits / name).write_text(json.dumps(chosen))
    return path, splits


def processor() -> str:
    """The processor's model name, as /proc/cpuinfo gives it."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "processor unknown"


def migrated(workdir: Path) -> Path:
    """A migrated, empty SQLite database, made once: each run imports into a copy."""
    var = workdir / "template"
    env = _env(var)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return var


def _env(var: Path, tree: Path = ROOT) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "PARABLE_VAR_DIR": str(var),
        "PYTHONPATH": str(tree),
    }
    for name in ("DATABASE_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    return env


def timed(command: list[str], template: Path, workdir: Path, tree: Path = ROOT) -> dict:
    """Run a manage.py command of `tree` in a fresh copy of the template database: its wall
    and CPU seconds (with children), the load average before and after, its JSON report."""
    var = workdir / "run"
    shutil.rmtree(var, ignore_errors=True)
    shutil.copytree(template, var)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    finished = subprocess.run(
        [sys.executable, "manage.py", *command, "--json"],
        cwd=tree,
        env=_env(var, tree),
        capture_output=True,
        timeout=1200,
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{finished.stderr.decode()[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "seconds": seconds,
        "cpu": cpu,
        "load": (load, os.getloadavg()[0]),
        "report": json.loads(finished.stdout.decode().strip().splitlines()[-1]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--narratives", type=int, default=2_500)
    parser.add_argument("--runs", type=int, default=2, help="runs of each import")
    parser.add_argument("--idiom", type=Path, default=IDIOM_TRAIN)
    parser.add_argument("--base", help="also time this commit's imports, side by side")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="parable-imports-"))
    try:
        print(f"{processor()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        epic, splits = epic_release(workdir / "release", args.narratives)
        template = migrated(workdir)
        commands = {
            "epic": ["import_dataset", "--format", "epic", str(epic), "--splits", str(splits)],
            "idiom": ["import_figurative", str(args.idiom), "--kind", "idiom", "--split", "train"],
        }
        commands["epic"].append("--allow-partial")  # the release's few spans not found
        trees = {"": ROOT}
        if args.base:
            trees["base "] = workdir / "base"
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(trees["base "]), args.base],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
        runs: dict[str, list[dict]] = {
            f"{label}{name}": [] for label in trees for name in ("epic", "idiom")
        }
        for round_number in range(args.runs):
            # Mirrored rounds (A B B A): each tree and import first as often as last.
            order = [(label, name) for label in trees for name in ("epic", "idiom")]
            for label, name in order if round_number % 2 == 0 else order[::-1]:
                run = timed(commands[name], template, workdir, trees[label])
                runs[f"{label}{name}"].append(run)
                print(
                    f"{label}{name}: {run['seconds']:.1f} s wall, {run['cpu']:.1f} s CPU, load "
                    f"{run['load'][0]:.1f} -> {run['load'][1]:.1f}",
                    flush=True,
                )
        if args.base:
            for name in ("epic", "idiom"):
                cpu = [min(run["cpu"] for run in runs[key]) for key in (name, f"base {name}")]
                wall = [min(run["seconds"] for run in runs[key]) for key in (name, f"base {name}")]
                print(
                    f"{name} / base {args.base}, side by side: CPU {cpu[0]:.1f} / {cpu[1]:.1f} s "
                    f"({cpu[0] / cpu[1]:.2f}x), wall {wall[0]:.1f} / {wall[1]:.1f} s"
                )
        first = runs["epic"][0]["report"]
        print(
            f"epic report: {first['narratives_created']} narratives, {first['span_pairs']} "
            f"span pairs, {first['unresolved_spans']} unresolved, splits {first['splits']}, "
            f"keywords extracted for {first['keywords_extracted']}"
        )
        idiom = runs["idiom"][0]["report"]
        print(
            f"idiom report: {idiom['lines']} lines, {idiom['narratives']} narratives, "
            f"{idiom['pairs']} pairs, {idiom['irregular_lines']} irregular lines"
        )
        best = {name: min(run["seconds"] for run in runs[name]) for name in runs}
        for name, target in TARGETS.items():
            cpu = min(run["cpu"] for run in runs[name])
            print(f"{name}: best {best[name]:.1f} s wall, {cpu:.1f} s CPU (target {target} s)")
        print(
            f"epic import {best['epic']:.1f} s wall, figurative idiom train "
            f"{best['idiom']:.1f} s wall"
        )
    finally:
        if args.base:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(workdir / "base")], cwd=ROOT
            )
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
