"""Trained models copied to S3 through boto3, against a local stand-in answering like S3."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from modeling.runs.services import run_create, run_execute
from modeling.runs.storage import artifact_upload
from tests.factories import split_dataset_create
from tests.modeling.conftest import TINY_HYPERPARAMETERS


def serve_on_free_port(handler) -> ThreadingHTTPServer:
    """The stand-in on the first free loopback port of 27600-27799."""
    for port in range(27600, 27800):
        try:
            return ThreadingHTTPServer(("127.0.0.1", port), handler)
        except OSError:
            continue
    raise RuntimeError("no free port in 27600-27799")


class S3StandIn(BaseHTTPRequestHandler):
    """PutObject as S3 documents it: PUT /bucket/key, 200 with an ETag, empty body."""

    objects: dict

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.objects[self.path] = body
        self.send_response(200)
        self.send_header("ETag", f'"{len(body):032x}"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def s3(settings, monkeypatch):
    objects: dict = {}
    handler = type("Handler", (S3StandIn,), {"objects": objects})
    server = serve_on_free_port(handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    settings.PARABLE_MODELING_S3_BUCKET = "parable-models"
    settings.PARABLE_MODELING_S3_ENDPOINT_URL = f"http://127.0.0.1:{server.server_port}"
    yield objects
    server.shutdown()
    server.server_close()


def test_folder_is_the_address_without_a_bucket(settings, tmp_path):
    settings.PARABLE_MODELING_S3_BUCKET = ""
    assert artifact_upload(folder=tmp_path, name="run-1") == str(tmp_path)


def test_files_are_copied_under_the_runs_name(s3, tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "weights.bin").write_bytes(b"\x00\x01")
    assert artifact_upload(folder=tmp_path, name="run-7") == "s3://parable-models/run-7/"
    assert s3 == {
        "/parable-models/run-7/config.json": b"{}",
        "/parable-models/run-7/sub/weights.bin": b"\x00\x01",
    }


@pytest.mark.django_db
def test_trained_run_stores_its_s3_address(s3, tiny_model, artifacts):
    split_dataset_create()
    run = run_create(
        task="classifier", model_name=tiny_model, hyperparameters=TINY_HYPERPARAMETERS, queue=False
    )
    run = run_execute(run_id=run.pk)
    assert run.status == "succeeded", run.error
    assert run.artifact == f"s3://parable-models/run-{run.pk}/"
    stored = (artifacts / f"run-{run.pk}" / "classifier_head.pt").read_bytes()
    assert s3[f"/parable-models/run-{run.pk}/classifier_head.pt"] == stored
    assert f"/parable-models/run-{run.pk}/config.json" in s3
