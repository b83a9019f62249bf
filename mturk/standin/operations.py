"""The Requester API operations the stand-in answers, one `op_<Operation>` method each,
in the documented request and response shapes and with MTurk's documented errors."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime, timedelta

from mturk.standin.shapes import (
    EXTERNAL_URL,
    PAGE_LIMIT,
    SYSTEM_QUALIFICATIONS,
    RequestError,
    assignment_out,
    epoch,
    hit_out,
    money,
    new_id,
    required,
    utc_now,
)


class RequesterOperations:
    """Mixed into MTurkState: every method runs under the state's lock (see dispatch)."""

    def op_GetAccountBalance(self, params):
        return {"AvailableBalance": f"{self.balance:.2f}"}

    def op_CreateHITType(self, params):
        for field in ("AssignmentDurationInSeconds", "Reward", "Title", "Description"):
            required(params, field)
        key = json.dumps(params, sort_keys=True)
        for hit_type_id, hit_type in self.hit_types.items():
            if hit_type["key"] == key:
                return {"HITTypeId": hit_type_id}
        for requirement in params.get("QualificationRequirements", []):
            qualification_id = requirement["QualificationTypeId"]
            known = qualification_id in self.qualification_types
            if not known and qualification_id not in SYSTEM_QUALIFICATIONS:
                raise RequestError(f"Qualification type {qualification_id} does not exist.")
        hit_type_id = new_id()
        self.hit_types[hit_type_id] = {
            **params,
            "key": key,
            "AutoApprovalDelayInSeconds": int(params.get("AutoApprovalDelayInSeconds", 2592000)),
            "AssignmentDurationInSeconds": int(params["AssignmentDurationInSeconds"]),
        }
        return {"HITTypeId": hit_type_id}

    def op_CreateHITWithHITType(self, params):
        hit_type_id = required(params, "HITTypeId")
        if hit_type_id not in self.hit_types:
            raise RequestError(f"HIT type {hit_type_id} does not exist.")
        token = params.get("UniqueRequestToken")
        if self._token_seen(token):
            raise RequestError(
                f"The HIT with this UniqueRequestToken already exists. HITId: "
                f"{self._token_seen(token)}"
            )
        question = required(params, "Question")
        match = EXTERNAL_URL.search(question)
        if match is None:
            raise RequestError("Question must be an ExternalQuestion with an ExternalURL.")
        max_assignments = int(params.get("MaxAssignments", 1))
        if not 1 <= max_assignments <= 1000000000:
            raise RequestError("MaxAssignments must be at least 1.")
        hit_type = self.hit_types[hit_type_id]
        now = utc_now()
        hit = {
            "HITId": new_id(),
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
            "Expiration": now + timedelta(seconds=int(required(params, "LifetimeInSeconds"))),
            "AssignmentDurationInSeconds": hit_type["AssignmentDurationInSeconds"],
            "QualificationRequirements": hit_type.get("QualificationRequirements", []),
            "RequesterAnnotation": params.get("RequesterAnnotation", ""),
        }
        self.hits[hit["HITId"]] = hit
        self._token_keep(token, hit["HITId"])
        self._refresh_hit(hit)
        return {"HIT": hit_out(hit)}

    def op_GetHIT(self, params):
        return {"HIT": hit_out(self._hit(required(params, "HITId")))}

    def op_ListAssignmentsForHIT(self, params):
        # "retrieves completed assignments for a HIT", of the statuses asked: "Submitted |
        # Approved | Rejected" (https://docs.aws.amazon.com/goto/WebAPI/
        # mturk-requester-2017-01-17/ListAssignmentsForHIT): what vouches for an answer
        # (mturk.sync); an assignment still being worked on is not listed.
        hit = self._hit(required(params, "HITId"))
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
        response = {"NumResults": len(page), "Assignments": [assignment_out(a) for a in page]}
        if start + limit < len(rows):
            response["NextToken"] = str(start + limit)
        return response

    def op_GetAssignment(self, params):
        # "retrieves an assignment with an AssignmentStatus value of Submitted, Approved, or
        # Rejected" (https://docs.aws.amazon.com/goto/WebAPI/mturk-requester-2017-01-17/
        # GetAssignment): an assignment still being worked on (Accepted) is not found.
        assignment = self._assignment(required(params, "AssignmentId"))
        if assignment["AssignmentStatus"] not in ("Submitted", "Approved", "Rejected"):
            raise RequestError(f"Assignment {assignment['AssignmentId']} does not exist.")
        return {
            "Assignment": assignment_out(assignment),
            "HIT": hit_out(self.hits[assignment["HITId"]]),
        }

    def op_ApproveAssignment(self, params):
        assignment = self._assignment(required(params, "AssignmentId"))
        status = assignment["AssignmentStatus"]
        if status == "Rejected" and not params.get("OverrideRejection"):
            raise RequestError("This assignment was rejected; set OverrideRejection to approve.")
        # "This works only on rejected assignments that were submitted within the previous
        # 30 days" (ApproveAssignment, Requester API 2017-01-17).
        submitted = assignment.get("SubmitTime")
        if status == "Rejected" and submitted and submitted < utc_now() - timedelta(days=30):
            raise RequestError(
                "This assignment was submitted more than 30 days ago; its rejection cannot "
                "be overridden."
            )
        if status not in ("Submitted", "Rejected"):
            raise RequestError(
                f"This operation can be called with a status of: Submitted (it is {status})."
            )
        hit = self.hits[assignment["HITId"]]
        self.balance -= money(hit["Reward"])
        assignment.update(
            AssignmentStatus="Approved",
            ApprovalTime=utc_now(),
            RequesterFeedback=params.get("RequesterFeedback", ""),
        )
        return {}

    def op_RejectAssignment(self, params):
        assignment = self._assignment(required(params, "AssignmentId"))
        feedback = required(params, "RequesterFeedback")
        if assignment["AssignmentStatus"] != "Submitted":
            raise RequestError(
                "This operation can be called with a status of: Submitted "
                f"(it is {assignment['AssignmentStatus']})."
            )
        assignment.update(
            AssignmentStatus="Rejected", RejectionTime=utc_now(), RequesterFeedback=feedback
        )
        return {}

    def op_SendBonus(self, params):
        # Pays each time it is called, unless its UniqueRequestToken was seen in the last 24
        # hours: then "subsequent calls return an error with a message containing the
        # request ID" (https://docs.aws.amazon.com/AWSMechTurk/latest/
        # AWSMechanicalTurkRequester/RequestTokens.html).
        worker_id = required(params, "WorkerId")
        assignment = self._assignment(required(params, "AssignmentId"))
        reason = required(params, "Reason")
        amount = money(required(params, "BonusAmount"))
        if assignment["WorkerId"] != worker_id:
            raise RequestError("The worker did not work on this assignment.")
        if assignment["AssignmentStatus"] not in ("Approved", "Submitted"):
            raise RequestError("A bonus can be paid only on a submitted or approved assignment.")
        token = params.get("UniqueRequestToken")
        if self._token_seen(token):
            raise RequestError(
                "The bonus for this UniqueRequestToken already exists "
                f"(request {self._token_seen(token)})."
            )
        if amount <= 0 or amount > self.balance:
            raise RequestError("The bonus amount is not valid or exceeds the balance.")
        self.balance -= amount
        request_id = new_id()
        self._token_keep(token, request_id)
        self.bonuses.append(
            {
                "WorkerId": worker_id,
                "BonusAmount": f"{amount:.2f}",
                "AssignmentId": assignment["AssignmentId"],
                "Reason": reason,
                "GrantTime": utc_now(),
            }
        )
        return {}

    def op_ListBonusPayments(self, params):
        # Every bonus paid on the assignment or HIT, with "WorkerId, BonusAmount,
        # AssignmentId, Reason and GrantTime" (https://docs.aws.amazon.com/goto/WebAPI/
        # mturk-requester-2017-01-17/ListBonusPayments): what settles a bonus whose call
        # got no answer (mturk.actions).
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
            "BonusPayments": [{**b, "GrantTime": epoch(b["GrantTime"])} for b in rows],
        }

    def op_CreateWorkerBlock(self, params):
        self.blocks[required(params, "WorkerId")] = required(params, "Reason")
        return {}

    def op_DeleteWorkerBlock(self, params):
        self.blocks.pop(required(params, "WorkerId"), None)
        return {}

    def op_ListWorkerBlocks(self, params):
        blocks = [{"WorkerId": w, "Reason": r} for w, r in sorted(self.blocks.items())]
        return {"NumResults": len(blocks), "WorkerBlocks": blocks}

    def op_NotifyWorkers(self, params):
        # Sends again each time: it takes no request token.
        worker_ids = required(params, "WorkerIds")
        if not 1 <= len(worker_ids) <= 100:
            raise RequestError("WorkerIds must name 1 to 100 workers.")
        # MTurk notifies only workers who have worked for this requester; the others come
        # back in NotifyWorkersFailureStatuses with a HardFailure code.
        known = self.workers_seen
        failures = [
            {
                "NotifyWorkersFailureCode": "HardFailure",
                "NotifyWorkersFailureMessage": "The worker has not worked for you.",
                "WorkerId": worker_id,
            }
            for worker_id in worker_ids
            if worker_id not in known
        ]
        self.notifications.append(
            {
                "Subject": required(params, "Subject"),
                "MessageText": required(params, "MessageText"),
                "WorkerIds": [w for w in worker_ids if w in known],
            }
        )
        return {"NotifyWorkersFailureStatuses": failures}

    def op_UpdateExpirationForHIT(self, params):
        hit = self._hit(required(params, "HITId"))
        expire_at = required(params, "ExpireAt")
        moment = datetime.fromtimestamp(float(expire_at), UTC)
        hit["Expiration"] = max(moment, utc_now())
        self._refresh_hit(hit)
        return {}

    def op_CreateAdditionalAssignmentsForHIT(self, params):
        hit = self._hit(required(params, "HITId"))
        extra = int(required(params, "NumberOfAdditionalAssignments"))
        token = params.get("UniqueRequestToken")
        if self._token_seen(token):
            raise RequestError("This UniqueRequestToken has already been processed.")
        if extra < 1:
            raise RequestError("NumberOfAdditionalAssignments must be at least 1.")
        if hit["MaxAssignments"] < 10 <= hit["MaxAssignments"] + extra:
            raise RequestError(
                "A HIT created with fewer than 10 assignments cannot be extended to 10 or more."
            )
        hit["MaxAssignments"] += extra
        self._token_keep(token, hit["HITId"])
        self._refresh_hit(hit)
        return {}

    def op_CreateQualificationType(self, params):
        name = required(params, "Name")
        if any(q["Name"] == name for q in self.qualification_types.values()):
            raise RequestError(f"You have already created a QualificationType with name {name}.")
        qualification = {
            "QualificationTypeId": new_id(),
            "CreationTime": utc_now(),
            "Name": name,
            "Description": required(params, "Description"),
            "Keywords": params.get("Keywords", ""),
            "QualificationTypeStatus": required(params, "QualificationTypeStatus"),
            "Test": params.get("Test", ""),
            "AnswerKey": params.get("AnswerKey", ""),
            "TestDurationInSeconds": params.get("TestDurationInSeconds"),
            "AutoGranted": bool(params.get("AutoGranted", False)),
            "IsRequestable": bool(params.get("Test")) or bool(params.get("AutoGranted")),
        }
        self.qualification_types[qualification["QualificationTypeId"]] = qualification
        out = {k: v for k, v in qualification.items() if k != "AnswerKey"}
        return {"QualificationType": {**out, "CreationTime": epoch(out["CreationTime"])}}

    def op_ListQualificationTypes(self, params):
        query = params.get("Query", "").lower()
        rows = [
            {k: v for k, v in q.items() if k not in ("AnswerKey", "CreationTime")}
            for q in self.qualification_types.values()
            if query in q["Name"].lower()
        ]
        return {"NumResults": len(rows), "QualificationTypes": rows}

    def op_AssociateQualificationWithWorker(self, params):
        qualification_id = required(params, "QualificationTypeId")
        if qualification_id not in self.qualification_types:
            raise RequestError(f"Qualification type {qualification_id} does not exist.")
        key = (qualification_id, required(params, "WorkerId"))
        self.qualification_scores[key] = int(params.get("IntegerValue", 1))
        return {}

    def op_DisassociateQualificationFromWorker(self, params):
        key = (required(params, "QualificationTypeId"), required(params, "WorkerId"))
        self.qualification_scores.pop(key, None)
        return {}
