"""The stand-in's studies: create, list, read, change, move through Prolific's states,
price, screen out, and delete a draft, with Prolific's shapes and statuses."""

from __future__ import annotations

import re

from prolific.standin.accounts import AccountRoutes
from prolific.standin.state import (
    STUDY_REQUIRED,
    ApiError,
    StandInState,
    cost_parts,
    new_id,
    now_iso,
    study_cost_cents,
)
from prolific.timing import maximum_allowed_floor

STUDY_ACTIONS = {
    # action: (from, to); STOP's target depends on what is left to review.
    "PUBLISH": ({"UNPUBLISHED"}, "PUBLISHING"),
    "PAUSE": ({"ACTIVE"}, "PAUSED"),
    "START": ({"PAUSED"}, "ACTIVE"),
    "STOP": ({"PUBLISHING", "SCHEDULED", "ACTIVE", "PAUSED"}, ""),
}


class StudyRoutes(AccountRoutes):
    """The study endpoints (mixed into ApiRoutes, which routes to them)."""

    state: StandInState
    headers: dict

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
                study["published_at"] = now_iso()
            if action == "STOP":
                waiting = any(
                    s["study_id"] == study_id and s["status"] == "AWAITING REVIEW"
                    for s in state.submissions.values()
                )
                target = "AWAITING REVIEW" if waiting else "COMPLETED"
            study["status"] = target
        state.study_event(study_id=study_id)
        return 200, study, {}

    def _studies(self, *, query, body):
        """Every study, or those in the states of `state` ("Filter studies by status.
        Accepts a string in the format (active|published|...)":
        https://docs.prolific.com/api-reference/studies/get-studies), each in the short
        form that list gives."""
        wanted = {part.strip().upper() for part in re.split(r"[|()]", query_one(query, "state"))}
        wanted.discard("")
        with self.state.lock:
            rows = [
                self._study_short(study)
                for study in self.state.studies.values()
                if not wanted or study["status"] in wanted
            ]
        return 200, self._list(rows, "studies/", query), {}

    def _project_studies(self, project_id: str, *, query, body):
        """The studies of one project
        (https://docs.prolific.com/api-reference/studies/get-project-studies)."""
        self._get(self.state.projects, project_id, "project")
        with self.state.lock:
            rows = [
                self._study_short(study)
                for study in self.state.studies.values()
                if study.get("project") == project_id
            ]
        return 200, self._list(rows, f"projects/{project_id}/studies/", query), {}

    @staticmethod
    def _study_short(study: dict) -> dict:
        keys = ("id", "name", "internal_name", "status", "total_available_places", "reward")
        return {
            **{key: study.get(key) for key in keys},
            "study_type": "SINGLE",
            "date_created": study["date_created"],
            "published_at": study.get("published_at"),
        }

    def _study_delete(self, study_id: str, *, query, body):
        """A draft goes; "Published studies cannot be deleted, but you can delete draft
        studies" (https://docs.prolific.com/api-reference/studies/delete-study)."""
        with self.state.lock:
            study = self._get(self.state.studies, study_id, "study")
            if study["status"] != "UNPUBLISHED":
                raise ApiError(400, "Published studies cannot be deleted.")
            del self.state.studies[study_id]
        return 204, None, {}

    def _study_cost_get(self, study_id: str, *, query, body):
        """Rewards and bonuses, each as rewards, fees and tax with their currency: at the
        time of the request (approved submissions and paid bonuses), or with
        `is_projected` the study's places at its reward ("Returns cost information about
        the study. Default behaviour is to return cost at the time of the request, but
        projected cost can be requested via a query parameter":
        https://docs.prolific.com/api-reference/studies/get-study-cost)."""
        state = self.state
        with state.lock:
            study = self._get(state.studies, study_id, "study")
            currency = state.wallet(study)["currency_code"]
            projected = query_one(query, "is_projected").lower() in ("true", "1")
            approved = sum(
                1
                for submission in state.submissions.values()
                if submission["study_id"] == study_id and submission["status"] == "APPROVED"
            )
            places = study["total_available_places"] if projected else approved
            paid = sum(
                payment["cents"]
                for payment in state.payments
                if state.submissions[payment["submission_id"]]["study_id"] == study_id
            )
        parts = {
            "rewards": cost_parts(study["reward"] * places),
            "bonuses": cost_parts(paid),  # bonuses and screen-out payments, as priced
        }
        return (
            200,
            {
                kind: {
                    name: {"amount": value, "currency": currency} for name, value in costs.items()
                }
                for kind, costs in parts.items()
            },
            {},
        )

    def _screen_out(self, study_id: str, *, query, body):
        """Bulk screen-out, for a custom screening study (`is_custom_screening`): each
        submission, which must be the study's and ACTIVE, becomes SCREENED OUT, is paid
        `bonus_per_submission` (an amount in the study's currency, "e.g. 1.50 for £1.50")
        from the study's wallet, and with `increase_places` its place opens again. A
        repeat finds the submissions screened out already and pays nothing twice
        (Prolific's "Bulk screen out submissions",
        https://docs.prolific.com/docs/api-docs/public/#tag/Submissions/operation/BulkScreenOutSubmissions,
        as Dallinger's Prolific client reproduces it: dallinger/prolific.py)."""
        state = self.state
        ids, bonus = body.get("submission_ids"), body.get("bonus_per_submission")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise ApiError(400, {"submission_ids": ["A non-empty list of ids is required."]})
        if isinstance(bonus, bool) or not isinstance(bonus, (int, float)) or bonus <= 0:
            raise ApiError(400, {"bonus_per_submission": ["A positive amount is required."]})
        with state.lock:
            study = self._get(state.studies, study_id, "study")
            if not study.get("is_custom_screening"):
                raise ApiError(400, "The study was not created with is_custom_screening.")
            for submission_id in ids:
                submission = state.submissions.get(submission_id)
                if submission is None or submission["study_id"] != study_id:
                    raise ApiError(
                        400, {"submission_ids": [f"{submission_id} is not this study's."]}
                    )
                if submission["status"] != "ACTIVE":
                    raise ApiError(
                        400, {"submission_ids": [f"{submission_id} is {submission['status']}."]}
                    )
            cents = round(bonus * 100)
            for submission_id in ids:
                state.submissions[submission_id]["status"] = "SCREENED OUT"
                state.pay(study=study, submission_id=submission_id, cents=cents, bulk_id="")
            if body.get("increase_places"):
                study["total_available_places"] += len(ids)
        currency = state.wallet(study)["currency_code"]
        return (
            200,
            {
                "message": "The request to bulk screen out has been made successfully.",
                "payment_per_participant": {"amount": bonus, "currency": currency},
            },
            {},
        )


def query_one(query: dict, name: str) -> str:
    return (query.get(name) or [""])[0]
