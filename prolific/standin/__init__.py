"""A local stand-in of Prolific's API for tests and for trying Parable without an account.

It answers the endpoints Parable uses, and those other Prolific clients call (Prolific's
CLI, Dallinger's recruiter), with Prolific's documented request and response shapes,
status codes and paging (`page`/`page_size` or `limit`/`offset`), each citing its
reference page; a call Prolific does not make idempotent (a bonus's pay, a message) acts
again when repeated. It keeps its state in memory (one workspace, with the id it is given,
holding a project and a wallet, and the researcher's personal balance), answers 429 on
demand and delivers signed `submission.status.change` webhooks. A few pages
outside the API play the participant's side: `/` lists published studies,
`/_standin/take/<study>/` starts a submission and sends the participant to the
study URL, `/submissions/complete?cc=` is where Parable sends them at the end.
"""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

from prolific.standin.handler import Handler
from prolific.standin.state import API, StandInState

__all__ = ["StandIn", "StandInState"]


class StandIn:
    """The stand-in server in a background thread: `url` is the root, `api_url` the base URL."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = "standin-token",
        webhook_secret: str = "standin-webhook-secret",
        page_size: int = 50,
        workspace_id: str = "standin-workspace",
        project_id: str = "standin-project",
    ):
        self.state = StandInState(
            token=token,
            webhook_secret=webhook_secret,
            page_size=page_size,
            workspace_id=workspace_id,
            project_id=project_id,
        )
        self.workspace_id, self.project_id = workspace_id, project_id
        handler = type("BoundHandler", (Handler,), {"state": self.state})
        self.server = ThreadingHTTPServer((host, port), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}{API}"

    def start(self) -> StandIn:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
