"""Invite tokens never reach the logs: gunicorn's access log and Django's own log lines."""

import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from config.log_filters import InviteTokenFilter, redact_invite_tokens
from tests.conftest import free_loopback_port

ROOT = Path(__file__).resolve().parents[2]
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


def test_gunicorn_access_and_error_logs_hold_no_invite_token(tmp_path):
    port = free_loopback_port()
    access_log = tmp_path / "access.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "-c",
            "platform/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--access-logfile",
            str(access_log),
        ],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        error_lines = []
        for line in process.stderr:
            error_lines.append(line)
            if "Booting worker" in line:
                break
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/w/{TOKEN}/", timeout=30)
        except urllib.error.HTTPError as refused:
            assert refused.code == 404
    finally:
        process.terminate()
        error_lines += process.communicate(timeout=30)[1].splitlines()
    logged = access_log.read_text()
    assert 'GET /w/[redacted]/ HTTP/1.1" 404' in logged
    assert "Not Found: /w/[redacted]/" in "".join(error_lines)
    assert "s3cr3t" not in logged + "".join(error_lines)
