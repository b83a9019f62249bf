"""The local (in-lab) provider: Parable's own records are the provider's records.

Workers come in through signed invite links; there is no external payment, so
approve, reject, bonus and block only need our own rows, which the services write:
a lab worker's bonus is the crowd.Bonus record, shown on their page and in the
payments report, for the lab to pay as it pays its workers.
"""

from __future__ import annotations

import logging

from crowd.providers.base import CrowdProvider

logger = logging.getLogger(__name__)


class LocalProvider(CrowdProvider):
    key = "local"

    def vouched(self, *, assignment) -> bool:
        return True  # an invite link is the lab's own record of who did the work

    def bonus_state(self, *, bonus) -> str:
        return "recorded (paid by the lab)"

    def publish(self, *, batch) -> dict:
        return {"local": f"batch-{batch.pk}"}

    def sync(self, *, batch) -> int:
        return 0

    def approve(self, *, assignment) -> None:
        logger.info("local: assignment %s approved", assignment.pk)

    def reject(self, *, assignment, message: str) -> None:
        logger.info("local: assignment %s rejected", assignment.pk)

    def pay_bonus(self, *, assignment, cents: int, reason: str) -> None:
        logger.info("local: bonus of %s cents recorded for assignment %s", cents, assignment.pk)

    def block(self, *, worker, reason: str) -> None:
        logger.info("local: worker %s blocked", worker.pk)

    def unblock(self, *, worker) -> None:
        logger.info("local: worker %s unblocked", worker.pk)

    def notify(self, *, workers, subject: str, message: str) -> None:
        logger.info("local: notification %r for %d worker(s)", subject, len(workers))

    def close(self, *, batch) -> None:
        logger.info("local: batch %s closed", batch.pk)
