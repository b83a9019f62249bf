"""A local stand-in of MTurk: the Requester API's JSON 1.1 protocol and a tiny worker site.

Real boto3 talks to it through `endpoint_url` (POST / with `X-Amz-Target:
MTurkRequesterServiceV20170117.<Operation>`), and it answers in the documented
request and response shapes, with MTurk's `RequestError` and `ServiceFault`
errors. HITs, assignments, workers, qualifications, blocks and bonuses live in
memory. Its worker side: `GET /` lists HITs, `GET /accept?hit=..&worker=..`
accepts one and frames the ExternalQuestion URL with MTurk's parameters, and
`POST /mturk/externalSubmit` receives the finished assignment, as MTurk does.

`fail_next(operation, code, times)` makes the next calls fail (ThrottlingException,
ServiceFault) so retries can be seen.
"""

from __future__ import annotations

import html
import json
import re
import threading
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
PAGE_LIMIT = 100
_EXTERNAL_URL = re.compile(r"<ExternalURL>\s*(.*?)\s*</ExternalURL>", re.DOTALL)


class RequestError(Exception):
    def __init__(self, message: str, *, kind: str = "RequestError", status: int = 400):
        super().__init__(message)
        self.kind = kind
        self.status = status


def _now() -> datetime:
    return datetime.now(UTC)


def _epoch(moment: datetime | None):
    return moment.timestamp() if moment else None


def _new_id() -> str:
    return uuid.uuid4().hex[:30].upper()


