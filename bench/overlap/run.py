"""Benchmark of the lexical-overlap check: server-side throughput and per-keystroke
browser cost (checkOverlap + renderHighlighted in headless Chromium), on a bench page and
on the real write page (bench/overlap/task_page.py).

Run: .venv/bin/python bench/overlap/run.py  (prints figures; about 45 seconds)
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import statistics
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from annotation.text import OverlapRules, check_overlap, word_count  # noqa: E402

PROVERB = "Birds of a feather flock together"
TARGET_MS = 1.0
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
]
# 200 words, with a few of the proverb's words in it, as a worker might write.
NARRATIVE = (
    "When Priya moved to the city she knew nobody, and for the first month she ate lunch "
    "alone on a bench outside the library. One grey afternoon a woman sat down beside her "
    "with the same battered paperback of poems, a yellow feather tucked between its pages "
    "as a bookmark. They laughed at the coincidence, then argued for an hour about which "
    "poem was the saddest. The next week the woman brought a friend who also collected old "
    "maps, and the friend brought her cousin, who repaired clocks and told terrible jokes. "
    "By winter there were nine of them crowded around two small tables at the café on "
    "Mercer Street every Thursday night. None of them had planned it. Nobody had put up a "
    "notice or sent an invitation; each of them had simply recognised something familiar "
    "in the others, a kind of quiet stubbornness and a love of things that most people "
    "threw away. When Priya's landlord raised the rent, three of them helped her carry "
    "boxes up four flights of stairs to a smaller flat across town. When the clock-mender "
    "fell ill, the group took turns cooking soup and reading him the saddest poems they "
    "could find."
)
RULES = {"max_shared_ngram": 2, "max_shared_content_words": 2, "min_words": 20, "max_words": 250}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def bench_server(seconds: float = 3.0) -> None:
    words = NARRATIVE.split()
    rng = random.Random(7)
    narratives = [NARRATIVE]
    for _ in range(49):
        rng.shuffle(words)
        narratives.append(" ".join(words))
    rules = OverlapRules.from_dict(RULES)
    for narrative in narratives:  # warm up: the token pattern and the proverb profile
        check_overlap(PROVERB, narrative, rules)

    latencies_ms = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for narrative in narratives:
            start = time.perf_counter_ns()
            check_overlap(PROVERB, narrative, rules)
            latencies_ms.append((time.perf_counter_ns() - start) / 1e6)

    count = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for narrative in narratives:
            check_overlap(PROVERB, narrative, rules)
        count += len(narratives)

    print("Server side: check_overlap on 200-word narratives (one process, one thread)")
    print(
        f"  Python {sys.version.split()[0]}, {len(narratives)} distinct narratives; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (noisy figures when high)"
    )
    print(f"  throughput     {count / elapsed:>10,.0f} checks/s")
    print(f"  mean latency   {statistics.fmean(latencies_ms):>10.3f} ms")
    print(f"  p95 latency    {percentile(latencies_ms, 0.95):>10.3f} ms")
    print(f"  max latency    {max(latencies_ms):>10.3f} ms   ({len(latencies_ms):,} timed calls)")


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves the repository; cross-origin isolated so performance.now() is fine-grained."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass


def row(label: str, times_ms: list[float], passes: list[list[float]] | None = None) -> str:
    p95 = percentile(times_ms, 0.95)
    verdict = "meets" if p95 < TARGET_MS else "misses"
    line = (
        f"  {label:<38} {percentile(times_ms, 0.5):>6.3f} {p95:>6.3f} {max(times_ms):>7.3f}"
        f"   < {TARGET_MS:.1f}: {verdict:<6}  n={len(times_ms):,}"
    )
    if passes:
        line += "; p95 per pass " + " / ".join(f"{percentile(p, 0.95):.3f}" for p in passes)
    return line


def bench_browser() -> None:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(QuietHandler, directory=str(REPO))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/bench/overlap/meter.html"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(url)
                page.wait_for_function("document.getElementById('status').textContent === 'ready'")
                info = page.evaluate("timerInfo()")
                args = [PROVERB, NARRATIVE, RULES]
                page.evaluate("a => typeInPage(a[0], a[1], a[2], true, 1)", args)  # warm up
                script = page.evaluate("a => typeInPage(a[0], a[1], a[2], false, 3)", args)
                layout = page.evaluate("a => typeInPage(a[0], a[1], a[2], true, 3)", args)
                full = page.evaluate("a => checkFullText(a[0], a[1], a[2], true, 2000)", args)
                page.evaluate("a => prepareTyping(a[0], a[2])", args)
                page.locator("#narrative").press_sequentially(NARRATIVE)
                typed = page.evaluate("typedTimes()")
                preview = page.evaluate("previewState()")
                page.evaluate("prepareRecording()")
                page.locator("#recorded").press_sequentially(NARRATIVE)
                recording = page.evaluate("recordingResult()")
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()

    expected = check_overlap(PROVERB, NARRATIVE, RULES)["highlights"]
    if preview != {"text": NARRATIVE, "marks": [NARRATIVE[a:b] for a, b in expected]}:
        raise SystemExit("The preview after typing does not show the narrative as Python marks it.")

    print()
    print("Browser: checkOverlap + renderHighlighted per keystroke, headless Chromium")
    print(f"  {info['userAgent'].split(') ')[-1]}")
    print(
        f"  typing a {word_count(NARRATIVE)}-word narrative ({len(NARRATIVE)} characters) "
        "one character at a time; timer "
        + ("5 us (cross-origin isolated)" if info["crossOriginIsolated"] else "coarse (100 us)")
    )
    print(f"  preview after typing: same text, {len(expected)} marks where Python puts them")
    print(f"  {'per keystroke, ms':<38} {'p50':>6} {'p95':>6} {'max':>7}   target p95")
    print(row("in-page loop: check + render", list(itertools.chain(*script)), script))
    print(row("in-page loop: check + render + layout", list(itertools.chain(*layout)), layout))
    print(row("whole text re-checked + layout", full))
    print(row("key events: check + render + layout", typed["total"]))
    for index, part in enumerate(["checkOverlap", "renderHighlighted", "style/layout"]):
        print(row(f"  of which {part}", [parts[index] for parts in typed["parts"]]))
    print(
        "  (render = DOM updates; layout = the forced style and layout of the preview; "
        "key events come from Playwright, one character at a time)"
    )
    if recording["record"]["typed"] != len(NARRATIVE):
        raise SystemExit("The writing record did not count every typed character.")
    meter = percentile(typed["total"], 0.95)
    record = percentile(recording["times"], 0.95)
    print()
    print("Browser: the writing record (telemetry.js) per keystroke, beside the meter")
    print(f"  {'per keystroke, ms':<38} {'p50':>6} {'p95':>6} {'max':>7}   target p95")
    print(row("record: keydown + beforeinput + input", recording["times"]))
    print(row("meter: check + render + layout", typed["total"]))
    print(
        f"  record / meter at p95: {record / meter:.2f}; the record counted "
        f"{recording['record']['typed']} typed characters, {recording['record']['keys']} keys"
    )


def bench_task_page() -> None:
    """The same typing on the real write page (bench/overlap/task_page.py)."""
    from task_page import measure_task_page  # bench/overlap/, on sys.path as the script's folder

    measured = measure_task_page(
        proverb=PROVERB,
        narrative=NARRATIVE,
        rules=RULES,
        chromium=CHROMIUM,
        chromium_args=CHROMIUM_ARGS,
    )
    expected = [NARRATIVE[a:b] for a, b in check_overlap(PROVERB, NARRATIVE, RULES)["highlights"]]
    if measured["marks"] != expected or measured["backdrop"] != NARRATIVE:
        raise SystemExit("The write page's marks after typing are not where Python puts them.")

    print()
    print("Browser: the real write page (/tasks/a/<id>/ served by Django), key events in Chromium")
    print(
        "  the page's input handler: checkOverlap, marks behind the text, meter, rule messages, "
        "draft saved to localStorage; timer "
        + ("5 us (cross-origin isolated)" if measured["crossOriginIsolated"] else "coarse (100 us)")
    )
    print(f"  marks after typing: {len(expected)}, where Python puts them")
    print(f"  {'per keystroke, ms':<38} {'p50':>6} {'p95':>6} {'max':>7}   target p95")
    print(row("write page: input handler", measured["handler"]))
    print(row("write page: handler + style/layout", measured["layout"]))


def main() -> None:
    assert word_count(NARRATIVE) == 200, word_count(NARRATIVE)
    bench_server()
    bench_browser()
    bench_task_page()


if __name__ == "__main__":
    main()
