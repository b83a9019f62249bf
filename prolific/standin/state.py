"""The stand-in's state: workspaces and their wallets, projects, studies, submissions,
bonuses, groups, messages, hooks, in memory; failures on demand, and signed webhook
deliveries (prolific.standin.webhooks).

Money sits in wallets as Prolific keeps it: each workspace has its own balance
(https://docs.prolific.com/api-reference/workspaces/get-workspace-balance), and the
researcher's personal balance (GET /users/me/) is another. A study created in a
project spends its workspace's wallet; one created without a project spends the
personal balance. Publishing checks the wallet holds the study's cost and locks it
("Checking if your account has sufficient balance to pay participants; Locking the
amount required": https://docs.prolific.com/api-reference/studies).
"""

from __future__ import annotations

import threading

from prolific.standin.webhooks import WebhookDeliveries, new_id, now_iso

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
# GET /reward-recommendations/: (minimum, recommended) per hour, in hundredths.
REWARD_RATES = {"GBP": (900, 1200), "USD": (1200, 1500), "EUR": (1000, 1350)}
# Submissions that have used up a place of the study (done, and not rejected or returned).
DONE = {"AWAITING REVIEW", "APPROVED"}


def cost_parts(rewards: float) -> dict:
    """The stand-in account's price of `rewards`: a third on top as Prolific's fee, and tax
    (VAT) of a fifth on that fee."""
    fees = round(rewards / 3)
    return {"rewards": rewards, "fees": fees, "tax": round(fees * 0.2)}


def study_cost_cents(*, reward: float, places: float) -> float:
    """A study's total price; Prolific's calculator returns only the total
    (https://docs.prolific.com/api-reference/studies/calculate-study-cost)."""
    return float(sum(cost_parts(reward * places).values()))


class ApiError(Exception):
    def __init__(self, status: int, detail, *, title: str = "Bad request", flat: bool = False):
        super().__init__(str(detail))
        self.status = status
        if flat:
            self.body = {"message": title, "detail": detail}
        else:
            self.body = {"error": {"status": status, "title": title, "detail": detail}}


