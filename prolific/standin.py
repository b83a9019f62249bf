"""A local stand-in of Prolific's API for tests and for trying Parable without an account.

It answers the endpoints Parable uses with Prolific's documented request and
response shapes and status codes, keeps its state in memory, answers 429 on
demand and delivers signed `submission.status.change` webhooks. A few pages
outside the API play the participant's side: `/` lists published studies,
`/_standin/take/<study>/` starts a submission and sends the participant to the
study URL, `/submissions/complete?cc=` is where Parable sends them at the end.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

from prolific.signatures import signature

API = "/api/v1/"
REJECTION_CATEGORIES = {
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
}
STUDY_REQUIRED = (
    "name",
    "description",
    "external_study_url",
    "prolific_id_option",
    "completion_codes",
    "total_available_places",
    "estimated_completion_time",
    "reward",
)
COUNTRIES = {"1": "United Kingdom", "2": "United States", "3": "Ireland", "4": "Canada"}
LANGUAGES = {"19": "English", "20": "French", "21": "German"}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _new_id() -> str:
    return secrets.token_hex(12)


class ApiError(Exception):
    def __init__(self, status: int, detail, *, title: str = "Bad request", flat: bool = False):
        super().__init__(str(detail))
        self.status = status
        if flat:
            self.body = {"message": title, "detail": detail}
        else:
            self.body = {"error": {"status": status, "title": title, "detail": detail}}


class StandInState:
    """Everything the stand-in knows; one lock guards it."""

    def __init__(self, *, token: str, webhook_secret: str, page_size: int):
        self.lock = threading.RLock()
        self.token = token
        self.webhook_secret = webhook_secret
        self.page_size = page_size
        self.balance = 500_000
        self.studies: dict[str, dict] = {}
        self.submissions: dict[str, dict] = {}
        self.bonuses: dict[str, dict] = {}
        self.payments: list[dict] = []
        self.groups: dict[str, dict] = {}
        self.messages: list[dict] = []
        self.subscriptions: dict[str, dict] = {}
        self.deliveries: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        # Failures on demand: [(path substring, status, count left)].
        self.failures: list[list] = []

    def fail(self, *, path: str = "", status: int = 429, count: int = 1) -> None:
        """Answer the next `count` calls whose path contains `path` with `status`."""
        with self.lock:
            self.failures.append([path, status, count])

    def submission_start(self, *, study_id: str, participant_id: str = "") -> dict:
        """A participant starts the study on Prolific: an ACTIVE submission."""
        with self.lock:
            study = self.studies[study_id]
            if study["status"] != "ACTIVE":
                raise ApiError(400, "This study is not active.")
            participant_id = participant_id or _new_id()
            for submission in self.submissions.values():
                if submission["study_id"] == study_id and submission["participant_id"] == (
                    participant_id
                ):
                    return submission
            submission = {
                "id": _new_id(),
                "study_id": study_id,
                "participant_id": participant_id,
                "status": "ACTIVE",
                "started_at": _now(),
                "completed_at": None,
                "study_code": "",
                "reward": study["reward"],
            }
            self.submissions[submission["id"]] = submission
            return submission

    def study_url_for(self, submission: dict) -> str:
        study = self.studies[submission["study_id"]]
        return (
            study["external_study_url"]
            .replace("{{%PROLIFIC_PID%}}", submission["participant_id"])
            .replace("{{%STUDY_ID%}}", submission["study_id"])
            .replace("{{%SESSION_ID%}}", submission["id"])
        )

    def submission_set_status(self, *, submission_id: str, status: str, code: str = "") -> dict:
        with self.lock:
            submission = self.submissions[submission_id]
            submission["status"] = status
            if code:
                submission["study_code"] = code
            if status == "AWAITING REVIEW":
                submission["completed_at"] = _now()
        self.deliver(submission)
        return submission

    def deliver(self, submission: dict) -> None:
        """Send a signed submission.status.change to every confirmed subscription."""
        with self.lock:
            targets = [
                hook["target_url"]
                for hook in self.subscriptions.values()
                if hook["is_enabled"] and hook["event_type"] == "submission.status.change"
            ]
        event = {
            "event_id": _new_id(),
            "event_type": "submission.status.change",
            "resource_id": submission["id"],
            "status": submission["status"],
            "participant_id": submission["participant_id"],
            "study_id": submission["study_id"],
        }
        body = json.dumps(event).encode()
        for target in targets:
            timestamp = str(int(time.time()))
            headers = {
                "Content-Type": "application/json",
                "X-Prolific-Request-Timestamp": timestamp,
                "X-Prolific-Request-Signature": signature(
                    secret=self.webhook_secret, timestamp=timestamp, body=body
                ),
            }
            try:
                status = requests.post(target, data=body, headers=headers, timeout=10).status_code
            except requests.RequestException as error:
                status = str(error)
            with self.lock:
                self.deliveries.append({"target": target, "event": event, "status": status})


class Handler(BaseHTTPRequestHandler):
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
            with self.state.lock:
                self.state.requests.append((method, path))
            self._maybe_fail(path)
            if self.headers.get("Authorization") != f"Token {self.state.token}":
                raise ApiError(401, "Invalid token.", title="Unauthorized")
            body = self._body()
            status, payload, headers = self._api(method, path[len(API) :], query, body)
        except ApiError as error:
            self._send_json(error.status, error.body)
            return
        self._send_json(status, payload, headers)

    def _maybe_fail(self, path: str) -> None:
        with self.state.lock:
            for failure in self.state.failures:
                fragment, status, left = failure
                if left > 0 and fragment in path:
                    failure[2] -= 1
                    if status == 429:
                        raise ApiError(
                            429, "Expected available in 1 second.", title="Throttled", flat=True
                        )
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
        data = json.dumps(payload).encode()
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

    # Prolific's API.
    def _api(self, method: str, path: str, query: dict, body: dict):
        state = self.state
        route = (method, path)
        if route == ("GET", "users/me/"):
            return (
                200,
                {
                    "id": "standin-researcher",
                    "name": "Stand-in Researcher",
                    "email": "researcher@example.org",
                    "currency_code": "GBP",
                    "balance": state.balance,
                    "available_balance": state.balance,
                },
                {},
            )
        if route == ("GET", "filters/"):
            return 200, self._filters(), {}
        if route == ("POST", "study-cost-calculator/"):
            return 200, self._cost(body), {}
        if route == ("POST", "studies/"):
            return 201, self._study_create(body), {}
        if route == ("POST", "submissions/bulk-approve/"):
            return 200, self._bulk_approve(body), {}
        if route == ("POST", "submissions/bonus-payments/"):
            return 201, self._bonus_set_up(body), {}
        if route == ("POST", "participant-groups/"):
            group = {"id": _new_id(), "name": body.get("name", ""), "participants": []}
            with state.lock:
                state.groups[group["id"]] = group
            return 201, {"id": group["id"], "name": group["name"], "participant_count": 0}, {}
        if route == ("POST", "messages/"):
            for field in ("recipient_id", "body"):
                if not body.get(field):
                    raise ApiError(400, {field: ["This field is required."]})
            with state.lock:
                state.messages.append({**body, "sent_at": _now()})
            return 201, {}, {}
        if route == ("POST", "hooks/secrets/"):
            return 201, {"id": _new_id(), "value": state.webhook_secret}, {}
        if route == ("POST", "hooks/subscriptions/"):
            hook = {
                "id": _new_id(),
                "event_type": body.get("event_type", ""),
                "target_url": body.get("target_url", ""),
                "is_enabled": False,
                "secret": _new_id(),
            }
            with state.lock:
                state.subscriptions[hook["id"]] = hook
            public = {key: hook[key] for key in ("id", "event_type", "target_url", "is_enabled")}
            return 200, public, {"X-Hook-Secret": hook["secret"]}
        match = re.fullmatch(r"hooks/subscriptions/(\w+)/", path)
        if match and method == "POST":
            hook = self._get(state.subscriptions, match.group(1), "subscription")
            if body.get("secret") != hook["secret"]:
                raise ApiError(400, {"secret": ["The secret does not match."]})
            hook["is_enabled"] = True
            return 200, {"id": hook["id"], "is_enabled": True}, {}
        match = re.fullmatch(r"studies/(\w+)/(transition/|submissions/)?", path)
        if match:
            study = self._get(state.studies, match.group(1), "study")
            if match.group(2) == "transition/" and method == "POST":
                return 200, self._study_transition(study, body.get("action")), {}
            if match.group(2) == "submissions/" and method == "GET":
                return 200, self._submission_page(study, query), {}
            if match.group(2) is None and method == "GET":
                return 200, study, {}
            if match.group(2) is None and method == "PATCH":
                return 200, self._study_update(study, body), {}
        match = re.fullmatch(r"submissions/(\w+)/(transition/)?", path)
        if match:
            submission = self._get(state.submissions, match.group(1), "submission")
            if match.group(2) and method == "POST":
                return 200, self._submission_transition(submission, body), {}
            if method == "GET":
                return 200, {**submission, "participant": submission["participant_id"]}, {}
        match = re.fullmatch(r"bulk-bonus-payments/(\w+)/pay/", path)
        if match and method == "POST":
            return 202, self._bonus_pay(match.group(1)), {}
        match = re.fullmatch(r"participant-groups/(\w+)/participants/", path)
        if match and method in ("POST", "DELETE"):
            group = self._get(state.groups, match.group(1), "participant group")
            ids = body.get("participant_ids")
            if not isinstance(ids, list) or not ids:
                raise ApiError(400, {"participant_ids": ["A non-empty list is required."]})
            with state.lock:
                if method == "POST":
                    group["participants"].extend(i for i in ids if i not in group["participants"])
                else:
                    group["participants"] = [i for i in group["participants"] if i not in ids]
            return 200, {"results": [{"participant_id": i} for i in group["participants"]]}, {}
        raise ApiError(404, f"No endpoint {method} {path}.", title="Not found")

    @staticmethod
    def _get(table: dict, key: str, what: str) -> dict:
        if key not in table:
            raise ApiError(404, f"No {what} with id {key}.", title="Not found")
        return table[key]

    def _filters(self) -> dict:
        return {
            "results": [
                {
                    "filter_id": "current-country-of-residence",
                    "type": "select",
                    "title": "Current Country of Residence",
                    "choices": COUNTRIES,
                },
                {
                    "filter_id": "first-language",
                    "type": "select",
                    "title": "First Language",
                    "choices": LANGUAGES,
                },
                {
                    "filter_id": "approval_rate",
                    "type": "range",
                    "title": "Approval Rate",
                    "min": 0,
                    "max": 100,
                },
            ],
            "_links": {"next": {"href": None}},
        }

    @staticmethod
    def _cost(body: dict) -> dict:
        try:
            reward = int(body["reward"])
            places = int(body["total_available_places"])
        except (KeyError, TypeError, ValueError):
            raise ApiError(
                400, {"reward": ["Required."], "total_available_places": ["Required."]}
            ) from None
        rewards = reward * places
        fees = round(rewards / 3)
        vat = round(fees * 0.2)
        return {"total_cost": rewards + fees + vat, "rewards": rewards, "fees": fees, "vat": vat}

    def _study_create(self, body: dict) -> dict:
        missing = {
            field: ["This field is required."] for field in STUDY_REQUIRED if field not in body
        }
        if "completion_code" in body:
            missing["completion_code"] = ["Retired: use completion_codes."]
        if "eligibility_requirements" in body:
            missing["eligibility_requirements"] = ["Deprecated: use filters."]
        codes = body.get("completion_codes")
        if "completion_codes" not in missing and (
            not isinstance(codes, list)
            or not codes
            or any(not {"code", "code_type", "actions"} <= set(code) for code in codes)
        ):
            missing["completion_codes"] = ["A list of {code, code_type, actions} is required."]
        for field in ("total_available_places", "reward", "estimated_completion_time"):
            if field not in missing and (not isinstance(body[field], int) or body[field] < 1):
                missing[field] = ["A positive whole number is required."]
        if missing:
            raise ApiError(400, missing)
        study = {**body, "id": _new_id(), "status": "UNPUBLISHED", "date_created": _now()}
        with self.state.lock:
            self.state.studies[study["id"]] = study
        return study

    @staticmethod
    def _study_update(study: dict, body: dict) -> dict:
        places = body.get("total_available_places")
        if places is not None:
            if study["status"] != "UNPUBLISHED" and places < study["total_available_places"]:
                raise ApiError(400, {"total_available_places": ["Places can only be increased."]})
            study["total_available_places"] = places
        return study

    @staticmethod
    def _study_transition(study: dict, action) -> dict:
        allowed = {
            "PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"),
            "PAUSE": ({"ACTIVE"}, "PAUSED"),
            "START": ({"PAUSED"}, "ACTIVE"),
            "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW"),
        }
        if action not in allowed:
            raise ApiError(400, {"action": [f"Unknown action {action!r}."]})
        sources, target = allowed[action]
        if study["status"] not in sources:
            raise ApiError(400, f"A study that is {study['status']} cannot {action}.")
        study["status"] = target
        return study

    def _submission_page(self, study: dict, query: dict) -> dict:
        rows = [s for s in self.state.submissions.values() if s["study_id"] == study["id"]]
        page = int((query.get("page") or ["1"])[0])
        size = self.state.page_size
        chunk = rows[(page - 1) * size : page * size]
        host = self.headers.get("Host")
        base = f"http://{host}{API}studies/{study['id']}/submissions/"
        more = page * size < len(rows)
        return {
            "results": chunk,
            "_links": {
                "self": {"href": f"{base}?{urlencode({'page': page})}"},
                "next": {"href": f"{base}?{urlencode({'page': page + 1})}" if more else None},
            },
            "meta": {"count": len(rows)},
        }

    def _submission_transition(self, submission: dict, body: dict) -> dict:
        action = body.get("action")
        if action not in ("APPROVE", "REJECT"):
            raise ApiError(400, {"action": ["APPROVE or REJECT."]})
        if submission["status"] != "AWAITING REVIEW":
            raise ApiError(
                400, f"The submission is {submission['status']}: it cannot be reviewed yet."
            )
        if action == "REJECT":
            if len(body.get("message") or "") < 100:
                raise ApiError(400, {"message": ["At least 100 characters."]})
            if body.get("rejection_category") not in REJECTION_CATEGORIES:
                raise ApiError(400, {"rejection_category": ["Not a rejection category."]})
        status = "APPROVED" if action == "APPROVE" else "REJECTED"
        return self.state.submission_set_status(submission_id=submission["id"], status=status)

    def _bulk_approve(self, body: dict) -> dict:
        ids = body.get("submission_ids") or []
        if not isinstance(ids, list) or not ids or len(ids) > 1000:
            raise ApiError(400, {"submission_ids": ["Between 1 and 1,000 ids."]})
        for submission_id in ids:
            submission = self._get(self.state.submissions, submission_id, "submission")
            if submission["status"] == "AWAITING REVIEW":
                self.state.submission_set_status(submission_id=submission_id, status="APPROVED")
        return {"message": "The request to bulk approve has been made successfully."}

    def _bonus_set_up(self, body: dict) -> dict:
        study = self._get(self.state.studies, str(body.get("study_id")), "study")
        participants = {
            s["participant_id"]
            for s in self.state.submissions.values()
            if s["study_id"] == study["id"]
        }
        total, rows = 0, []
        for number, line in enumerate(str(body.get("csv_bonuses", "")).splitlines(), 1):
            if not line.strip():
                continue
            participant, _, amount = line.partition(",")
            try:
                cents = int(Decimal(amount.strip()) * 100)
            except InvalidOperation:
                raise ApiError(400, {"csv_bonuses": [f"Line {number}: not an amount."]}) from None
            if participant.strip() not in participants or cents <= 0:
                raise ApiError(400, {"csv_bonuses": [f"Line {number}: no such participant."]})
            rows.append((participant.strip(), cents))
            total += cents
        if not rows:
            raise ApiError(400, {"csv_bonuses": ["No bonuses given."]})
        bonus = {
            "id": _new_id(),
            "study": study["id"],
            "amount": total,
            "fees": round(total / 3),
            "vat": 0,
            "total_amount": total + round(total / 3),
            "rows": rows,
            "paid": False,
        }
        with self.state.lock:
            self.state.bonuses[bonus["id"]] = bonus
        return {key: value for key, value in bonus.items() if key not in ("rows", "paid")}

    def _bonus_pay(self, bulk_id: str) -> dict:
        with self.state.lock:
            bonus = self._get(self.state.bonuses, bulk_id, "bulk bonus payment")
            if bonus["paid"]:
                raise ApiError(400, "This bonus payment has already been paid.")
            bonus["paid"] = True
            for participant, cents in bonus["rows"]:
                self.state.payments.append(
                    {"bulk_id": bulk_id, "participant_id": participant, "cents": cents}
                )
            self.state.balance -= bonus["total_amount"]
        return {}


class StandIn:
    """The stand-in server in a background thread: `url` is the root, `api_url` the base URL."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = "standin-token",
        webhook_secret: str = "standin-webhook-secret",
        page_size: int = 50,
    ):
        self.state = StandInState(token=token, webhook_secret=webhook_secret, page_size=page_size)
        handler = type("BoundHandler", (Handler,), {"state": self.state})
        self.server = ThreadingHTTPServer((host, port), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}{API}"

    def start(self) -> StandIn:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
