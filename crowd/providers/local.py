"""The local (in-lab) provider: Parable's own records are the provider's records.

Workers come in through signed invite links; with no external payment, decisions need
no call: a lab worker's bonus is its crowd.Bonus record, for the lab to pay
(PARABLE_LAB_CURRENCY).
"""

from __future__ import annotations

import logging

from django.conf import settings

from crowd.providers.base import CrowdProvider

logger = logging.getLogger(__name__)


class LocalProvider(CrowdProvider):
    key = "local"

    def vouched(self, *, assignment) -> bool:
        return True  # an invite link is the lab's own record of who did the work

    def bonus_state(self, *, bonus) -> str:
        return "recorded for the lab to pay (Parable pays lab workers nothing)"

    def currency(self, *, batch) -> str:
        return settings.PARABLE_LAB_CURRENCY

    def publish(self, *, batch) -> dict:
        return {"local": f"batch-{batch.pk}"}

    def sync(self, *, batch) -> int:
        return 0

    def action_prepare(self, *, action) -> bool:
        return False  # the decision is the lab's record: nothing to send anywhere

    def close(self, *, batch) -> None:
        logger.info("local: batch %s closed", batch.pk)
