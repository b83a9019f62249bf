"""The stand-in's answers to Prolific's API endpoints, with Prolific's shapes and statuses."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from prolific.standin.state import (
    API,
    REJECTION_CATEGORIES,
    REWARD_RATES,
    STUDY_REQUIRED,
    ApiError,
    StandInState,
    new_id,
    now_iso,
)


class ApiRoutes:
    """Mixed into the request handler: `_api` routes a call to its endpoint."""

    state: StandInState
    headers: dict

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
        if route == ("GET", "reward-recommendations/"):
            return 200, self._reward_recommendations(query), {}
        if route == ("POST", "study-cost-calculator/"):
            return 200, self._cost(body), {}
        if route == ("POST", "studies/"):
            return 201, self._study_create(body), {}
        if route == ("POST", "submissions/bulk-approve/"):
            return 200, self._bulk_approve(body), {}
        if route == ("POST", "submissions/bonus-payments/"):
            return 201, self._bonus_set_up(body), {}
        if route == ("POST", "participant-groups/"):
            group = {"id": new_id(), "name": body.get("name", ""), "participants": []}
            with state.lock:
                state.groups[group["id"]] = group
            return 201, {"id": group["id"], "name": group["name"], "participant_count": 0}, {}
        if route == ("POST", "messages/"):
            # Every call sends a message: it takes no id that would make a repeat safe
            # (https://docs.prolific.com/api-reference/messages/send-message).
            for field in ("recipient_id", "body"):
                if not body.get(field):
                    raise ApiError(400, {field: ["This field is required."]})
            with state.lock:
                state.messages.append({**body, "sent_at": now_iso()})
            return 201, {}, {}
        if route == ("POST", "hooks/secrets/"):
            return 201, {"id": new_id(), "value": state.webhook_secret}, {}
        if route == ("POST", "hooks/subscriptions/"):
            hook = {
                "id": new_id(),
                "event_type": body.get("event_type", ""),
                "target_url": body.get("target_url", ""),
                "is_enabled": False,
                "secret": new_id(),
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
                changed = self._study_transition(study, body.get("action"))
                self.state.study_event(study_id=study["id"])
                return 200, changed, {}
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
                return 200, self.state.submission_record(submission), {}
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
        return {"results": list(self.state.filters), "_links": {"next": {"href": None}}}

    @staticmethod
    def _reward_recommendations(query: dict) -> list[dict]:
        """workspace_id and currency are required; rates are per hour in the currency's
        hundredths, the newest first
        (https://docs.prolific.com/api-reference/reward-recommendations/calculate-reward-recommendations)."""
        workspace = (query.get("workspace_id") or [""])[0]
        currency = (query.get("currency") or [""])[0]
        if not workspace or currency not in REWARD_RATES:
            raise ApiError(
                400, {"workspace_id": ["Required."], "currency": ["One of GBP, USD, EUR."]}
            )
        minimum, recommended = REWARD_RATES[currency]
        return [
            {
                "currency": currency,
                "min_reward_per_hour": minimum,
                "recommended_reward_per_hour": recommended,
            }
        ]

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
        study = {**body, "id": new_id(), "status": "UNPUBLISHED", "date_created": now_iso()}
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
        if not isinstance(ids, list) or not ids or len(ids) > 1000:
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
        return {"message": "The request to bulk approve has been made successfully."}

    def _bonus_set_up(self, body: dict) -> dict:
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
        return {key: value for key, value in bonus.items() if key != "rows"}

    def _bonus_pay(self, bulk_id: str) -> dict:
        """Pays every time it is called, as Prolific documents: "not idempotent. Sending
        multiple requests with the same bulk bonus payment ID will result in participants
        being paid multiple times." (Prolific pays in the following minutes; the stand-in
        at once; https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments.)"""
        with self.state.lock:
            bonus = self._get(self.state.bonuses, bulk_id, "bulk bonus payment")
            for submission_id, cents in bonus["rows"]:
                submission = self.state.submissions[submission_id]
                submission.setdefault("bonus_payments", []).append(float(cents))
                self.state.payments.append(
                    {
                        "bulk_id": bulk_id,
                        "participant_id": submission["participant_id"],
                        "submission_id": submission_id,
                        "cents": cents,
                    }
                )
            self.state.balance -= bonus["total_amount"]
        return {}
