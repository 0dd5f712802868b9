"""Kafka Connect sink connectors keep the provider contract (streamt_testing.contracts), against the real worker."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from streamt.sdk import ASSUMED_ABSENT, KIND_CONNECTOR, Action, load_and_compile
from streamt_connect.deployers import ConnectorDeployer
from streamt_connect.live import ConnectorObserver, ConnectorPlanner
from streamt_testing import closed_port, write_project
from streamt_testing.contracts import ProviderContract

pytestmark = [pytest.mark.kafka, pytest.mark.connect]

STRING = "org.apache.kafka.connect.storage.StringConverter"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def _connector(tmp_path: Path, kafka: str, connect: str, name: str, connector: str, lines: int = 1):
    files = {
        "stream_project.yml": {
            "project": {"name": "contract"},
            "runtime": {
                "kafka": {"bootstrap_servers": kafka},
                "connect": {"default": "main", "clusters": {"main": {"rest_url": connect}}},
            },
            "sources": [{"name": "events", "topic": f"contract.{name}.events"}],
            "models": [
                {
                    "name": name,
                    "from": [{"source": "events"}],
                    "sink": {
                        "connector": connector,
                        "config": {
                            "file": str(tmp_path / f"{name}.out"),
                            "tasks.max": lines,
                            "key.converter": STRING,
                            "value.converter": STRING,
                        },
                    },
                }
            ],
        }
    }
    loaded = load_and_compile(write_project(tmp_path / f"{name}-{lines}", files), None)
    (artifact,) = loaded.compiled.of_kind(KIND_CONNECTOR)
    return loaded.project.runtime, artifact


class TestConnectorProvider(ProviderContract):
    @pytest.fixture
    def parts(self, tmp_path: Path, kafka_bootstrap: str, connect_url: str):
        name = f"contract_{uuid.uuid4().hex[:8]}"

        def make(connector: str = FILE_SINK, lines: int = 1, connect: str = connect_url):
            return _connector(tmp_path, kafka_bootstrap, connect, name, connector, lines)

        return make

    @pytest.fixture
    def provider(self, parts):
        runtime, _ = parts()
        return ConnectorObserver(runtime), ConnectorPlanner(), ConnectorDeployer(runtime)

    @pytest.fixture
    def unanswered(self, parts):
        runtime, _ = parts(connect=f"http://127.0.0.1:{closed_port()}")
        return ConnectorObserver(runtime), ConnectorPlanner(), ConnectorDeployer(runtime)

    @pytest.fixture
    def desired(self, parts, provider):
        _, artifact = parts()
        yield artifact
        _observer, _planner, deployer = provider
        deployer.rollback(Action.for_artifact("create", artifact, "", ASSUMED_ABSENT), artifact)

    @pytest.fixture
    def changed(self, parts):
        return lambda _artifact: parts(lines=2)[1]

    @pytest.fixture
    def refused(self, parts):
        return parts(connector="org.example.NoSuchConnector")[1]
