"""The stand-in's HTTP handler: dispatch, failures on demand, auth, and the participant's
pages (study list, start, completion) that are not part of Prolific's API.

A path is answered with or without its trailing slash, as the real API answers the
clients that leave it out (Prolific's own CLI calls `/api/v1/users/me` and
`/api/v1/hooks/subscriptions?workspace_id=...`: prolific-oss/cli client/client.go).
Every call is answered, malformed ones in Prolific's error shape: a handler that fails
answers 500 in that shape rather than dropping the connection."""

from __future__ import annotations

import json
import logging
import re
import time
from html import escape
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from prolific.standin.api import ApiRoutes
from prolific.standin.state import API, ApiError, StandInState

logger = logging.getLogger(__name__)


class Handler(ApiRoutes, BaseHTTPRequestHandler):
    server_version = "ProlificStandIn/1"
    state: StandInState

    def log_message(self, format, *args):
        return

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_PATCH(self):
        self._dispatch("PATCH")

    def do_DELETE(self):
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        try:
            if not path.startswith(API):
                self._pages(method, path, query)
                return
            path = path if path.endswith("/") else f"{path}/"
            with self.state.lock:
                self.state.requests.append((method, path))
            self.state.background_process()
            failure = self._failure(path)
            if failure and not failure[3]:  # not carried out; its answer may come late
                if failure[4]:
                    time.sleep(failure[4])
                self._raise(failure)
            if self.headers.get("Authorization") != f"Token {self.state.token}":
                raise ApiError(401, "Invalid token.", title="Unauthorized")
            body = self._body()
            status, payload, headers = self._api(method, path[len(API) :], query, body)
            if failure:  # carried out, then answered late or with an error
                time.sleep(failure[4])
                self._raise(failure)
        except ApiError as error:
            self._send_json(error.status, error.body)
            return
        except Exception:
            logger.exception("prolific stand-in: %s %s failed", method, path)
            self._send_json(500, ApiError(500, "Server error.", title="Server error").body)
            return
        self._send_json(status, payload, headers)

    def _failure(self, path: str) -> list | None:
        with self.state.lock:
            for failure in self.state.failures:
                if failure[2] > 0 and failure[0] in path:
                    failure[2] -= 1
                    return failure
        return None

    @staticmethod
    def _raise(failure: list) -> None:
        status = failure[1]
        if status == 429:
            raise ApiError(429, "Expected available in 1 second.", title="Throttled", flat=True)
        raise ApiError(status, "The service is unavailable.", title="Server error")

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        if not length:
            return {}
        try:
            data = json.loads(self.rfile.read(length))
        except ValueError:
            raise ApiError(400, "The body is not JSON.") from None
        if not isinstance(data, dict):
            raise ApiError(400, "The body must be a JSON object.")
        return data

    def _send_json(self, status: int, payload, headers: dict | None = None) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_html(self, status: int, html: str, headers: dict | None = None) -> None:
        data = f"<!doctype html><meta charset=utf-8><title>Prolific stand-in</title>{html}"
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data.encode())))
        self.end_headers()
        self.wfile.write(data.encode())

    # The participant's side (not part of Prolific's API).
    def _pages(self, method: str, path: str, query: dict) -> None:
        state = self.state
        take = re.fullmatch(r"/_standin/take/(\w+)/", path)
        if method == "GET" and path == "/":
            with state.lock:
                rows = "".join(
                    f"<li>{escape(study['name'])} ({escape(study['status'])}): "
                    f'<a href="/_standin/take/{study["id"]}/">take part as a new participant</a>'
                    "</li>"
                    for study in state.studies.values()
                )
            self._send_html(200, f"<h1>Prolific stand-in: studies</h1><ul>{rows}</ul>")
        elif method == "GET" and take:
            participant = (query.get("participant") or [""])[0]
            submission = state.submission_start(study_id=take.group(1), participant_id=participant)
            self.send_response(302)
            self.send_header("Location", state.study_url_for(submission))
            self.send_header("Set-Cookie", f"standin_submission={submission['id']}; Path=/")
            self.end_headers()
        elif method == "GET" and path == "/submissions/complete":
            self._complete(query)
        else:
            self._send_html(404, "<p>Not found.</p>")

    def _complete(self, query: dict) -> None:
        code = (query.get("cc") or [""])[0]
        cookie = self.headers.get("Cookie") or ""
        match = re.search(r"standin_submission=(\w+)", cookie)
        submission = self.state.submissions.get(match.group(1)) if match else None
        if submission is None:
            self._send_html(400, "<p>No submission of yours is open on Prolific.</p>")
            return
        study = self.state.studies[submission["study_id"]]
        codes = {entry["code"]: entry["code_type"] for entry in study["completion_codes"]}
        if code not in codes:
            self._send_html(400, f"<p>The code {escape(code)} is not one of this study's.</p>")
            return
        self.state.submission_set_status(
            submission_id=submission["id"], status="AWAITING REVIEW", code=code
        )
        self._send_html(
            200,
            f'<h1 id="complete">Submission complete</h1><p id="code">{escape(code)}</p>'
            f"<p>{escape(codes[code])}</p>",
        )
