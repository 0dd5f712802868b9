"""Fixtures for end-to-end apply tests against the devstack broker and registry.

``kafka_project(**options)`` writes a Kafka-only project whose topic names
carry a fresh suffix (tests never see each other's topics) and returns a
``KafkaProject`` with its path, names and helpers to read live state.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

# The installed console script of the interpreter running the tests.
STREAMT = [str(Path(sys.executable).with_name("streamt"))]
REGISTRY_SENTINEL = "sr-pw-sentinel-7f3a"


@attrs.define
class KafkaProject:
    path: Path
    prefix: str
    bootstrap: str
    registry: str
    files: dict[str, Any]

    def topic(self, short: str) -> str:
        return f"{self.prefix}.{short}"

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    def model(self, name: str) -> dict[str, Any]:
        return next(m for m in self.files["stream_project.yml"]["models"] if m["name"] == name)

    def describe(self, short: str) -> dict[str, Any] | None:
        """Live partitions and configs of one topic (None when absent)."""
        from kafka import KafkaAdminClient
        from kafka.admin import ConfigResource, ConfigResourceType

        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            name = self.topic(short)
            (entry,) = admin.describe_topics([name])
            if entry.get("error_code", 0):
                return None
            configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])["topic"][name]
            values = {k: v.get("value") if isinstance(v, dict) else v for k, v in configs.items()}
            return {"partitions": len(entry["partitions"]), "config": values}
        finally:
            admin.close()

    def state_dir(self) -> Path:
        return self.path / ".streamt" / "state"

    def cleanup(self) -> None:
        from kafka import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            names = [t for t in admin.list_topics() if t.startswith(self.prefix + ".")]
            if names:
                admin.delete_topics(names, raise_errors=False)
        finally:
            admin.close()


def project_files(prefix: str, bootstrap: str, registry: str) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "e2e"},
            "runtime": {
                "kafka": {"bootstrap_servers": bootstrap},
                "schema_registry": {"url": registry, "username": "streamt", "password": REGISTRY_SENTINEL},
            },
            "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
            "defaults": {"topic": {"partitions": 2, "replication_factor": 1}},
            "sources": [
                {
                    "name": "orders_raw",
                    "topic": f"{prefix}.orders",
                    "ownership": {"mode": "managed"},
                    "schema": {"format": "avro"},
                    "columns": [{"name": "order_id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}],
                },
                {"name": "shop", "topic": f"{prefix}.shop"},
            ],
            "models": [
                {
                    "name": "retry",
                    "advanced": {"topic": {"name": f"{prefix}.retry", "config": {"retention.ms": 3600000}}},
                },
                {"name": "lookup", "advanced": {"topic": {"name": f"{prefix}.lookup", "partitions": 1}}},
            ],
        }
    }


@pytest.fixture
def kafka_project(
    tmp_path: Path, kafka_bootstrap: str, schema_registry_url: str
) -> Iterator[Callable[..., KafkaProject]]:
    made: list[KafkaProject] = []

    def make(name: str = "p") -> KafkaProject:
        prefix = f"e2e-{uuid.uuid4().hex[:10]}"
        project = KafkaProject(
            tmp_path / name,
            prefix,
            kafka_bootstrap,
            schema_registry_url,
            project_files(prefix, kafka_bootstrap, schema_registry_url),
        )
        project.write()
        made.append(project)
        return project

    yield make
    for project in made:
        project.cleanup()


def run_streamt(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """The CLI in a separate process (``-o json``), for locks, crashes and concurrency."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [*STREAMT, "-o", "json", *map(str, args)], capture_output=True, text=True, env=full_env, timeout=timeout
    )


def envelope(completed: subprocess.CompletedProcess) -> dict[str, Any]:
    return json.loads(completed.stdout)


@pytest.fixture
def registry_sentinel() -> str:
    return REGISTRY_SENTINEL


@pytest.fixture
def streamt_process() -> Callable[..., subprocess.CompletedProcess]:
    return run_streamt


def _load_sibling(name: str) -> Any:
    # tests/ run with --import-mode=importlib: a sibling helper module is loaded by path, once.
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_HTTP_RECORDER = _load_sibling("http_recorder")
_KSTREAMS = _load_sibling("kstreams_fixtures")
# The Kafka Streams journeys' session fixtures: one engine client and one runner image per run.
kstreams_engine, kstreams_runner_image = _KSTREAMS.kstreams_engine, _KSTREAMS.kstreams_runner_image


@pytest.fixture
def recording_proxy() -> Callable[[str], Any]:
    """``recording_proxy(upstream)``: a loopback proxy context that records every request sent through it."""
    return _HTTP_RECORDER.recording_proxy
