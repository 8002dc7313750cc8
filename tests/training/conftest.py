"""Fixtures for the training tests: a learnable token folder, a moto S3 server on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from eks_training.training.data import synthetic_tokens, write_token_dir
from training_helpers import VENV_BIN


@pytest.fixture(scope="session")
def token_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tokens")
    return write_token_dir(folder, [synthetic_tokens(12000, 256, seed=1), synthetic_tokens(9000, 256, seed=1)], 256)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def moto_endpoint() -> str:
    """A real moto_server on 127.0.0.1 (HTTP), shared by the S3 tests."""
    port = _free_port()
    server = subprocess.Popen([str(VENV_BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("moto_server did not start")
            time.sleep(0.2)
    yield endpoint
    server.terminate()
    server.wait(10)


@pytest.fixture()
def aws_env(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment that points boto3 (in this process and in children) at moto, with fake credentials."""
    values = {"AWS_ENDPOINT_URL": moto_endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
              "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return values


@pytest.fixture()
def bucket(aws_env: dict[str, str], request: pytest.FixtureRequest) -> str:
    import boto3

    name = "ckpt-" + request.node.name.lower().replace("_", "-").replace("[", "-").replace("]", "")[:40].strip("-")
    boto3.client("s3").create_bucket(Bucket=name)
    return name
