"""The only module that talks HTTP to Prolific: one session, timeouts, retries, clear errors.

PROLIFIC_API_URL may name the stand-in. Calls are retried on time-outs, 429 and 5xx, except
those a repeat would double (a bonus's pay call, a message, a subscription): sent once, a
failure reported with its status (0: no answer) for the caller to judge.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin

from django.conf import settings

from common.outside_transaction import ensure_outside_transaction
from crowd.providers import ProviderError

if TYPE_CHECKING:
    import requests

RETRY_STATUSES = {429, 500, 502, 503, 504}


class ProlificError(ProviderError):
    """Prolific refused or failed a call; `status` is the HTTP status (0: unreachable)."""

    def __init__(self, message: str, *, status: int = 0, body: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body = body or {}

    @property
    def refused(self) -> bool:
        """Prolific answered no (a 4xx other than 429): the call did nothing."""
        return 400 <= self.status < 500 and self.status != 429


def error_message(body) -> str:
    """Prolific's own words from either error shape:
    {"error": {"status", "title", "detail", ...}} or {"message", "detail"}."""
    if not isinstance(body, dict):
        return ""
    if isinstance(body.get("error"), dict):
        error = body["error"]
        parts = [error.get("title"), _detail_text(error.get("detail"))]
    else:
        parts = [body.get("message"), _detail_text(body.get("detail"))]
    return ": ".join(str(part) for part in parts if part)


def _detail_text(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_detail_text(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return ", ".join(_detail_text(value) for value in detail)
    return "" if detail is None else str(detail)


class ProlificClient:
    """Keyword-only operations on Prolific's API (https://docs.prolific.com/api-reference)."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        token: str | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        backoff: float | None = None,
    ):
        self.base_url = (base_url or settings.PROLIFIC_API_URL).rstrip("/") + "/"
        self.token = settings.PROLIFIC_API_TOKEN if token is None else token
        self.timeout = settings.PROLIFIC_TIMEOUT_SECONDS if timeout is None else timeout
        self.retries = settings.PROLIFIC_RETRIES if retries is None else retries
        self.backoff = settings.PROLIFIC_BACKOFF_SECONDS if backoff is None else backoff
        # Imported with the first client: a web worker that serves no Prolific participant
        # and no Prolific page never loads requests (6 MiB).
        import requests

        self.session = requests.Session()
        self.session.headers.update(
            {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        )

    def request(
        self, method: str, path: str, *, json=None, params=None, retry: bool = True
    ) -> requests.Response:
        """One call with exponential backoff on 429 and 5xx (Retry-After honoured);
        `retry=False` sends it exactly once."""
        import requests

        ensure_outside_transaction(f"Prolific {method} {path}")
        if not self.token:
            raise ProlificError("PROLIFIC_API_TOKEN is not set: Parable cannot reach Prolific.")
        url = path if path.startswith("http") else urljoin(self.base_url, path.lstrip("/"))
        response = None
        retries = self.retries if retry else 0
        for attempt in range(retries + 1):
            try:
                response = self.session.request(
                    method, url, json=json, params=params, timeout=self.timeout
                )
            except requests.RequestException as error:
                response = None
                if attempt == retries:
                    raise ProlificError(f"Prolific could not be reached: {error}") from error
            else:
                if response.status_code not in RETRY_STATUSES or attempt == retries:
                    break
            time.sleep(self._delay(attempt, response))
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {}
            detail = error_message(body) or response.reason or "no detail given"
            raise ProlificError(
                f"Prolific answered {response.status_code} to {method} {path}: {detail}",
                status=response.status_code,
                body=body,
            )
        return response

    def _delay(self, attempt: int, response) -> float:
        wait = self.backoff * (2**attempt)
        retry_after = response.headers.get("Retry-After") if response is not None else None
        if retry_after and retry_after.isdigit():
            wait = max(wait, min(float(retry_after), 60.0))
        return wait

    def _json(self, method: str, path: str, **kwargs) -> dict:
        response = self.request(method, path, **kwargs)
        return response.json() if response.content else {}

    def _all_pages(self, path: str) -> list[dict]:
        """Every result of a listing, following `_links.next` until it is null."""
        results, url = [], path
        while url:
            page = self._json("GET", url)
            results.extend(page.get("results", []))
            url = ((page.get("_links") or {}).get("next") or {}).get("href")
        return results

    # Account, workspace and eligibility
    def me(self) -> dict:
        """The researcher; its balance is the personal one, not a workspace's."""
        return self._json("GET", "users/me/")

    def workspace_get(self, *, workspace_id: str) -> dict:
        return self._json("GET", f"workspaces/{workspace_id}/")

    def workspace_balance(self, *, workspace_id: str) -> dict:
        """The workspace's wallet: `available_balance` (what is left after funds locked by
        active studies) and `currency_code`, in the currency's hundredths
        (https://docs.prolific.com/api-reference/workspaces/get-workspace-balance)."""
        return self._json("GET", f"workspaces/{workspace_id}/balance/")

    def project_get(self, *, project_id: str) -> dict:
        """A project, with the id of the workspace it is in (`workspace`)."""
        return self._json("GET", f"projects/{project_id}/")

    def filters(self) -> list[dict]:
        return self._all_pages("filters/")

    def reward_recommendations(self, *, workspace_id: str, currency: str) -> list[dict]:
        """Prolific's minimum and recommended hourly rewards (cents), newest first."""
        return self._json(
            "GET",
            "reward-recommendations/",
            params={"workspace_id": workspace_id, "currency": currency},
        )

    # Studies
    def study_cost(self, *, reward: int, total_available_places: int) -> dict:
        """{"total_cost"}: rewards, fees and VAT together, in the account's hundredths; Prolific
        gives no breakdown (https://docs.prolific.com/api-reference/studies/calculate-study-cost)."""
        return self._json(
            "POST",
            "study-cost-calculator/",
            json={"reward": reward, "total_available_places": total_available_places},
        )

    def study_create(self, *, fields: dict) -> dict:
        return self._json("POST", "studies/", json=fields)

    def study_get(self, *, study_id: str) -> dict:
        return self._json("GET", f"studies/{study_id}/")

    def study_update(self, *, study_id: str, fields: dict) -> dict:
        return self._json("PATCH", f"studies/{study_id}/", json=fields)

    def study_transition(self, *, study_id: str, action: str) -> dict:
        """PUBLISH, PAUSE, START (resume) or STOP."""
        return self._json("POST", f"studies/{study_id}/transition/", json={"action": action})

    def study_submissions(self, *, study_id: str) -> list[dict]:
        return self._all_pages(f"studies/{study_id}/submissions/")

    # Submissions
    def submission_get(self, *, submission_id: str) -> dict:
        return self._json("GET", f"submissions/{submission_id}/")

    def submission_transition(
        self, *, submission_id: str, action: str, message: str = "", rejection_category: str = ""
    ) -> dict:
        body = {"action": action}
        if action == "REJECT":
            body.update({"message": message, "rejection_category": rejection_category})
        return self._json("POST", f"submissions/{submission_id}/transition/", json=body)

    def bonus_set_up(self, *, study_id: str, csv_bonuses: str) -> dict:
        """Step one of a bonus: Prolific prices it and returns the bulk payment's id
        (it pays nothing, so it may be retried)."""
        return self._json(
            "POST",
            "submissions/bonus-payments/",
            json={"study_id": study_id, "csv_bonuses": csv_bonuses},
        )

    def bonus_pay(self, *, bulk_id: str) -> dict:
        """Step two: not idempotent on Prolific, so never retried here."""
        return self._json("POST", f"bulk-bonus-payments/{bulk_id}/pay/", retry=False)

    # Participants
    def participant_group_create(self, *, name: str, workspace_id: str) -> dict:
        """A group in the workspace (Prolific needs a workspace or organisation id)."""
        return self._json(
            "POST", "participant-groups/", json={"name": name, "workspace_id": workspace_id}
        )

    def participant_group_add(self, *, group_id: str, participant_ids: list[str]) -> dict:
        return self._json(
            "POST",
            f"participant-groups/{group_id}/participants/",
            json={"participant_ids": participant_ids},
        )

    def participant_group_remove(self, *, group_id: str, participant_ids: list[str]) -> dict:
        return self._json(
            "DELETE",
            f"participant-groups/{group_id}/participants/",
            json={"participant_ids": participant_ids},
        )

    def message_send(self, *, recipient_id: str, study_id: str, body: str) -> dict:
        """One message, sent once: the call takes no id that would make a repeat safe
        (https://docs.prolific.com/api-reference/messages/send-message; only broadcasts
        take one), so a time-out or 5xx is not sent again to deliver it twice."""
        return self._json(
            "POST",
            "messages/",
            json={"recipient_id": recipient_id, "study_id": study_id, "body": body},
            retry=False,
        )

    # Webhooks
    def hook_subscriptions(self, *, workspace_id: str) -> list[dict]:
        return self._all_pages(f"hooks/subscriptions/?workspace_id={quote(workspace_id)}")

    def hook_secrets(self, *, workspace_id: str) -> list[dict]:
        """The workspace's secret ({id, value, workspace_id}), if it has one."""
        return self._all_pages(f"hooks/secrets/?workspace_id={quote(workspace_id)}")

    def hook_subscribe(self, *, event_type: str, target_url: str, workspace_id: str) -> dict:
        """Subscribe, then confirm with the X-Hook-Secret Prolific returns. The answer is
        read as documented, 201 {"results": [subscription]}
        (https://docs.prolific.com/api-reference/webhooks/create-subscription), or as the
        subscription itself (Prolific's monitoring guide, which its CLI follows)."""
        response = self.request(
            "POST",
            "hooks/subscriptions/",
            json={"event_type": event_type, "target_url": target_url, "workspace_id": workspace_id},
            retry=False,  # a repeat would make a second subscription
        )
        answer = response.json() if response.content else {}
        results = answer.get("results") if isinstance(answer, dict) else None
        subscription = results[0] if isinstance(results, list) and results else answer
        subscription_id = subscription.get("id") if isinstance(subscription, dict) else None
        if not subscription_id:
            raise ProlificError(
                f"Prolific answered {response.status_code} to the subscription to {event_type} "
                f"with no subscription id, so it cannot be confirmed: {str(answer)[:200]}",
                status=response.status_code,
            )
        return self._json(
            "POST",
            f"hooks/subscriptions/{subscription_id}/",
            json={"secret": response.headers.get("X-Hook-Secret", "")},
        )

    def hook_unsubscribe(self, *, subscription_id: str) -> None:
        self.request("DELETE", f"hooks/subscriptions/{subscription_id}/")
