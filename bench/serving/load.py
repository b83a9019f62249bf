"""The serving benchmark's load: N signed-in workers looping next → task page → submit, on
Parable or on Turkle (whose task page loads the task's form in a frame: a fourth request).

A small HTTP/1.1 client on asyncio streams (one connection per request, as gunicorn's
sync workers close each one), so that 100 workers cost the load generator little CPU
on the cores it shares with the server. Requests arrive as from the TLS-terminating proxy
production runs behind (`X-Forwarded-Proto: https`, and the `Origin` a browser sends with
a POST), so the production settings' HTTPS redirect, secure cookies and CSRF origin check
apply as they do there; with `scheme="http"` they arrive as a browser's on plain HTTP
(the embedded default, bench/embedded). Every request has a timeout; a phase ends at
its deadline or its cycle cap, whichever comes first, and waits for what is in flight.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode

REQUEST_TIMEOUT_S = 30.0
PROXY_HEADER = "X-Forwarded-Proto"  # production's SECURE_PROXY_SSL_HEADER
TASK_PATH = re.compile(r"^/tasks/a/(\d+)/$")
CONFIG = re.compile(r'<script id="task-config" type="application/json">(.*?)</script>', re.S)
TURKLE_TASK_PATH = re.compile(r"^/task/\d+/assignment/\d+/$")
TURKLE_FRAME = re.compile(r'<iframe src="([^"]+)"')
TURKLE_PROVERB = re.compile(r'<p class="proverb" id="proverb">(.*?)</p>', re.S)


@dataclass
class Response:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str:
        return (self.headers.get(name.lower()) or [""])[0]


@dataclass
class Sample:
    kind: str  # next | page | submit
    start: float
    end: float
    ok: bool


@dataclass
class PhaseLog:
    samples: list[Sample] = field(default_factory=list)
    cycles: list[float] = field(default_factory=list)  # end time of each completed cycle
    cycle_times: list[float] = field(default_factory=list)  # seconds of each, first request on
    failures: list[str] = field(default_factory=list)
    acknowledged: list[int] = field(default_factory=list)  # assignments whose submit got 200

    def done(self, started: float) -> None:
        """A cycle that began at `started` (perf_counter) completed now."""
        now = time.perf_counter()
        self.cycles.append(now)
        self.cycle_times.append(now - started)


def _dechunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2 :]
    return b"".join(out)


async def http(
    host: str,
    port: int,
    method: str,
    path: str,
    *,
    cookies: dict,
    body: bytes = b"",
    scheme: str = "https",
    headers: tuple[str, ...] = (),
    content_type: str = "application/json",
) -> Response:
    """One request on its own connection; cookies the response sets are kept in `cookies`.
    `scheme` is the one the browser used: "https" arrives through the proxy. `headers` are
    added as they are ("Name: value"); `content_type` is a POST body's."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Connection: close",
            "User-Agent: parable-bench",
            *headers,
        ]
        if scheme == "https":
            lines.append(f"{PROXY_HEADER}: https")
        if cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
        if method == "POST":
            lines += [
                f"Content-Type: {content_type}",
                f"Content-Length: {len(body)}",
                f"X-CSRFToken: {cookies.get('csrftoken', '')}",
                f"Origin: {scheme}://{host}:{port}",
            ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        raw = await reader.read()
    finally:
        writer.close()
    head, _, content = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    for cookie in headers.get("set-cookie", []):
        name, _, value = cookie.split(";", 1)[0].partition("=")
        cookies[name.strip()] = value.strip()
    if "chunked" in (headers.get("transfer-encoding") or [""])[0]:
        content = _dechunk(content)
    return Response(int(status_line.split()[1]), headers, content)


class Worker:
    """One signed-in crowd worker: a cookie jar and the stories it may write.

    A worker takes each item once, so a few workers can run through a small batch: one
    whose `next` finds nothing left for them signs in as the next of `spare_tokens` (a
    new worker, as a study's next participant), if any, and carries on."""

    def __init__(
        self, host: str, port: int, stories: dict[str, list[str]], *, scheme: str = "https"
    ):
        self.host, self.port, self.stories, self.scheme = host, port, stories, scheme
        self.cookies: dict[str, str] = {}
        self.written = 0
        self.spare_tokens: list[str] = []

    async def sign_in(self, token: str) -> None:
        self.cookies = {}
        response = await self._call("GET", f"/w/{token}/")
        if response.status != 302:
            raise RuntimeError(f"invite link answered {response.status}")

    async def _call(self, method: str, path: str, body: bytes = b"", **options) -> Response:
        return await asyncio.wait_for(
            http(
                self.host,
                self.port,
                method,
                path,
                cookies=self.cookies,
                body=body,
                scheme=self.scheme,
                **options,
            ),
            REQUEST_TIMEOUT_S,
        )

    async def _timed(
        self, log: PhaseLog, kind: str, method: str, path: str, expect, body=b"", **options
    ):
        start = time.perf_counter()
        try:
            response = await self._call(method, path, body, **options)
            ok = expect(response)
            reason = "" if ok else f"{kind}: HTTP {response.status} {response.body[:120]!r}"
        except (OSError, TimeoutError, ValueError) as error:
            response, ok, reason = None, False, f"{kind}: {type(error).__name__} {error}"
        log.samples.append(Sample(kind, start, time.perf_counter(), ok))
        if not ok:
            log.failures.append(reason)
        return response if ok else None

    async def cycle(self, log: PhaseLog, batch_id: int) -> None:
        """next (302 to the task) → task page (200) → submit a story (200). A `next` that
        finds nothing left for this worker (200, its message) is answered as it should
        be: the worker signs in as a spare one, if any is left."""

        def reserved(r: Response) -> bool:
            return r.status == 302 and TASK_PATH.match(r.header("location")) is not None

        def expected(r: Response) -> bool:
            return reserved(r) or (r.status == 200 and bool(self.spare_tokens))

        started = time.perf_counter()
        response = await self._timed(log, "next", "GET", f"/tasks/{batch_id}/next/", expected)
        if response is None:
            return
        if not reserved(response):
            await self.sign_in(self.spare_tokens.pop())
            return
        task = response.header("location")
        page = await self._timed(log, "page", "GET", task, lambda r: r.status == 200)
        if page is None:
            return
        match = CONFIG.search(page.body.decode())
        if match is None:
            log.failures.append("page: no task config")
            return
        proverb = json.loads(match.group(1))["proverb"]
        story = self.stories[proverb][self.written % len(self.stories[proverb])]
        self.written += 1
        body = json.dumps({"payload": {"text": story}, "submission_key": uuid.uuid4().hex}).encode()
        submitted = await self._timed(
            log,
            "submit",
            "POST",
            f"{task}submit/",
            lambda r: r.status == 200 and json.loads(r.body).get("status") == "submitted",
            body,
        )
        if submitted is not None:
            log.done(started)
            log.acknowledged.append(int(TASK_PATH.match(task).group(1)))


class TurkleWorker(Worker):
    """One signed-in Turkle worker (a session key: Turkle signs workers in with a password).

    A cycle is what a browser does on Turkle: accept the batch's next task (302 to its
    assignment), load the assignment's page and the form in its frame, and post the form
    (302 to the next task, auto-accept being on). A worker with nothing left in the batch
    is sent to the index (302 to /) and signs in as a spare worker, if any is left."""

    async def sign_in(self, token: str) -> None:
        self.cookies = {"sessionid": token}

    async def cycle(self, log: PhaseLog, batch_id: int) -> None:
        def reserved(r: Response) -> bool:
            return r.status == 302 and TURKLE_TASK_PATH.match(r.header("location")) is not None

        def expected(r: Response) -> bool:
            left = r.status == 302 and r.header("location") == "/" and bool(self.spare_tokens)
            return reserved(r) or left

        path = f"/batch/{batch_id}/accept_next_task/"
        started = time.perf_counter()
        response = await self._timed(log, "next", "GET", path, expected)
        if response is None:
            return
        if not reserved(response):
            await self.sign_in(self.spare_tokens.pop())
            return
        task = response.header("location")
        page = await self._timed(log, "page", "GET", task, lambda r: r.status == 200)
        if page is None:
            return
        frame = TURKLE_FRAME.search(page.body.decode())
        if frame is None:
            log.failures.append("page: no frame")
            return
        path = html.unescape(frame.group(1))
        form = await self._timed(log, "frame", "GET", path, lambda r: r.status == 200)
        if form is None:
            return
        proverb = TURKLE_PROVERB.search(form.body.decode())
        if proverb is None:
            log.failures.append("frame: no proverb")
            return
        stories = self.stories[html.unescape(proverb.group(1))]
        story = stories[self.written % len(stories)]
        self.written += 1
        submitted = await self._timed(
            log,
            "submit",
            "POST",
            task,
            lambda r: r.status == 302 and r.header("location").endswith("/accept_next_task/"),
            urlencode({"narrative": story}).encode(),
            content_type="application/x-www-form-urlencoded",
        )
        if submitted is not None:
            log.done(started)


async def run_phase(
    workers: list[Worker], *, batch_id: int, seconds: float, max_cycles: int
) -> PhaseLog:
    """Every worker loops through cycles until `seconds` pass, `max_cycles` complete or
    three times as many requests were made (failing ones included)."""
    log = PhaseLog()
    deadline = time.perf_counter() + seconds

    async def loop(worker: Worker) -> None:
        while (
            time.perf_counter() < deadline
            and len(log.cycles) < max_cycles
            and len(log.samples) < 3 * max_cycles
        ):
            await worker.cycle(log, batch_id)

    await asyncio.gather(*(loop(worker) for worker in workers))
    return log
