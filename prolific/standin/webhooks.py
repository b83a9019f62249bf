"""The stand-in's webhook deliveries: signed as Prolific signs them, to every enabled
subscription of the event, again on demand with the same X-Event-ID."""

from __future__ import annotations

import json
import secrets
import threading
import time
from datetime import UTC, datetime

import requests

from prolific.signatures import signature


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def new_id() -> str:
    return secrets.token_hex(12)


class WebhookDeliveries:
    """Mixed into StandInState: its lock, studies, subscriptions, secrets and deliveries."""

    def deliver(self, submission: dict) -> None:
        """Send a signed submission.status.change to every confirmed subscription, shaped
        as Prolific documents it: the body is {resource_id, event_type, participant_id,
        status}; the event's id is the X-Event-ID header, the same across redeliveries
        (https://docs.prolific.com/api-reference/webhooks/idempotency-and-the-x-event-id-header);
        X-Timestamp says when the event happened, and X-Prolific-Request-Timestamp (UNIX
        seconds of this request) with X-Prolific-Request-Signature (base64 HMAC-SHA256 of
        timestamp + body with the workspace secret) let the receiver verify it
        (https://docs.prolific.com/api-reference/webhooks/verifying)."""
        event = {
            "resource_id": submission["id"],
            "event_type": "submission.status.change",
            "participant_id": submission["participant_id"],
            "status": submission["status"],
        }
        self.send_event(event=event, event_id=new_id(), happened_at=now_iso())

    def send_event(self, *, event: dict, event_id: str, happened_at: str) -> None:
        with self.lock:
            targets = [
                (hook["target_url"], hook["workspace_id"])
                for hook in self.subscriptions.values()
                if hook["is_enabled"] and hook["event_type"] == event["event_type"]
            ]
        for target, workspace_id in targets:
            body, headers = self.signed_delivery(
                event=event, event_id=event_id, happened_at=happened_at, workspace_id=workspace_id
            )
            try:
                status = requests.post(target, data=body, headers=headers, timeout=10).status_code
            except requests.RequestException as error:
                status = str(error)
            with self.lock:
                self.deliveries.append(
                    {
                        "target": target,
                        "event": event,
                        "event_id": event_id,
                        "happened_at": happened_at,
                        "status": status,
                    }
                )

    def signed_delivery(
        self,
        *,
        event: dict,
        event_id: str,
        happened_at: str,
        sent_at: float | None = None,
        workspace_id: str = "",
    ):
        """The body and headers of one delivery attempt, signed now (or at `sent_at`) with
        the workspace's secret (the default workspace's unless named)."""
        body = json.dumps(event).encode()
        timestamp = str(int(time.time() if sent_at is None else sent_at))
        headers = {
            "Content-Type": "application/json",
            "X-Event-ID": event_id,
            "X-Timestamp": happened_at,
            "X-Prolific-Request-Timestamp": timestamp,
            "X-Prolific-Request-Signature": signature(
                secret=self.secrets[workspace_id or self.default_workspace],
                timestamp=timestamp,
                body=body,
            ),
        }
        return body, headers

    def study_event(self, *, study_id: str, event_type: str = "study.status.change") -> None:
        """Deliver a study event (study.status.change, study.has_high_return_rate) with the
        study's id as resource_id and its status."""
        with self.lock:
            study = self.studies[study_id]
            event = {"resource_id": study_id, "event_type": event_type, "status": study["status"]}
        # Delivered in the background, as Prolific does, not inside the call that caused it.
        threading.Thread(
            target=self.send_event,
            kwargs={"event": event, "event_id": new_id(), "happened_at": now_iso()},
            daemon=True,
        ).start()

    def redeliver(self, index: int = -1) -> None:
        """Deliver an event again, as Prolific does after a failure: same X-Event-ID and
        body, a new request timestamp and signature."""
        with self.lock:
            delivery = self.deliveries[index]
        self.send_event(
            event=delivery["event"],
            event_id=delivery["event_id"],
            happened_at=delivery["happened_at"],
        )
