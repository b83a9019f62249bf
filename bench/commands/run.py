"""Times `manage.py analyze --json` and `manage.py export_dataset` end to end: process start
to exit, as a researcher runs them, with the peak memory of the process and its workers.

Run from the repository root: `.venv/bin/python bench/commands/run.py [--small 2500]
[--narratives 100000] [--format jsonl] [--runs 2]`. It fills two SQLite databases with
ePiC-shaped data (bench/export/run.py's `populate`: 10 narratives per proverb, 2 span
pairs each, 1 in 40 rejected): one of `--small` narratives, the size of the ePiC release,
and one of `--narratives`. Then it runs, each in a fresh process, `analyze --json OUT` on
the small one (the texts' scores that analyses keep forgotten before each run) and the
default `export_dataset` (with statistics) on the large one: a first export, with no
scores kept (annotation/analysis/text_scores.py); the next export, which takes the scores
the first kept, as every export after a study's first does for the texts already scored;
and, interleaved with them, the export with `--newer-flesch` (every text scored, nothing
kept). It prints seconds (wall and CPU, the process and its children) and the peak resident memory
of the process tree (summed over its processes, sampled every 50 ms from /proc) beside
the targets and the figures measured before the start-up and model-loading work.

Set PARABLE_BENCH_DIR to a folder to keep the databases there and reuse them on the
next run. This machine is shared: the load average is printed with each figure. Prints
figures; it is not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TARGETS = {"analyze": (2.5, None), "export": (15.0, 1024.0)}
BEFORE = {"analyze": "5.4 s", "export": "23.9 s, 770 MiB"}


def _tree_rss_mib(root: int) -> float:
    """Resident memory of a process and its descendants, in MiB."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/status") as status:
                total += next(
                    (int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0
                )
        except OSError:
            pass
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total / 1024


def timed(command: list[str], env: dict) -> dict:
    """Run a command; its wall seconds, CPU seconds (with children) and peak tree RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.05):
            peak = max(peak, _tree_rss_mib(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate(timeout=600)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr.decode()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": seconds, "cpu": cpu, "peak_mib": peak}


def database(workdir: Path, narratives: int) -> dict:
    """The environment of a SQLite database holding `narratives`, filled once."""
    var = workdir / f"db-{narratives}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "PARABLE_VAR_DIR": str(var),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DATABASE_URL", None)
    if (var / "parable.sqlite3").exists():  # kept from an earlier run: brought up to date
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
    else:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, __file__, "--populate", str(narratives)],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=1800,
        )
        made = time.perf_counter() - start
        print(f"made a database of {narratives:,} narratives in {made:.0f} s")
    return env


def forget_scores(env: dict) -> None:
    """Empty the texts' scores that analyses keep (annotation.models.TextScores)."""
    forget = "from annotation.models import TextScores; TextScores.objects.all().delete()"
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", forget], cwd=ROOT, env=env, check=True
    )


def report(name: str, what: str, runs: list[dict]) -> None:
    seconds_target, memory_target = TARGETS[name]
    best = min(runs, key=lambda run: run["seconds"])
    target = f"target < {seconds_target} s" + (
        f" and < {memory_target:.0f} MiB" if memory_target else ""
    )
    print(
        f"{what}: {best['seconds']:.2f} s end to end (runs: "
        + ", ".join(f"{run['seconds']:.2f}" for run in runs)
        + f"), {best['cpu']:.2f} s CPU, peak RSS {best['peak_mib']:.0f} MiB "
        f"({target}; before {BEFORE[name]}); load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=2_500)
    parser.add_argument("--narratives", type=int, default=100_000)
    parser.add_argument("--format", default="jsonl", help="export format (epic, jsonl, ...)")
    parser.add_argument("--runs", type=int, default=2, help="runs of each command")
    parser.add_argument("--populate", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.populate:
        import django

        django.setup()
        from bench.export.run import populate

        populate(args.populate)
        return
    kept = os.environ.get("PARABLE_BENCH_DIR")
    workdir = Path(kept or tempfile.mkdtemp(prefix="parable-commands-"))
    try:
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        manage = [sys.executable, "manage.py"]
        small = database(workdir, args.small)
        out = workdir / "analysis.json"
        runs = []
        for _ in range(args.runs):
            forget_scores(small)
            runs.append(timed([*manage, "analyze", "--json", str(out)], small))
        report("analyze", f"analyze --json on {args.small:,} narratives", runs)
        large = database(workdir, args.narratives)
        runs: dict[str, list[dict]] = {"first": [], "next": [], "newer": []}
        # Per round: a first export (the scores kept by earlier runs forgotten), the next
        # one (taking the scores the first kept), and one with --newer-flesch (every text
        # scored, nothing kept); the rounds alternate the newer one's place.
        for round_number in range(args.runs):
            order = (
                ["first", "next", "newer"] if round_number % 2 == 0 else ["newer", "first", "next"]
            )
            for kind in order:
                if kind == "first":
                    forget_scores(large)
                folder = workdir / "export"
                shutil.rmtree(folder, ignore_errors=True)
                command = [*manage, "export_dataset", "--format", args.format, str(folder)]
                runs[kind].append(timed(command + ["--newer-flesch"] * (kind == "newer"), large))
        what = f"export_dataset --format {args.format} (with statistics)"
        what += f" of {args.narratives:,} narratives"
        report("export", f"{what}, a first export (no scores kept)", runs["first"])
        report("export", "the next export (the texts' scores kept by the first)", runs["next"])
        report("export", "with --newer-flesch (every text scored, none kept)", runs["newer"])
        for kind in ("next", "newer"):
            cpu = [min(run["cpu"] for run in runs[k]) for k in (kind, "first")]
            wall = [min(run["seconds"] for run in runs[k]) for k in (kind, "first")]
            print(
                f"{kind} / first, side by side: CPU {cpu[0] / cpu[1]:.2f}x, "
                f"wall {wall[0] / wall[1]:.2f}x"
            )
    finally:
        if not kept:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
