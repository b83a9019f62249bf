"""The stand-in's memory: HITs, assignments, workers' blocks and qualifications, bonuses,
behind one lock; the worker side (accept, submit) and the API's dispatch."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from decimal import Decimal

from mturk.standin.operations import RequesterOperations
from mturk.standin.shapes import (
    SYSTEM_QUALIFICATIONS,
    RequestError,
    answer_xml,
    new_id,
    utc_now,
    with_params,
)


class MTurkState(RequesterOperations):
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
        # Workers who have worked for this requester (here or before the stand-in started).
        self.workers_seen: set[str] = set()
        # UniqueRequestTokens seen: token -> (what it made, when), forgotten after 24 hours.
        self.tokens: dict[str, tuple[str, object]] = {}
        # Failures on demand: [operation, code, after, delay] (see fail_next).
        self.failures: list[list] = []
        self.calls: list[str] = []

    # Test and demo helpers ---------------------------------------------------------

    def fail_next(
        self,
        operation: str,
        code: str = "ThrottlingException",
        times: int = 1,
        *,
        after: bool = False,
        delay: float = 0.0,
    ):
        """Make the next `times` calls of `operation` fail with `code`, `delay` seconds late
        (a call that hangs, then fails, having done nothing). With `after`, the call is
        carried out first: then its late answer is the error (`code`), or with `code` ""
        the normal answer (a call that acted, then hung)."""
        with self.lock:
            self.failures.extend([[operation, code, after, delay] for _ in range(times)])

    def tokens_expire(self) -> None:
        """As 24 hours later: MTurk no longer remembers the request tokens seen so far."""
        with self.lock:
            self.tokens.clear()

    def accept(self, *, hit_id: str, worker_id: str) -> dict:
        """A worker accepts a HIT: an Accepted assignment, as on MTurk's worker site."""
        with self.lock:
            hit = self._hit(hit_id)
            if worker_id in self.blocks:
                raise RequestError(f"Worker {worker_id} is blocked by this requester.")
            if hit["HITStatus"] != "Assignable" or hit["Expiration"] <= utc_now():
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
            now = utc_now()
            assignment = {
                "AssignmentId": new_id(),
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
            self.workers_seen.add(worker_id)
            self._refresh_hit(hit)
            return dict(assignment)

    def task_url(self, *, assignment_id: str, submit_to: str) -> str:
        """The ExternalQuestion URL with the parameters MTurk adds for an accepted assignment."""
        with self.lock:
            assignment = self.assignments[assignment_id]
            hit = self.hits[assignment["HITId"]]
            return with_params(
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
            now = utc_now()
            assignment.update(
                AssignmentStatus="Submitted",
                SubmitTime=now,
                AutoApprovalTime=now + timedelta(seconds=delay),
                Answer=answer_xml(answers),
            )
            self._refresh_hit(hit)
            return dict(assignment)

    # The API ------------------------------------------------------------------------

    def dispatch(self, operation: str, params: dict) -> dict:
        with self.lock:
            self.calls.append(operation)
            failure = next((f for f in self.failures if f[0] == operation), None)
            if failure is not None:
                self.failures.remove(failure)
            response = None
            if failure is None or failure[2]:
                handler = getattr(self, f"op_{operation}", None)
                if handler is None:
                    raise RequestError(f"Operation {operation} is not supported by the stand-in.")
                self._auto_approve()
                response = handler(params)
        if failure is not None:  # its answer comes late (the lock released), or as an error
            if failure[3]:
                time.sleep(failure[3])
            if failure[1] or not failure[2]:
                raise _failure_error(operation, failure[1] or "ServiceFault")
        return response

    # Internals ----------------------------------------------------------------------

    def _token_seen(self, token: str | None) -> str | None:
        """What a UniqueRequestToken made, while MTurk remembers it: "The unique token
        expires after 24 hours" (https://docs.aws.amazon.com/AWSMechTurk/latest/
        AWSMechanicalTurkRequester/RequestTokens.html); after that a call with it acts
        again."""
        seen = self.tokens.get(token) if token else None
        if seen is None or seen[1] < utc_now() - timedelta(hours=24):
            return None
        return seen[0]

    def _token_keep(self, token: str | None, made: str) -> None:
        if token:
            self.tokens[token] = (made, utc_now())

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
        if hit["Expiration"] <= utc_now() or hit["NumberOfAssignmentsAvailable"] == 0:
            hit["HITStatus"] = "Reviewable" if counts["Accepted"] == 0 else "Unassignable"
        else:
            hit["HITStatus"] = "Assignable"

    def _auto_approve(self) -> None:
        now = utc_now()
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


def _failure_error(operation: str, code: str) -> RequestError:
    if code == "ServiceFault":
        return RequestError("Service is unavailable.", kind=code, status=500)
    if code == "ThrottlingException":
        return RequestError("Rate exceeded", kind=code, status=400)
    return RequestError(f"{operation} was refused (as asked).", kind=code)
