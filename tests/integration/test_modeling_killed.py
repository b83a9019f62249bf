"""A baseline run whose process is killed, with no broker and no beat: the next look at
its page ends it, saying why (the embedded default, run_baseline killed by a timeout)."""

import os
import signal
import subprocess
import sys

import pytest

from modeling.models import Run
from modeling.runs.selectors import run_is_dead
from tests.factories import split_dataset_create
from tests.integration.processes import database_url, process_stop, wait_until
from tests.modeling.conftest import tiny_model_folder
from tests.processes import ROOT

pytestmark = pytest.mark.django_db(transaction=True)  # the child sees committed rows only


def test_a_killed_run_baseline_leaves_a_run_that_its_page_fails_with_the_reason(
    tmp_path, client, researcher, settings
):
    split_dataset_create()
    model = tiny_model_folder(tmp_path / "tiny")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CELERY_")}
    environment.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATABASE_URL=database_url(),
        PARABLE_MODELING_HEARTBEAT_SECONDS="0.2",
        PARABLE_MODELING_ARTIFACTS=str(tmp_path / "models"),
    )
    command = [sys.executable, "manage.py", "run_baseline", "biencoder", "--model", model]
    command += ["--epochs", "500", "--batch-size", "4", "--max-length", "32"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:

        def training_with_a_heartbeat():
            run = Run.objects.filter(status="running", progress__stage="training").first()
            return run if run and run.heartbeat_at > run.started_at else None

        run = wait_until(training_with_a_heartbeat, timeout=120, what="a training run's heartbeat")
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process_stop(process)
    assert Run.objects.get(pk=run.pk).status == "running"  # nothing in the child ended it
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 0.2
    wait_until(
        lambda: run_is_dead(Run.objects.get(pk=run.pk)), timeout=30, what="a stale heartbeat"
    )
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    run.refresh_from_db()
    assert run.status == "failed" and run.finished_at is not None
    assert f"its worker {run.worker} stopped answering: no heartbeat since" in run.error
    assert "stopped answering" in page and "Relaunch this run" in page
