"""Invite tokens never reach the logs: gunicorn's access and error logs, runserver's access
log and Django's own log lines."""

import logging
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from common.log_filters import InviteTokenFilter, redact_invite_tokens
from tests.conftest import free_loopback_port
from tests.integration.processes import gunicorn_server, process_environment, process_stop
from tests.processes import ROOT

TOKEN = "eyJ3IjoxLCJiIjpudWxsfQ:1vAbCd:s3cr3tSignature"


def test_redaction_replaces_the_token_in_paths_and_request_lines():
    assert redact_invite_tokens(f"GET /w/{TOKEN}/ HTTP/1.1") == "GET /w/[redacted]/ HTTP/1.1"
    assert redact_invite_tokens("GET /tasks/3/next/ HTTP/1.1") == "GET /tasks/3/next/ HTTP/1.1"


def test_filter_rewrites_a_record_with_its_arguments():
    record = logging.LogRecord(
        "django.request", logging.WARNING, "", 1, "Not Found: %s", (f"/w/{TOKEN}/",), None
    )
    assert InviteTokenFilter().filter(record)
    assert record.getMessage() == "Not Found: /w/[redacted]/"


def test_gunicorn_access_and_error_logs_hold_no_invite_token(tmp_path, transactional_db):
    access_log = tmp_path / "access.log"
    with gunicorn_server(args=("--access-logfile", str(access_log))) as (url, process):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/w/{TOKEN}/", timeout=30)
        assert refused.value.code == 404
        process.terminate()
        process.wait(timeout=30)
        process.log_reader.join(timeout=30)
    error_log = "".join(process.log_lines)
    logged = access_log.read_text()
    assert 'GET /w/[redacted]/ HTTP/1.1" 404' in logged
    assert "Not Found: /w/[redacted]/" in error_log
    assert "s3cr3t" not in logged + error_log


def test_runserver_log_holds_no_invite_token(transactional_db):
    """A developer serving with `manage.py runserver`: its access log (Django's
    "django.server" logger) and Django's request log show `/w/[redacted]/`."""
    port = free_loopback_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=process_environment(""),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "Quit the server with" in line:
                break
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/w/{TOKEN}/", timeout=30)
        assert refused.value.code == 404
        for line in process.stdout:  # runserver logs a request once its response is sent
            lines.append(line)
            if '" 404 ' in line:
                break
    finally:
        watchdog.cancel()
        process_stop(process)
    logged = "".join(lines)
    assert '"GET /w/[redacted]/ HTTP/1.1" 404' in logged
    assert "Not Found: /w/[redacted]/" in logged
    assert "s3cr3t" not in logged
