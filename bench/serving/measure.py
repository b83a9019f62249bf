"""What the serving benchmark reads from the machine: free ports, and CPU time and memory
of process trees from /proc (gunicorn's master and workers, PostgreSQL's postmaster and
backends)."""

from __future__ import annotations

import os

from tests.conftest import free_loopback_port

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A free port on loopback in 28200-28999 (below the ephemeral range)."""
    return free_loopback_port(range(28200, 29000), shuffled=True)


def _processes() -> dict[int, tuple[int, float]]:
    """pid → (parent pid, CPU seconds of the process and of its reaped children)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state ppid ... utime(11) stime(12) cutime(13) cstime(14).
        ticks = sum(int(value) for value in fields[11:15])
        table[int(entry)] = (int(fields[1]), ticks / TICKS)
    return table


def tree_cpu(root: int) -> float:
    """CPU seconds of a process tree, exited children included (through their parent)."""
    table = _processes()
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += table.get(pid, (0, 0.0))[1]
        stack.extend(child for child, (parent, _) in table.items() if parent == pid)
    return total


def children(pid: int) -> list[int]:
    return sorted(child for child, (parent, _) in _processes().items() if parent == pid)


def memory_mib(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of a process in MiB."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            name, _, rest = line.partition(":")
            if name in ("Rss", "Pss"):
                values[name] = int(rest.split()[0]) / 1024
    return values["Rss"], values["Pss"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def load_average() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())