class StandInState(WebhookDeliveries):
    """Everything the stand-in knows; one lock guards it."""

    def __init__(
        self,
        *,
        token: str,
        webhook_secret: str,
        page_size: int,
        workspace_id: str = "standin-workspace",
        project_id: str = "standin-project",
    ):
        self.lock = threading.RLock()
        self.token = token
        self.page_size = page_size
        # The researcher's personal balance (GET /users/me/), apart from any workspace's.
        self.personal = {"currency_code": "GBP", "available_balance": 500_000}
        # A workspace's wallet: GET /workspaces/{id}/balance/ in the currency's hundredths.
        self.workspaces: dict[str, dict] = {
            workspace_id: {
                "id": workspace_id,
                "title": "Stand-in workspace",
                "currency_code": "GBP",
                "available_balance": 500_000,
            }
        }
        self.projects: dict[str, dict] = {
            project_id: {"id": project_id, "title": "Stand-in project", "workspace": workspace_id}
        }
        # One hook secret per workspace ("you can only have one active secret per workspace
        # at a time": https://docs.prolific.com/documentation/core-concepts/
        # monitoring-study-progress).
        self.secrets: dict[str, str] = {workspace_id: webhook_secret}
        self.default_workspace = workspace_id
        # Studies published and still being processed by Prolific (PUBLISHING); they
        # become ACTIVE at the next request unless this is set.
        self.publishing_held = False
        # How POST /hooks/subscriptions/ answers: "results", as the API reference documents
        # it; "object", the subscription itself, as Prolific's monitoring guide describes
        # it; "empty", a fault on demand (no subscription in the answer).
        self.subscription_shape = "results"
        # GET /filters/: what the account may filter on (tests remove or rename entries).
        self.filters: list[dict] = [
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
        ]
        self.studies: dict[str, dict] = {}
        self.submissions: dict[str, dict] = {}
        self.bonuses: dict[str, dict] = {}
        self.payments: list[dict] = []
        self.groups: dict[str, dict] = {}
        # Messages the researcher sent, and those participants sent the researcher (with
        # `read`), as GET /messages/ and /messages/unread/ list them.
        self.messages: list[dict] = []
        self.received: list[dict] = []
        self.subscriptions: dict[str, dict] = {}
        self.deliveries: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        # Bulk approvals received and not processed yet (Prolific does them asynchronously).
        self.approvals_pending: list[str] = []
        # Failures on demand: [(path substring, status, count left, after, delay)].
        self.failures: list[list] = []

    def fail(
        self,
        *,
        path: str = "",
        status: int = 429,
        count: int = 1,
        after: bool = False,
        delay: float = 0.0,
    ) -> None:
        """Answer the next `count` calls whose path contains `path` with `status`; with
        `after`, the call is carried out first (a 5xx or a time-out after Prolific acted),
        and with `delay` the answer comes that many seconds late (without `after`: a call
        that hangs and does nothing)."""
        with self.lock:
            self.failures.append([path, status, count, after, delay])

    def background_process(self) -> None:
        """What Prolific does on its own between calls (before each later request): carry
        out the bulk approvals received so far, and finish publishing studies."""
        with self.lock:
            pending, self.approvals_pending = self.approvals_pending, []
        for submission_id in pending:
            if self.submissions[submission_id]["status"] == "AWAITING REVIEW":
                self.submission_set_status(submission_id=submission_id, status="APPROVED")
        self.publishing_process()

    def publishing_process(self) -> None:
        """PUBLISHING is transient: "Study publish has been triggered and is being
        processed" (https://docs.prolific.com/api-reference/studies/the-study-object); the
        study is ACTIVE once processed, unless `publishing_held` keeps it publishing."""
        with self.lock:
            if self.publishing_held:
                return
            published = [s["id"] for s in self.studies.values() if s["status"] == "PUBLISHING"]
            for study_id in published:
                self.studies[study_id]["status"] = "ACTIVE"
        for study_id in published:
            self.study_event(study_id=study_id)

    def pay(self, *, study: dict, submission_id: str, cents: float, bulk_id: str) -> None:
        """Pay a participant on a submission from the study's wallet (a bonus, or a
        screen-out's payment); recorded on the submission as Prolific lists it."""
        with self.lock:
            submission = self.submissions[submission_id]
            submission.setdefault("bonus_payments", []).append(float(cents))
            self.payments.append(
                {
                    "bulk_id": bulk_id,
                    "participant_id": submission["participant_id"],
                    "submission_id": submission_id,
                    "cents": cents,
                }
            )
            self.wallet(study)["available_balance"] -= cents

    def participant_writes(self, *, participant_id: str, body: str, study_id: str) -> dict:
        """A participant messages the researcher (unread until the researcher reads it on
        Prolific's site: the API never marks it read)."""
        message = {
            "id": new_id(),
            "sender_id": participant_id,
            "body": body,
            "sent_at": now_iso(),
            "channel_id": f"{participant_id}-standin-researcher",
            "type": "message",
            "data": {"study_id": study_id, "category": "feedback"},
            "read": False,
        }
        with self.lock:
            self.received.append(message)
        return message

    def wallet(self, study: dict) -> dict:
        """The wallet a study spends: its project's workspace, else the personal balance."""
        project = self.projects.get(study.get("project") or "")
        if project is not None:
            return self.workspaces[project["workspace"]]
        return self.personal

    @property
    def balance(self) -> int:
        """The personal balance, in hundredths."""
        return self.personal["available_balance"]

    @balance.setter
    def balance(self, value: int) -> None:
        self.personal["available_balance"] = value

    def submission_record(self, submission: dict) -> dict:
        """One submission as GET /submissions/{id}/ returns it: `participant` and
        `entered_code` (the listing says participant_id and study_code), and
        `bonus_payments`, the bonuses paid on it in cents
        (https://docs.prolific.com/api-reference/submissions/get-submission)."""
        with self.lock:
            return {
                "id": submission["id"],
                "started_at": submission["started_at"],
                "status": submission["status"],
                "study_id": submission["study_id"],
                "completed_at": submission["completed_at"],
                "entered_code": submission["study_code"] or None,
                "participant": submission["participant_id"],
                "bonus_payments": list(submission.get("bonus_payments", [])),
            }

    def submission_start(self, *, study_id: str, participant_id: str = "") -> dict:
        """A participant starts the study on Prolific: an ACTIVE submission."""
        self.publishing_process()
        with self.lock:
            study = self.studies[study_id]
            if study["status"] != "ACTIVE":
                raise ApiError(400, "This study is not active.")
            participant_id = participant_id or new_id()
            for submission in self.submissions.values():
                if submission["study_id"] == study_id and submission["participant_id"] == (
                    participant_id
                ):
                    return submission
            submission = {
                "id": new_id(),
                "study_id": study_id,
                "participant_id": participant_id,
                "status": "ACTIVE",
                "started_at": now_iso(),
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
        """Move a submission on (the participant completes, returns or times out; the
        researcher approves or rejects). A full study whose done submissions await review
        is paused when one of them is rejected or returned: "If a study has reached the
        total number of submissions and these show as 'Awaiting review', it will be
        automatically paused when either of these occurs: You reject one of those
        submissions; A participant decides to return their submission"
        (https://researcher-help.prolific.com/hc/en-gb/articles/360010963354-Pausing-stopping-a-study)."""
        paused = False
        with self.lock:
            submission = self.submissions[submission_id]
            study = self.studies[submission["study_id"]]
            was_full = self.places_done(study["id"]) >= study["total_available_places"]
            before = submission["status"]
            submission["status"] = status
            if code:
                submission["study_code"] = code
            if status == "AWAITING REVIEW":
                submission["completed_at"] = now_iso()
            if (
                before == "AWAITING REVIEW"
                and status in ("REJECTED", "RETURNED")
                and was_full
                and study["status"] in ("ACTIVE", "AWAITING REVIEW")
            ):
                study["status"] = "PAUSED"
                paused = True
        self.deliver(submission)
        if paused:
            self.study_event(study_id=study["id"])
        return submission

    def places_done(self, study_id: str) -> int:
        with self.lock:
            return sum(
                1
                for submission in self.submissions.values()
                if submission["study_id"] == study_id and submission["status"] in DONE
            )

    def study_complete(self, *, study_id: str) -> None:
        """Prolific completes the study (every place approved): COMPLETED, and its event."""
        with self.lock:
            self.studies[study_id]["status"] = "COMPLETED"
        self.study_event(study_id=study_id)
