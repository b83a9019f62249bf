"""The stand-in's answers to Prolific's studies, submissions and bonuses endpoints, with
Prolific's shapes and statuses; `ROUTES` maps every endpoint the stand-in answers."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from prolific.standin.accounts import AccountRoutes
from prolific.standin.state import (
    API,
    REJECTION_CATEGORIES,
    STUDY_REQUIRED,
    ApiError,
    StandInState,
    new_id,
    now_iso,
    study_cost_cents,
)
from prolific.timing import maximum_allowed_floor

ID = r"([\w-]+)"
# (method, path pattern, handler): the handler takes the path's groups, query and body.
ROUTES = [
    ("GET", r"users/me/", "_me"),
    ("GET", r"filters/", "_filters"),
    ("GET", r"reward-recommendations/", "_reward_recommendations"),
    ("GET", rf"workspaces/{ID}/", "_workspace_get"),
    ("GET", rf"workspaces/{ID}/balance/", "_workspace_balance"),
    ("GET", rf"workspaces/{ID}/projects/", "_workspace_projects"),
    ("GET", rf"projects/{ID}/", "_project_get"),
    ("POST", r"study-cost-calculator/", "_cost"),
    ("POST", r"studies/", "_study_create"),
    ("GET", rf"studies/{ID}/", "_study_get"),
    ("PATCH", rf"studies/{ID}/", "_study_update"),
    ("POST", rf"studies/{ID}/transition/", "_study_transition"),
    ("GET", rf"studies/{ID}/submissions/", "_study_submissions"),
    ("GET", r"submissions/", "_submissions"),
    ("POST", r"submissions/bulk-approve/", "_bulk_approve"),
    ("POST", r"submissions/bonus-payments/", "_bonus_set_up"),
    ("GET", rf"submissions/{ID}/", "_submission_get"),
    ("POST", rf"submissions/{ID}/transition/", "_submission_transition"),
    ("POST", rf"bulk-bonus-payments/{ID}/pay/", "_bonus_pay"),
    ("POST", r"participant-groups/", "_group_create"),
    ("POST", rf"participant-groups/{ID}/participants/", "_group_add"),
    ("DELETE", rf"participant-groups/{ID}/participants/", "_group_remove"),
    ("POST", r"messages/", "_message_send"),
    ("GET", r"hooks/secrets/", "_secrets"),
    ("POST", r"hooks/secrets/", "_secret_create"),
    ("GET", r"hooks/subscriptions/", "_subscriptions"),
    ("POST", r"hooks/subscriptions/", "_subscription_create"),
    ("POST", rf"hooks/subscriptions/{ID}/", "_subscription_confirm"),
    ("DELETE", rf"hooks/subscriptions/{ID}/", "_subscription_delete"),
]
STUDY_ACTIONS = {
    # action: (from, to); STOP's target depends on what is left to review.
    "PUBLISH": ({"UNPUBLISHED"}, "PUBLISHING"),
    "PAUSE": ({"ACTIVE"}, "PAUSED"),
    "START": ({"PAUSED"}, "ACTIVE"),
    "STOP": ({"PUBLISHING", "SCHEDULED", "ACTIVE", "PAUSED"}, ""),
}


class ApiRoutes(AccountRoutes):
    """Mixed into the request handler: `_api` routes a call to its endpoint."""

    state: StandInState
    headers: dict

    def _api(self, method: str, path: str, query: dict, body: dict):
        """(status, payload, headers) of a call to `path` (below /api/v1/, ending in /)."""
        for route_method, pattern, handler in ROUTES:
            match = re.fullmatch(pattern, path)
            if match and route_method == method:
                return getattr(self, handler)(*match.groups(), query=query, body=body)
        raise ApiError(404, f"No endpoint {method} {path}.", title="Not found")

    @staticmethod
    def _whole(body: dict, *fields: str) -> dict:
        """The fields as positive numbers; 400 naming each one missing or not a number."""
        values, errors = {}, {}
        for field in fields:
            value = body.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 1:
                errors[field] = ["A positive number is required."]
            else:
                values[field] = value
        if errors:
            raise ApiError(400, errors)
        return values

    # Studies
    def _cost(self, *, query, body):
        """Only the total, with VAT and fees: "total_cost: Total cost of the study
        including VAT and fees in cents"
        (https://docs.prolific.com/api-reference/studies/calculate-study-cost)."""
        values = self._whole(body, "reward", "total_available_places")
        total = study_cost_cents(reward=values["reward"], places=values["total_available_places"])
        return 200, {"total_cost": total}, {}

    def _study_create(self, *, query, body):
        """A draft study, in `project` when given (which must exist); without one it is the
        personal balance's. Prolific sets the maximum allowed time from the estimate: at
        least 2 + X + 2·sqrt(X) minutes ("Prolific sets a 'Maximum Time Allowed' for each
        study when it is published, which is based on the Estimated Completion Time":
        https://researcher-help.prolific.co/hc/en-gb/articles/360009094694-Setting-the-Maximum-Allowed-Time)."""
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
            or any(
                not isinstance(code, dict) or not {"code", "code_type", "actions"} <= set(code)
                for code in codes
            )
        ):
            missing["completion_codes"] = ["A list of {code, code_type, actions} is required."]
        for field in ("total_available_places", "reward", "estimated_completion_time"):
            value = body.get(field)
            if field not in missing and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                missing[field] = ["A positive whole number is required."]
        project = body.get("project")
        if project is not None and project not in self.state.projects:
            missing["project"] = [f"No project with id {project}."]
        if missing:
            raise ApiError(400, missing)
        floor = maximum_allowed_floor(body["estimated_completion_time"])
        sent = body.get("maximum_allowed_time")
        whole = isinstance(sent, int) and not isinstance(sent, bool)
        allowed = max(sent, floor) if whole else floor
        study = {
            **body,
            "maximum_allowed_time": allowed,
            "id": new_id(),
            "status": "UNPUBLISHED",
            "date_created": now_iso(),
        }
        with self.state.lock:
            self.state.studies[study["id"]] = study
        return 201, study, {}

    def _study_get(self, study_id: str, *, query, body):
        return 200, self._get(self.state.studies, study_id, "study"), {}

    def _study_update(self, study_id: str, *, query, body):
        study = self._get(self.state.studies, study_id, "study")
        if "total_available_places" in body:
            places = self._whole(body, "total_available_places")["total_available_places"]
            if study["status"] != "UNPUBLISHED" and places < study["total_available_places"]:
                raise ApiError(400, {"total_available_places": ["Places can only be increased."]})
            study["total_available_places"] = places
        return 200, study, {}

    def _study_transition(self, study_id: str, *, query, body):
        """PUBLISH checks the study's wallet holds its cost and locks it, then the study is
        PUBLISHING until processed. STOP ends AWAITING REVIEW while submissions await
        review, COMPLETED when none do ("After stopping your study, its status will
        change to 'Awaiting review' if there are submissions to review. If there are no
        submissions to review ... the study will be marked as 'Completed'":
        https://researcher-help.prolific.com/hc/en-gb/articles/360010963354-Pausing-stopping-a-study)."""
        state = self.state
        action = body.get("action")
        if not isinstance(action, str) or action not in STUDY_ACTIONS:
            raise ApiError(400, {"action": [f"Unknown action {action!r}."]})
        with state.lock:
            study = self._get(state.studies, study_id, "study")
            sources, target = STUDY_ACTIONS[action]
            if study["status"] not in sources:
                raise ApiError(400, f"A study that is {study['status']} cannot {action}.")
            if action == "PUBLISH":
                wallet = state.wallet(study)
                cost = study_cost_cents(
                    reward=study["reward"], places=study["total_available_places"]
                )
                if wallet["available_balance"] < cost:
                    raise ApiError(
                        400,
                        f"Insufficient balance: the study costs {cost:.0f} and the "
                        f"balance available is {wallet['available_balance']:.0f}.",
                    )
                wallet["available_balance"] -= cost
            if action == "STOP":
                waiting = any(
                    s["study_id"] == study_id and s["status"] == "AWAITING REVIEW"
                    for s in state.submissions.values()
                )
                target = "AWAITING REVIEW" if waiting else "COMPLETED"
            study["status"] = target
        state.study_event(study_id=study_id)
        return 200, study, {}

    def _study_submissions(self, study_id: str, *, query, body):
        study = self._get(self.state.studies, study_id, "study")
        return 200, self._page(f"studies/{study['id']}/submissions/", study["id"], query), {}

    def _submissions(self, *, query, body):
        """GET /submissions/?study=<id>: every submission, or one study's, in pages
        (https://docs.prolific.com/api-reference/submissions/get-submissions)."""
        study = (query.get("study") or [""])[0]
        return 200, self._page("submissions/", study, query), {}

    def _page(self, path: str, study_id: str, query: dict) -> dict:
        with self.state.lock:
            rows = [
                dict(s)
                for s in self.state.submissions.values()
                if not study_id or s["study_id"] == study_id
            ]
        try:
            page = int((query.get("page") or ["1"])[0])
        except ValueError:
            raise ApiError(400, {"page": ["A whole number is required."]}) from None
        if page < 1:
            raise ApiError(404, "Invalid page.", title="Not found")
        size = self.state.page_size
        chunk = rows[(page - 1) * size : page * size]
        extra = {"study": study_id} if study_id and path == "submissions/" else {}
        base = f"http://{self.headers.get('Host')}{API}{path}"
        more = page * size < len(rows)
        return {
            "results": chunk,
            "_links": {
                "self": {"href": f"{base}?{urlencode({**extra, 'page': page})}"},
                "next": {
                    "href": f"{base}?{urlencode({**extra, 'page': page + 1})}" if more else None
                },
            },
            "meta": {"count": len(rows)},
        }

    # Submissions
    def _submission_get(self, submission_id: str, *, query, body):
        submission = self._get(self.state.submissions, submission_id, "submission")
        return 200, self.state.submission_record(submission), {}

    def _submission_transition(self, submission_id: str, *, query, body):
        """APPROVE or REJECT (a message of 100 characters or more and a category). The
        same request twice is ignored: "this endpoint is idempotent, so if you make the
        same request twice, the second request will be ignored"
        (https://docs.prolific.com/api-reference/submissions/transition-submission)."""
        submission = self._get(self.state.submissions, submission_id, "submission")
        action = body.get("action")
        if action not in ("APPROVE", "REJECT"):
            raise ApiError(400, {"action": ["APPROVE or REJECT."]})
        target = "APPROVED" if action == "APPROVE" else "REJECTED"
        if submission["status"] == target:
            return 200, self.state.submission_record(submission), {}
        if submission["status"] != "AWAITING REVIEW":
            raise ApiError(
                400, f"The submission is {submission['status']}: it cannot be reviewed yet."
            )
        if action == "REJECT":
            message, category = body.get("message"), body.get("rejection_category")
            errors = {}
            if not isinstance(message, str) or len(message) < 100:
                errors["message"] = ["At least 100 characters."]
            if not isinstance(category, str) or category not in REJECTION_CATEGORIES:
                errors["rejection_category"] = ["Not a rejection category."]
            if errors:
                raise ApiError(400, errors)
        self.state.submission_set_status(submission_id=submission["id"], status=target)
        return 200, self.state.submission_record(submission), {}

    def _bulk_approve(self, *, query, body):
        """One of the two documented forms, `{study_id, participant_ids}` or
        `{submission_ids}`, processed asynchronously: the submissions stay AWAITING REVIEW
        until the stand-in's next request
        (https://docs.prolific.com/api-reference/submissions/bulk-approve-submissions)."""
        by_participant = "study_id" in body or "participant_ids" in body
        if by_participant == ("submission_ids" in body):
            raise ApiError(
                400, "Send either study_id with participant_ids, or submission_ids alone."
            )
        ids = body.get("participant_ids" if by_participant else "submission_ids")
        if (
            not isinstance(ids, list)
            or not ids
            or len(ids) > 1000
            or not all(isinstance(key, str) for key in ids)
        ):
            raise ApiError(400, {"submission_ids": ["Between 1 and 1,000 ids."]})
        chosen = []
        for key in ids:
            if by_participant:
                matches = [
                    s["id"]
                    for s in self.state.submissions.values()
                    if s["study_id"] == body.get("study_id") and s["participant_id"] == key
                ]
                if not matches:
                    raise ApiError(400, {"participant_ids": [f"{key} did not take part."]})
                chosen += matches
            else:
                chosen.append(self._get(self.state.submissions, key, "submission")["id"])
        with self.state.lock:
            self.state.approvals_pending.extend(chosen)
        return 200, {"message": "The request to bulk approve has been made successfully."}, {}

    # Bonuses
    def _bonus_set_up(self, *, query, body):
        """Lines of `<participant_id>,<amount>` or `<submission_id>,<amount>`, amounts in
        the study's currency; ids that did not take part in the study: 400."""
        study = self._get(self.state.studies, str(body.get("study_id")), "study")
        taking_part = [s for s in self.state.submissions.values() if s["study_id"] == study["id"]]
        participants = {s["participant_id"]: s["id"] for s in taking_part}
        participants.update({s["id"]: s["id"] for s in taking_part})
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
            rows.append((participants[participant.strip()], cents))
            total += cents
        if not rows:
            raise ApiError(400, {"csv_bonuses": ["No bonuses given."]})
        bonus = {
            "id": new_id(),
            "study": study["id"],
            "amount": total,
            "fees": round(total / 3),
            "vat": 0,
            "total_amount": total + round(total / 3),
            "rows": rows,
        }
        with self.state.lock:
            self.state.bonuses[bonus["id"]] = bonus
        return 201, {key: value for key, value in bonus.items() if key != "rows"}, {}

    def _bonus_pay(self, bulk_id: str, *, query, body):
        """Pays every time it is called, as Prolific documents: "not idempotent. Sending
        multiple requests with the same bulk bonus payment ID will result in participants
        being paid multiple times." (Prolific pays in the following minutes; the stand-in
        at once, from the study's wallet;
        https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments.)"""
        state = self.state
        with state.lock:
            bonus = self._get(state.bonuses, bulk_id, "bulk bonus payment")
            for submission_id, cents in bonus["rows"]:
                submission = state.submissions[submission_id]
                submission.setdefault("bonus_payments", []).append(float(cents))
                state.payments.append(
                    {
                        "bulk_id": bulk_id,
                        "participant_id": submission["participant_id"],
                        "submission_id": submission_id,
                        "cents": cents,
                    }
                )
            state.wallet(state.studies[bonus["study"]])["available_balance"] -= bonus[
                "total_amount"
            ]
        return 202, {}, {}