class MTurkState:
    """Everything the stand-in knows, behind one lock."""

    def __init__(self, *, balance: str = "10000.00"):
        self.lock = threading.RLock()
        self.balance = Decimal(balance)
        self.hit_types: dict[str, dict] = {}
        self.hits: dict[str, dict] = {}
        self.assignments: dict[str, dict] = {}
        self.bonuses: list[dict] = []
        self.blocks: dict[str, str] = {}
        self.qualification_types: dict[str, dict] = {}
        self.qualification_scores: dict[tuple[str, str], int] = {}
        self.notifications: list[dict] = []
        self.tokens: dict[str, str] = {}
        self.failures: list[tuple[str, str]] = []
        self.calls: list[str] = []

    # Test and demo helpers ---------------------------------------------------------

    def fail_next(self, operation: str, code: str = "ThrottlingException", times: int = 1):
        with self.lock:
            self.failures.extend([(operation, code)] * times)

    def accept(self, *, hit_id: str, worker_id: str) -> dict:
        """A worker accepts a HIT: an Accepted assignment, as on MTurk's worker site."""
        with self.lock:
            hit = self._hit(hit_id)
            if worker_id in self.blocks:
                raise RequestError(f"Worker {worker_id} is blocked by this requester.")
            if hit["HITStatus"] != "Assignable" or hit["Expiration"] <= _now():
                raise RequestError(f"HIT {hit_id} is not available.")
            mine = [
                a
                for a in self.assignments.values()
                if a["HITId"] == hit_id and a["WorkerId"] == worker_id
            ]
            if mine:
                raise RequestError(f"Worker {worker_id} already worked on HIT {hit_id}.")
            self._check_qualifications(hit, worker_id)
            live = [
                a
                for a in self.assignments.values()
                if a["HITId"] == hit_id and a["AssignmentStatus"] != "Returned"
            ]
            if len(live) >= hit["MaxAssignments"]:
                raise RequestError(f"HIT {hit_id} has no assignments left.")
            hit_type = self.hit_types[hit["HITTypeId"]]
            now = _now()
            assignment = {
                "AssignmentId": _new_id(),
                "WorkerId": worker_id,
                "HITId": hit_id,
                "AssignmentStatus": "Accepted",
                "AcceptTime": now,
                "Deadline": now + timedelta(seconds=hit_type["AssignmentDurationInSeconds"]),
                "AutoApprovalTime": None,
                "SubmitTime": None,
                "ApprovalTime": None,
                "RejectionTime": None,
                "Answer": "",
                "RequesterFeedback": "",
            }
            self.assignments[assignment["AssignmentId"]] = assignment
            self._refresh_hit(hit)
            return dict(assignment)

    def task_url(self, *, assignment_id: str, submit_to: str) -> str:
        """The ExternalQuestion URL with the parameters MTurk adds for an accepted assignment."""
        with self.lock:
            assignment = self.assignments[assignment_id]
            hit = self.hits[assignment["HITId"]]
            return _with_params(
                hit["ExternalURL"],
                assignmentId=assignment_id,
                hitId=hit["HITId"],
                workerId=assignment["WorkerId"],
                turkSubmitTo=submit_to,
            )

    def submit(self, *, assignment_id: str, answers: dict[str, str]) -> dict:
        """The worker's browser posted to /mturk/externalSubmit."""
        with self.lock:
            assignment = self.assignments.get(assignment_id)
            if assignment is None or assignment["AssignmentStatus"] != "Accepted":
                raise RequestError(f"Assignment {assignment_id} is not open for submission.")
            hit = self.hits[assignment["HITId"]]
            delay = self.hit_types[hit["HITTypeId"]]["AutoApprovalDelayInSeconds"]
            now = _now()
            assignment.update(
                AssignmentStatus="Submitted",
                SubmitTime=now,
                AutoApprovalTime=now + timedelta(seconds=delay),
                Answer=_answer_xml(answers),
            )
            self._refresh_hit(hit)
            return dict(assignment)

    # The API ------------------------------------------------------------------------

    def dispatch(self, operation: str, params: dict) -> dict:
        with self.lock:
            self.calls.append(operation)
            for index, (failing, code) in enumerate(self.failures):
                if failing == operation:
                    del self.failures[index]
                    if code == "ServiceFault":
                        raise RequestError("Service is unavailable.", kind=code, status=500)
                    raise RequestError("Rate exceeded", kind=code, status=400)
            handler = getattr(self, f"op_{operation}", None)
            if handler is None:
                raise RequestError(f"Operation {operation} is not supported by the stand-in.")
            self._auto_approve()
            return handler(params)

    def op_GetAccountBalance(self, params):
        return {"AvailableBalance": f"{self.balance:.2f}"}

    def op_CreateHITType(self, params):
        for field in ("AssignmentDurationInSeconds", "Reward", "Title", "Description"):
            _required(params, field)
        key = json.dumps(params, sort_keys=True)
        for hit_type_id, hit_type in self.hit_types.items():
            if hit_type["key"] == key:
                return {"HITTypeId": hit_type_id}
        for requirement in params.get("QualificationRequirements", []):
            qualification_id = requirement["QualificationTypeId"]
            known = qualification_id in self.qualification_types
            if not known and qualification_id not in SYSTEM_QUALIFICATIONS:
                raise RequestError(f"Qualification type {qualification_id} does not exist.")
        hit_type_id = _new_id()
        self.hit_types[hit_type_id] = {
            **params,
            "key": key,
            "AutoApprovalDelayInSeconds": int(params.get("AutoApprovalDelayInSeconds", 2592000)),
            "AssignmentDurationInSeconds": int(params["AssignmentDurationInSeconds"]),
        }
        return {"HITTypeId": hit_type_id}

    def op_CreateHITWithHITType(self, params):
        hit_type_id = _required(params, "HITTypeId")
        if hit_type_id not in self.hit_types:
            raise RequestError(f"HIT type {hit_type_id} does not exist.")
        token = params.get("UniqueRequestToken")
        if token and token in self.tokens:
            raise RequestError(
                f"The HIT with this UniqueRequestToken already exists. HITId: {self.tokens[token]}"
            )
        question = _required(params, "Question")
        match = _EXTERNAL_URL.search(question)
        if match is None:
            raise RequestError("Question must be an ExternalQuestion with an ExternalURL.")
        max_assignments = int(params.get("MaxAssignments", 1))
        if not 1 <= max_assignments <= 1000000000:
            raise RequestError("MaxAssignments must be at least 1.")
        hit_type = self.hit_types[hit_type_id]
        now = _now()
        hit = {
            "HITId": _new_id(),
            "HITTypeId": hit_type_id,
            "HITGroupId": hit_type_id,
            "CreationTime": now,
            "Title": hit_type["Title"],
            "Description": hit_type["Description"],
            "Keywords": hit_type.get("Keywords", ""),
            "Question": question,
            "ExternalURL": html.unescape(match.group(1)),
            "HITStatus": "Assignable",
            "MaxAssignments": max_assignments,
            "Reward": hit_type["Reward"],
            "AutoApprovalDelayInSeconds": hit_type["AutoApprovalDelayInSeconds"],
            "Expiration": now + timedelta(seconds=int(_required(params, "LifetimeInSeconds"))),
            "AssignmentDurationInSeconds": hit_type["AssignmentDurationInSeconds"],
            "QualificationRequirements": hit_type.get("QualificationRequirements", []),
            "RequesterAnnotation": params.get("RequesterAnnotation", ""),
        }
        self.hits[hit["HITId"]] = hit
        if token:
            self.tokens[token] = hit["HITId"]
        self._refresh_hit(hit)
        return {"HIT": _hit_out(hit)}

    def op_GetHIT(self, params):
        return {"HIT": _hit_out(self._hit(_required(params, "HITId")))}

    def op_ListAssignmentsForHIT(self, params):
        hit = self._hit(_required(params, "HITId"))
        statuses = params.get("AssignmentStatuses") or ["Submitted", "Approved", "Rejected"]
        limit = min(int(params.get("MaxResults", PAGE_LIMIT)), PAGE_LIMIT)
        rows = sorted(
            (
                a
                for a in self.assignments.values()
                if a["HITId"] == hit["HITId"] and a["AssignmentStatus"] in statuses
            ),
            key=lambda a: (a["AcceptTime"], a["AssignmentId"]),
        )
        start = int(params.get("NextToken") or 0)
        page = rows[start : start + limit]
        response = {"NumResults": len(page), "Assignments": [_assignment_out(a) for a in page]}
        if start + limit < len(rows):
            response["NextToken"] = str(start + limit)
        return response

    def op_GetAssignment(self, params):
        assignment = self._assignment(_required(params, "AssignmentId"))
        return {
            "Assignment": _assignment_out(assignment),
            "HIT": _hit_out(self.hits[assignment["HITId"]]),
        }

    def op_ApproveAssignment(self, params):
        assignment = self._assignment(_required(params, "AssignmentId"))
        status = assignment["AssignmentStatus"]
        if status == "Rejected" and not params.get("OverrideRejection"):
            raise RequestError("This assignment was rejected; set OverrideRejection to approve.")
        if status not in ("Submitted", "Rejected"):
            raise RequestError(
                f"This operation can be called with a status of: Submitted (it is {status})."
            )
        hit = self.hits[assignment["HITId"]]
        self.balance -= _money(hit["Reward"])
        assignment.update(
            AssignmentStatus="Approved",
            ApprovalTime=_now(),
            RequesterFeedback=params.get("RequesterFeedback", ""),
        )
        return {}

    def op_RejectAssignment(self, params):
        assignment = self._assignment(_required(params, "AssignmentId"))
        feedback = _required(params, "RequesterFeedback")
        if assignment["AssignmentStatus"] != "Submitted":
            raise RequestError(
                "This operation can be called with a status of: Submitted "
                f"(it is {assignment['AssignmentStatus']})."
            )
        assignment.update(
            AssignmentStatus="Rejected", RejectionTime=_now(), RequesterFeedback=feedback
        )
        return {}

    def op_SendBonus(self, params):
        worker_id = _required(params, "WorkerId")
        assignment = self._assignment(_required(params, "AssignmentId"))
        reason = _required(params, "Reason")
        amount = _money(_required(params, "BonusAmount"))
        if assignment["WorkerId"] != worker_id:
            raise RequestError("The worker did not work on this assignment.")
        if assignment["AssignmentStatus"] not in ("Approved", "Submitted"):
            raise RequestError("A bonus can be paid only on a submitted or approved assignment.")
        token = params.get("UniqueRequestToken")
        if token and token in self.tokens:
            raise RequestError(
                "The bonus for this UniqueRequestToken already exists "
                f"(request {self.tokens[token]})."
            )
        if amount <= 0 or amount > self.balance:
            raise RequestError("The bonus amount is not valid or exceeds the balance.")
        self.balance -= amount
        request_id = _new_id()
        if token:
            self.tokens[token] = request_id
        self.bonuses.append(
            {
                "WorkerId": worker_id,
                "BonusAmount": f"{amount:.2f}",
                "AssignmentId": assignment["AssignmentId"],
                "Reason": reason,
                "GrantTime": _now(),
            }
        )
        return {}

    def op_ListBonusPayments(self, params):
        assignment_id = params.get("AssignmentId")
        hit_id = params.get("HITId")
        rows = [
            b
            for b in self.bonuses
            if (assignment_id and b["AssignmentId"] == assignment_id)
            or (hit_id and self.assignments[b["AssignmentId"]]["HITId"] == hit_id)
        ]
        return {
            "NumResults": len(rows),
            "BonusPayments": [{**b, "GrantTime": _epoch(b["GrantTime"])} for b in rows],
        }

    def op_CreateWorkerBlock(self, params):
        self.blocks[_required(params, "WorkerId")] = _required(params, "Reason")
        return {}

    def op_DeleteWorkerBlock(self, params):
        self.blocks.pop(_required(params, "WorkerId"), None)
        return {}

    def op_ListWorkerBlocks(self, params):
        blocks = [{"WorkerId": w, "Reason": r} for w, r in sorted(self.blocks.items())]
        return {"NumResults": len(blocks), "WorkerBlocks": blocks}

    def op_NotifyWorkers(self, params):
        worker_ids = _required(params, "WorkerIds")
        if not 1 <= len(worker_ids) <= 100:
            raise RequestError("WorkerIds must name 1 to 100 workers.")
        self.notifications.append(
            {
                "Subject": _required(params, "Subject"),
                "MessageText": _required(params, "MessageText"),
                "WorkerIds": list(worker_ids),
            }
        )
        return {"NotifyWorkersFailureStatuses": []}

    def op_UpdateExpirationForHIT(self, params):
        hit = self._hit(_required(params, "HITId"))
        expire_at = _required(params, "ExpireAt")
        moment = datetime.fromtimestamp(float(expire_at), UTC)
        hit["Expiration"] = max(moment, _now())
        self._refresh_hit(hit)
        return {}

    def op_CreateAdditionalAssignmentsForHIT(self, params):
        hit = self._hit(_required(params, "HITId"))
        extra = int(_required(params, "NumberOfAdditionalAssignments"))
        token = params.get("UniqueRequestToken")
        if token and token in self.tokens:
            raise RequestError("This UniqueRequestToken has already been processed.")
        if extra < 1:
            raise RequestError("NumberOfAdditionalAssignments must be at least 1.")
        if hit["MaxAssignments"] < 10 <= hit["MaxAssignments"] + extra:
            raise RequestError(
                "A HIT created with fewer than 10 assignments cannot be extended to 10 or more."
            )
        hit["MaxAssignments"] += extra
        if token:
            self.tokens[token] = hit["HITId"]
        self._refresh_hit(hit)
        return {}

    def op_CreateQualificationType(self, params):
        name = _required(params, "Name")
        if any(q["Name"] == name for q in self.qualification_types.values()):
            raise RequestError(f"You have already created a QualificationType with name {name}.")
        qualification = {
            "QualificationTypeId": _new_id(),
            "CreationTime": _now(),
            "Name": name,
            "Description": _required(params, "Description"),
            "Keywords": params.get("Keywords", ""),
            "QualificationTypeStatus": _required(params, "QualificationTypeStatus"),
            "Test": params.get("Test", ""),
            "AnswerKey": params.get("AnswerKey", ""),
            "TestDurationInSeconds": params.get("TestDurationInSeconds"),
            "AutoGranted": bool(params.get("AutoGranted", False)),
            "IsRequestable": bool(params.get("Test")) or bool(params.get("AutoGranted")),
        }
        self.qualification_types[qualification["QualificationTypeId"]] = qualification
        out = {k: v for k, v in qualification.items() if k != "AnswerKey"}
        return {"QualificationType": {**out, "CreationTime": _epoch(out["CreationTime"])}}

    def op_ListQualificationTypes(self, params):
        query = params.get("Query", "").lower()
        rows = [
            {k: v for k, v in q.items() if k not in ("AnswerKey", "CreationTime")}
            for q in self.qualification_types.values()
            if query in q["Name"].lower()
        ]
        return {"NumResults": len(rows), "QualificationTypes": rows}

    def op_AssociateQualificationWithWorker(self, params):
        qualification_id = _required(params, "QualificationTypeId")
        if qualification_id not in self.qualification_types:
            raise RequestError(f"Qualification type {qualification_id} does not exist.")
        key = (qualification_id, _required(params, "WorkerId"))
        self.qualification_scores[key] = int(params.get("IntegerValue", 1))
        return {}

    def op_DisassociateQualificationFromWorker(self, params):
        key = (_required(params, "QualificationTypeId"), _required(params, "WorkerId"))
        self.qualification_scores.pop(key, None)
        return {}

    # Internals ----------------------------------------------------------------------

    def _hit(self, hit_id: str) -> dict:
        hit = self.hits.get(hit_id)
        if hit is None:
            raise RequestError(f"Hit {hit_id} does not exist.")
        return hit

    def _assignment(self, assignment_id: str) -> dict:
        assignment = self.assignments.get(assignment_id)
        if assignment is None:
            raise RequestError(f"Assignment {assignment_id} does not exist.")
        return assignment

    def _refresh_hit(self, hit: dict) -> None:
        mine = [a for a in self.assignments.values() if a["HITId"] == hit["HITId"]]
        counts = {
            status: sum(1 for a in mine if a["AssignmentStatus"] == status)
            for status in ("Accepted", "Submitted", "Approved", "Rejected")
        }
        done = counts["Submitted"] + counts["Approved"] + counts["Rejected"]
        hit["NumberOfAssignmentsPending"] = counts["Accepted"]
        hit["NumberOfAssignmentsCompleted"] = counts["Approved"] + counts["Rejected"]
        hit["NumberOfAssignmentsAvailable"] = max(
            0, hit["MaxAssignments"] - counts["Accepted"] - done
        )
        if hit["Expiration"] <= _now() or hit["NumberOfAssignmentsAvailable"] == 0:
            hit["HITStatus"] = "Reviewable" if counts["Accepted"] == 0 else "Unassignable"
        else:
            hit["HITStatus"] = "Assignable"

    def _auto_approve(self) -> None:
        now = _now()
        for assignment in self.assignments.values():
            due = assignment["AutoApprovalTime"]
            if assignment["AssignmentStatus"] == "Submitted" and due and due <= now:
                assignment.update(AssignmentStatus="Approved", ApprovalTime=due)

    def _check_qualifications(self, hit: dict, worker_id: str) -> None:
        for requirement in hit["QualificationRequirements"]:
            qualification_id = requirement["QualificationTypeId"]
            if qualification_id in SYSTEM_QUALIFICATIONS:
                continue  # the stand-in's workers meet MTurk's system qualifications
            score = self.qualification_scores.get((qualification_id, worker_id))
            comparator = requirement["Comparator"]
            values = requirement.get("IntegerValues", [])
            met = {
                "DoesNotExist": score is None,
                "Exists": score is not None,
                "GreaterThanOrEqualTo": score is not None and values and score >= values[0],
                "EqualTo": score is not None and values and score == values[0],
            }.get(comparator, True)
            if not met:
                raise RequestError(f"Worker {worker_id} does not meet the HIT's qualifications.")


