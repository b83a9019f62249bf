"""The stand-in's answers about the account: the researcher, workspaces and their wallets,
projects, filters, reward rates, participant groups and webhook hooks; `_list` pages any
list."""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from prolific.addresses import local_url
from prolific.standin.paging import listing
from prolific.standin.state import API, REWARD_RATES, ApiError, StandInState, new_id, now_iso

# GET /hooks/event-types/: the events the stand-in delivers, as Prolific describes them.
EVENTS = (
    ("study.status.change", "Triggered when the status of a study changes."),
    ("submission.status.change", "Triggered when the status of a submission changes."),
    ("study.has_high_return_rate", "Triggered when many participants return a study."),
)


class AccountRoutes:
    """The account's endpoints (mixed into ApiRoutes, which routes to them)."""

    state: StandInState
    headers: dict

    def _list(self, rows: list, path: str, query: dict) -> dict:
        """`rows` paged as Prolific pages its lists (prolific.standin.paging)."""
        url = f"http://{self.headers.get('Host')}{API}{path}"
        return listing(rows, query=query, url=url, page_size=self.state.page_size)

    @staticmethod
    def _get(table: dict, key: str, what: str) -> dict:
        if key not in table:
            raise ApiError(404, f"No {what} with id {key}.", title="Not found")
        return table[key]

    def _me(self, *, query, body):
        """The researcher and their personal balance (not a workspace's)."""
        state = self.state
        return (
            200,
            {
                "id": "standin-researcher",
                "name": "Stand-in Researcher",
                "email": "researcher@example.org",
                "currency_code": state.personal["currency_code"],
                "balance": state.balance,
                "available_balance": state.balance,
            },
            {},
        )

    def _filters(self, *, query, body):
        return 200, {"results": list(self.state.filters), "_links": {"next": {"href": None}}}, {}

    def _reward_recommendations(self, *, query, body):
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
        rate = {
            "currency": currency,
            "min_reward_per_hour": minimum,
            "recommended_reward_per_hour": recommended,
        }
        return 200, [rate], {}

    def _workspace(self, workspace_id: str) -> dict:
        return self._get(self.state.workspaces, workspace_id, "workspace")

    def _workspaces(self, *, query, body):
        """Every workspace the token's researcher is in, paged
        (https://docs.prolific.com/api-reference/workspaces/get-workspaces)."""
        rows = [
            {
                "id": workspace["id"],
                "title": workspace["title"],
                "description": "",
                "owner": "standin-researcher",
                "users": [{"id": "standin-researcher", "roles": ["WORKSPACE_ADMIN"]}],
            }
            for workspace in self.state.workspaces.values()
        ]
        return 200, self._list(rows, "workspaces/", query), {}

    def _workspace_get(self, workspace_id: str, *, query, body):
        """https://docs.prolific.com/api-reference/workspaces/get-workspace"""
        workspace = self._workspace(workspace_id)
        projects = [p for p in self.state.projects.values() if p["workspace"] == workspace_id]
        return 200, {"id": workspace["id"], "title": workspace["title"], "projects": projects}, {}

    def _workspace_balance(self, workspace_id: str, *, query, body):
        """The workspace's funds: `available_balance` is what is left to spend after the
        funds locked by active studies, in the currency's hundredths
        (https://docs.prolific.com/api-reference/workspaces/get-workspace-balance)."""
        workspace = self._workspace(workspace_id)
        available = workspace["available_balance"]
        return (
            200,
            {
                "currency_code": workspace["currency_code"],
                "total_balance": available,
                "available_balance": available,
            },
            {},
        )

    def _workspace_projects(self, workspace_id: str, *, query, body):
        """https://docs.prolific.com/api-reference/projects/get-projects"""
        self._workspace(workspace_id)
        projects = [p for p in self.state.projects.values() if p["workspace"] == workspace_id]
        return 200, self._list(projects, f"workspaces/{workspace_id}/projects/", query), {}

    def _project_get(self, project_id: str, *, query, body):
        """A project names the workspace it is in
        (https://docs.prolific.com/api-reference/projects/get-project)."""
        return 200, self._get(self.state.projects, project_id, "project"), {}

    def _group_create(self, *, query, body):
        """A participant group belongs to a workspace or an organisation: "Either a
        workspace or organisation ID must be specified"
        (https://docs.prolific.com/api-reference/participant-groups/create-participant-group)."""
        name, workspace_id = body.get("name"), body.get("workspace_id")
        if not isinstance(name, str) or not name:
            raise ApiError(400, {"name": ["This field is required."]})
        if not workspace_id and not body.get("organisation_id"):
            raise ApiError(
                400,
                {"workspace_id": ["Either a workspace or organisation ID must be specified."]},
            )
        if workspace_id:
            self._workspace(str(workspace_id))
        group = {
            "id": new_id(),
            "name": name,
            "workspace_id": workspace_id,
            "participants": [],
            "added": {},
        }
        with self.state.lock:
            self.state.groups[group["id"]] = group
        public = {"id": group["id"], "name": name, "workspace_id": workspace_id}
        return 201, {**public, "participant_count": 0}, {}

    @staticmethod
    def _members(group: dict) -> list[dict]:
        """A group's participants as Prolific lists them: each with when it was added
        ({participant_id, datetime_created}:
        https://docs.prolific.com/api-reference/participant-groups/get-participant-group-participants)."""
        return [
            {"participant_id": i, "datetime_created": group["added"][i]}
            for i in group["participants"]
        ]

    def _group_participants(self, group_id: str, *, query, body):
        group = self._get(self.state.groups, group_id, "participant group")
        path = f"participant-groups/{group_id}/participants/"
        return 200, self._list(self._members(group), path, query), {}

    def _group_change(self, group_id: str, body: dict, *, add: bool):
        """Adding appends those not in the group yet ("If a participant is already a
        member of the group, they will be ignored") and answers every participant now in
        it, each with its `datetime_created`
        (https://docs.prolific.com/api-reference/participant-groups/add-to-participant-group);
        removing answers those left."""
        group = self._get(self.state.groups, group_id, "participant group")
        ids = body.get("participant_ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise ApiError(400, {"participant_ids": ["A non-empty list is required."]})
        with self.state.lock:
            if add:
                for i in ids:
                    if i not in group["participants"]:
                        group["participants"].append(i)
                        group["added"][i] = now_iso()
            else:
                group["participants"] = [i for i in group["participants"] if i not in ids]
        return 200, {"results": self._members(group)}, {}

    def _group_add(self, group_id: str, *, query, body):
        return self._group_change(group_id, body, add=True)

    def _group_remove(self, group_id: str, *, query, body):
        return self._group_change(group_id, body, add=False)

    # Webhooks
    def _query_workspace(self, query: dict) -> str:
        workspace_id = (query.get("workspace_id") or [""])[0]
        if not workspace_id:
            raise ApiError(400, {"workspace_id": ["This field is required."]})
        return self._workspace(workspace_id)["id"]

    def _event_types(self, *, query, body):
        """The events a subscription may name, each with what it is
        (https://docs.prolific.com/api-reference/webhooks/get-event-types): those the
        stand-in delivers."""
        return 200, {"results": [{"event_type": e, "description": d} for e, d in EVENTS]}, {}

    def _secrets(self, *, query, body):
        """The workspace's secret (https://docs.prolific.com/api-reference/webhooks/get-secrets)."""
        workspace_id = self._query_workspace(query)
        value = self.state.secrets.get(workspace_id)
        rows = [{"id": workspace_id, "value": value, "workspace_id": workspace_id}]
        return 200, {"results": rows if value else []}, {}

    def _secret_create(self, *, query, body):
        """A new secret replaces the old: "If a secret already exists, this call will
        delete the old secret and create a new one"
        (https://docs.prolific.com/api-reference/webhooks/create-secret)."""
        workspace_id = self._workspace(str(body.get("workspace_id") or ""))["id"]
        value = secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.secrets[workspace_id] = value
        return 201, {"id": workspace_id, "value": value, "workspace_id": workspace_id}, {}

    @staticmethod
    def _hook_public(hook: dict) -> dict:
        keys = ("id", "event_type", "target_url", "workspace_id", "is_enabled")
        return {key: hook[key] for key in keys}

    def _subscriptions(self, *, query, body):
        """A workspace's subscriptions, `is_enabled` filtering when given
        (https://docs.prolific.com/api-reference/webhooks/get-subscriptions)."""
        workspace_id = self._query_workspace(query)
        enabled = (query.get("is_enabled") or [""])[0].lower()
        rows = [
            self._hook_public(hook)
            for hook in self.state.subscriptions.values()
            if hook["workspace_id"] == workspace_id
            and (not enabled or hook["is_enabled"] == (enabled in ("true", "1")))
        ]
        return 200, self._list(rows, "hooks/subscriptions/", query), {}

    def _subscription_create(self, *, query, body):
        """An unconfirmed subscription, answered 201 {"results": [...]} with the secret to
        confirm it in X-Hook-Secret
        (https://docs.prolific.com/api-reference/webhooks/create-subscription). The
        workspace needs a secret first, and "target_url must use https:// and be publicly
        accessible" (https://docs.prolific.com/documentation/core-concepts/monitoring-study-progress):
        the stand-in, being on this machine or network, also takes a local address."""
        errors = {
            field: ["This field is required."]
            for field in ("event_type", "target_url", "workspace_id")
            if not isinstance(body.get(field), str) or not body.get(field)
        }
        if errors:
            raise ApiError(400, errors)
        target, workspace_id = body["target_url"], self._workspace(body["workspace_id"])["id"]
        if urlsplit(target).scheme != "https" and not local_url(target):
            raise ApiError(400, {"target_url": ["target_url must use https://."]})
        if workspace_id not in self.state.secrets:
            raise ApiError(400, "Create a secret for the workspace before subscribing.")
        hook = {
            "id": new_id(),
            "event_type": body["event_type"],
            "target_url": target,
            "workspace_id": workspace_id,
            "is_enabled": False,
            "secret": new_id(),
        }
        with self.state.lock:
            self.state.subscriptions[hook["id"]] = hook
        answer = {
            "results": {"results": [self._hook_public(hook)]},
            "object": self._hook_public(hook),
            "empty": {},
        }[self.state.subscription_shape]
        return 201, answer, {"X-Hook-Secret": hook["secret"]}

    def _subscription_confirm(self, subscription_id: str, *, query, body):
        """https://docs.prolific.com/api-reference/webhooks/confirm-subscription"""
        hook = self._get(self.state.subscriptions, subscription_id, "subscription")
        if body.get("secret") != hook["secret"]:
            raise ApiError(400, {"secret": ["The secret does not match."]})
        hook["is_enabled"] = True
        return 200, self._hook_public(hook), {}

    def _subscription_delete(self, subscription_id: str, *, query, body):
        with self.state.lock:
            self._get(self.state.subscriptions, subscription_id, "subscription")
            del self.state.subscriptions[subscription_id]
        return 204, None, {}
