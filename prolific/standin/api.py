"""The stand-in's routes (`ROUTES`: every endpoint it answers) and its answers about
submissions and bonuses, with Prolific's shapes and statuses."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from prolific.standin.messages import MessageRoutes
from prolific.standin.state import REJECTION_CATEGORIES, ApiError, StandInState, cost_parts, new_id
from prolific.standin.studies import StudyRoutes

ID = r"([\w-]+)"
# (method, path pattern, handler): the handler takes the path's groups, query and body.
ROUTES = [
    ("GET", r"users/me/", "_me"),
    ("GET", r"filters/", "_filters"),
    ("GET", r"reward-recommendations/", "_reward_recommendations"),
    ("GET", r"workspaces/", "_workspaces"),
    ("GET", rf"workspaces/{ID}/", "_workspace_get"),
    ("GET", rf"workspaces/{ID}/balance/", "_workspace_balance"),
    ("GET", rf"workspaces/{ID}/projects/", "_workspace_projects"),
    ("GET", rf"projects/{ID}/", "_project_get"),
    ("GET", rf"projects/{ID}/studies/", "_project_studies"),
    ("POST", r"study-cost-calculator/", "_cost"),
    ("GET", r"studies/", "_studies"),
    ("POST", r"studies/", "_study_create"),
    ("GET", rf"studies/{ID}/", "_study_get"),
    ("PATCH", rf"studies/{ID}/", "_study_update"),
    ("DELETE", rf"studies/{ID}/", "_study_delete"),
    ("GET", rf"studies/{ID}/cost/", "_study_cost_get"),
    ("POST", rf"studies/{ID}/transition/", "_study_transition"),
    ("POST", rf"studies/{ID}/screen-out-submissions/", "_screen_out"),
    ("GET", rf"studies/{ID}/submissions/", "_study_submissions"),
    ("GET", r"submissions/", "_submissions"),
    ("POST", r"submissions/bulk-approve/", "_bulk_approve"),
    ("POST", r"submissions/bonus-payments/", "_bonus_set_up"),
    ("GET", rf"submissions/{ID}/", "_submission_get"),
    ("POST", rf"submissions/{ID}/transition/", "_submission_transition"),
    ("POST", rf"bulk-bonus-payments/{ID}/pay/", "_bonus_pay"),
    ("POST", r"participant-groups/", "_group_create"),
    ("GET", rf"participant-groups/{ID}/participants/", "_group_participants"),
    ("POST", rf"participant-groups/{ID}/participants/", "_group_add"),
    ("DELETE", rf"participant-groups/{ID}/participants/", "_group_remove"),
    ("GET", r"messages/", "_messages"),
    ("POST", r"messages/", "_message_send"),
    ("POST", r"messages/bulk/", "_message_bulk"),
    ("POST", r"messages/participant-group/", "_message_group"),
    ("GET", r"messages/unread/", "_messages_unread"),
    ("GET", r"hooks/event-types/", "_event_types"),
    ("GET", r"hooks/secrets/", "_secrets"),
    ("POST", r"hooks/secrets/", "_secret_create"),
    ("GET", r"hooks/subscriptions/", "_subscriptions"),
    ("POST", r"hooks/subscriptions/", "_subscription_create"),
    ("POST", rf"hooks/subscriptions/{ID}/", "_subscription_confirm"),
    ("DELETE", rf"hooks/subscriptions/{ID}/", "_subscription_delete"),
]


class ApiRoutes(StudyRoutes, MessageRoutes):
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

    def _study_submissions(self, study_id: str, *, query, body):
        """A study's submissions, in pages
        (https://docs.prolific.com/api-reference/studies/get-study-submissions)."""
        study = self._get(self.state.studies, study_id, "study")
        return (
            200,
            self._list(
                self._submission_rows(study["id"]), f"studies/{study_id}/submissions/", query
            ),
            {},
        )

    def _submissions(self, *, query, body):
        """GET /submissions/?study=<id>: every submission, or one study's, in pages
        (https://docs.prolific.com/api-reference/submissions/get-submissions)."""
        study = (query.get("study") or [""])[0]
        return 200, self._list(self._submission_rows(study), "submissions/", query), {}

    def _submission_rows(self, study_id: str) -> list[dict]:
        with self.state.lock:
            return [
                dict(s)
                for s in self.state.submissions.values()
                if not study_id or s["study_id"] == study_id
            ]

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
        the study's currency; an id that did not take part is refused by name: "The
        submission and participant IDs need to have taken part in the study in order for
        this call to be successful. If not, you will get a 400 HTTP response back, which
        explains which IDs are incorrect"
        (https://docs.prolific.com/api-reference/bonuses/create-bonus-payments). Fees and
        tax are priced as a study's (`cost_parts`)."""
        study = self._get(self.state.studies, str(body.get("study_id")), "study")
        taking_part = [s for s in self.state.submissions.values() if s["study_id"] == study["id"]]
        participants = {s["participant_id"]: s["id"] for s in taking_part}
        participants.update({s["id"]: s["id"] for s in taking_part})
        rows, wrong = [], []
        for line in str(body.get("csv_bonuses", "")).splitlines():
            if not line.strip():
                continue
            named, _, amount = (part.strip() for part in line.partition(","))
            try:
                cents = int(Decimal(amount) * 100)
            except InvalidOperation:
                cents = 0
            if named not in participants:
                wrong.append(f"{named or '(no id)'} did not take part in this study.")
            elif cents <= 0:
                wrong.append(f"{named}: {amount!r} is not a positive amount.")
            else:
                rows.append((participants[named], cents))
        if wrong or not rows:
            raise ApiError(400, {"csv_bonuses": wrong or ["No bonuses given."]})
        parts = cost_parts(sum(cents for _, cents in rows))
        bonus = {
            "id": new_id(),
            "study": study["id"],
            "amount": parts["rewards"],
            "fees": parts["fees"],
            "vat": parts["tax"],
            "total_amount": sum(parts.values()),
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
            study = state.studies[bonus["study"]]
            for submission_id, cents in bonus["rows"]:
                state.pay(study=study, submission_id=submission_id, cents=cents, bulk_id=bulk_id)
            state.wallet(study)["available_balance"] -= bonus["fees"] + bonus["vat"]
        return 202, {}, {}
