"""The stand-in's HTTP side: JSON 1.1 with X-Amz-Target for boto3, and a tiny worker site
(HIT list, accept with the task framed, /mturk/externalSubmit)."""

from __future__ import annotations

import html
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from mturk.standin.shapes import TARGET_PREFIX, RequestError, with_params
from mturk.standin.state import MTurkState


class _Handler(BaseHTTPRequestHandler):
    server: StandInServer

    def log_message(self, format, *args):
        return

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: bytes, content_type: str, headers=()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _page(self, status: int, title: str, body: str) -> None:
        page = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title></head><body><h1>{html.escape(title)}</h1>{body}</body></html>"
        )
        self._send(status, page.encode(), "text/html; charset=utf-8")

    def do_POST(self):
        state = self.server.state
        path = urlsplit(self.path).path
        if path == "/mturk/externalSubmit":
            form = {k: v[-1] for k, v in parse_qs(self._body().decode()).items()}
            assignment_id = form.pop("assignmentId", "")
            try:
                state.submit(assignment_id=assignment_id, answers=form)
            except RequestError as error:
                return self._page(400, "Not submitted", f"<p>{html.escape(str(error))}</p>")
            return self._page(
                200,
                "HIT submitted",
                f"<p data-testid='mturk-submitted'>Assignment {html.escape(assignment_id)} "
                "was submitted. <a href='/'>Back to the HITs</a></p>",
            )
        target = self.headers.get("X-Amz-Target", "")
        if not target.startswith(TARGET_PREFIX):
            return self._send(404, b"{}", "application/x-amz-json-1.1")
        try:
            params = json.loads(self._body() or b"{}")
            response = state.dispatch(target[len(TARGET_PREFIX) :], params)
            status, body = 200, response
        except RequestError as error:
            status = error.status
            body = {"__type": error.kind, "Message": str(error), "TurkErrorCode": error.kind}
        except (ValueError, KeyError, TypeError) as error:
            status, body = 400, {"__type": "RequestError", "Message": f"Invalid request: {error}"}
        self._send(
            status,
            json.dumps(body, default=str).encode(),
            "application/x-amz-json-1.1",
            headers=[("x-amzn-RequestId", str(uuid.uuid4()))],
        )

    def do_GET(self):
        state = self.server.state
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/accept":
            try:
                assignment = state.accept(hit_id=query.get("hit", ""), worker_id=query["worker"])
            except (RequestError, KeyError) as error:
                return self._page(400, "Not accepted", f"<p>{html.escape(str(error))}</p>")
            url = state.task_url(
                assignment_id=assignment["AssignmentId"], submit_to=self.server.url
            )
            # As MTurk's worker site: the ExternalQuestion page in a frame.
            return self._page(
                200,
                f"Working on HIT {query['hit']}",
                f"<p>Assignment {html.escape(assignment['AssignmentId'])} for worker "
                f"{html.escape(assignment['WorkerId'])}.</p><iframe data-testid='task-frame' "
                f"src='{html.escape(url)}' style='width:100%;height:900px;border:1px solid #999'>"
                "</iframe>",
            )
        if parts.path == "/":
            with state.lock:
                rows = "".join(
                    _hit_row(hit) for hit in state.hits.values() if hit["HITStatus"] == "Assignable"
                )
            return self._page(
                200, "MTurk stand-in: HITs", f"<ul>{rows or '<li>No HITs open.</li>'}</ul>"
            )
        return self._page(404, "Not found", "")


def _hit_row(hit: dict) -> str:
    hit_id = html.escape(hit["HITId"])
    preview = with_params(
        hit["ExternalURL"], assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=hit["HITId"]
    )
    return (
        f"<li>{html.escape(hit['Title'])} · {hit_id} · "
        f"{hit['NumberOfAssignmentsAvailable']} available · "
        "<form method='get' action='/accept' style='display:inline'>"
        f"<input type='hidden' name='hit' value='{hit_id}'>"
        "<input name='worker' placeholder='worker id' required>"
        f"<button>Accept</button></form> <a href='{html.escape(preview)}'>preview</a></li>"
    )


class StandInServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], state: MTurkState | None = None):
        super().__init__(address, _Handler)
        self.state = state or MTurkState()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def serve_in_thread(*, host: str = "127.0.0.1", ports=(0,)) -> StandInServer:
    """Start the stand-in on a background thread, on the first free port of `ports`;
    stop it with .shutdown() and .server_close()."""
    for port in ports:
        try:
            server = StandInServer((host, port))
        except OSError:
            continue
        threading.Thread(target=server.serve_forever, daemon=True, name="mturk-standin").start()
        return server
    raise OSError(f"No free port for the MTurk stand-in among {ports!r}.")