# MTurk's system qualification type ids (locale, approval rate, approved HITs, masters).
SYSTEM_QUALIFICATIONS = {
    "00000000000000000071",
    "000000000000000000L0",
    "00000000000000000040",
    "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
    "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",
}


def _required(params: dict, field: str):
    value = params.get(field)
    if value in (None, "", []):
        raise RequestError(f"Value null at '{field}' failed to satisfy constraint: required.")
    return value


def _money(value) -> Decimal:
    try:
        return Decimal(str(value))
    except ArithmeticError:
        raise RequestError(f"{value!r} is not an amount in US dollars.") from None


def _with_params(url: str, **params) -> str:
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params)}"


def _answer_xml(answers: dict[str, str]) -> str:
    fields = "".join(
        f"<Answer><QuestionIdentifier>{html.escape(k)}</QuestionIdentifier>"
        f"<FreeText>{html.escape(v)}</FreeText></Answer>"
        for k, v in answers.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><QuestionFormAnswers xmlns="http://'
        "mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/"
        f'QuestionFormAnswers.xsd">{fields}</QuestionFormAnswers>'
    )


def _hit_out(hit: dict) -> dict:
    out = {k: v for k, v in hit.items() if k != "ExternalURL"}
    out["CreationTime"] = _epoch(hit["CreationTime"])
    out["Expiration"] = _epoch(hit["Expiration"])
    return out


def _assignment_out(assignment: dict) -> dict:
    out = dict(assignment)
    for field in (
        "AcceptTime",
        "Deadline",
        "AutoApprovalTime",
        "SubmitTime",
        "ApprovalTime",
        "RejectionTime",
    ):
        out[field] = _epoch(out[field])
    return {k: v for k, v in out.items() if v is not None and v != ""}


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
    preview = _with_params(
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
