"""The stand-in's messages: to one participant, to several, to a participant group, and
the researcher's conversations and unread messages. Every send delivers again: none takes
an id that would make a repeat safe (https://docs.prolific.com/api-reference/messages/send-message;
Prolific's client sends once: prolific.client.ProlificClient.message_send)."""

from __future__ import annotations

from datetime import datetime

from prolific.standin.accounts import AccountRoutes
from prolific.standin.state import ApiError, StandInState, new_id, now_iso

RESEARCHER = "standin-researcher"


class MessageRoutes(AccountRoutes):
    """The message endpoints (mixed into ApiRoutes, which routes to them)."""

    state: StandInState

    @staticmethod
    def _required(body: dict, *fields: str) -> None:
        errors = {
            field: ["This field is required."]
            for field in fields
            if not isinstance(body.get(field), str) or not body.get(field)
        }
        if errors:
            raise ApiError(400, errors)

    def _deliver(self, recipients: list[str], body: dict) -> None:
        with self.state.lock:
            for recipient in recipients:
                self.state.messages.append(
                    {
                        "id": new_id(),
                        "sender_id": RESEARCHER,
                        "recipient_id": recipient,
                        "body": body["body"],
                        "study_id": body.get("study_id") or "",
                        "sent_at": now_iso(),
                        "type": "message",
                    }
                )

    def _message_send(self, *, query, body):
        """recipient_id, body and study_id are all required; answered 204 with no body
        ("The message has been sent": https://docs.prolific.com/api-reference/messages/send-message,
        204 No Content as Prolific's CLI reads it: prolific-oss/cli
        specs/002-fix-message-api-conformance/contracts/send-message.md)."""
        self._required(body, "recipient_id", "body", "study_id")
        self._deliver([body["recipient_id"]], body)
        return 204, None, {}

    def _message_bulk(self, *, query, body):
        """One message to each of `ids`, 204
        (https://docs.prolific.com/api-reference/messages/bulk-message-participants)."""
        self._required(body, "body", "study_id")
        ids = body.get("ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise ApiError(400, {"ids": ["A non-empty list of participant ids is required."]})
        self._deliver(ids, body)
        return 204, None, {}

    def _message_group(self, *, query, body):
        """One message to each participant of a group; study_id optional, 204
        (https://docs.prolific.com/api-reference/messages/send-message-to-participant-group)."""
        self._required(body, "participant_group_id", "body")
        group = self._get(self.state.groups, body["participant_group_id"], "participant group")
        self._deliver(list(group["participants"]), body)
        return 204, None, {}

    @staticmethod
    def _public(message: dict) -> dict:
        keys = ("id", "sender_id", "body", "sent_at", "channel_id", "type", "data")
        shown = {key: message.get(key) for key in keys}
        if "recipient_id" in message:  # one the researcher sent
            shown["channel_id"] = f"{message['recipient_id']}-{RESEARCHER}"
            shown["data"] = {"study_id": message["study_id"]}
        return shown

    def _messages(self, *, query, body):
        """The researcher's messages with `user_id`, or with everyone since
        `created_after` (ISO 8601); one of them is required
        (https://docs.prolific.com/api-reference/messages/get-messages)."""
        user = (query.get("user_id") or [""])[0]
        after = (query.get("created_after") or [""])[0]
        if not user and not after:
            raise ApiError(400, {"user_id": ["Give user_id or created_after."]})
        try:
            since = datetime.fromisoformat(after.replace("Z", "+00:00")) if after else None
        except ValueError:
            raise ApiError(400, {"created_after": ["An ISO 8601 datetime is required."]}) from None
        with self.state.lock:
            rows = [
                self._public(message)
                for message in [*self.state.messages, *self.state.received]
                if (not user or user in (message.get("recipient_id"), message["sender_id"]))
                and (
                    since is None
                    or datetime.fromisoformat(message["sent_at"].replace("Z", "+00:00")) > since
                )
            ]
        return 200, {"results": rows}, {}

    def _messages_unread(self, *, query, body):
        """Messages participants sent the researcher and it has not read; listing them
        marks none read ("It does not mark those messages as read":
        https://docs.prolific.com/api-reference/messages/get-unread-messages)."""
        with self.state.lock:
            rows = [self._public(m) for m in self.state.received if not m["read"]]
        return 200, {"results": rows}, {}
