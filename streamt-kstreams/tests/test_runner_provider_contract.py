"""Kafka Streams runners keep the provider contract (streamt_testing.contracts), against the real Docker Engine + Kafka.

One project (``contracts-<hex>``) and one pair of topics per class, one runner (model) per test.
A runner has no batch ``update``: changing its predicates is a reviewed replacement
(``kafka_streams_reviewed_replacement`` blocker; run by ``apply --plan`` of a format-6 plan, see
tests/e2e/test_kstreams_replacement*.py), so the kit checks that the planner blocks it and the
running container stays as it was. A refused create names a Docker network the engine does not
have: the engine refuses to start the container (404), and the deployer removes it again before
it answers ``failed`` (the runner's state volume stays, as every runner's does). The class
removes every container and volume with its project's labels and its topics. The runners'
consumer groups keep their members until the session times out (Kafka Streams does not leave the
group on close), so the broker expires them, as it does the end-to-end tests' groups.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamt.sdk import KIND_KAFKA_STREAMS_JOB, Artifact, load_and_compile
from streamt_kstreams import build
from streamt_kstreams.deploy import KafkaStreamsDeployer
from streamt_kstreams.online import LABEL_PROJECT, KafkaStreamsObserver, KafkaStreamsPlanner
from streamt_testing import closed_port, write_project
from streamt_testing.contracts import ProviderContract

docker = pytest.importorskip("docker")

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

SQL = 'SELECT id, amount FROM {{ source("raw") }} WHERE amount >= 100'
CHANGED_SQL = 'SELECT id, amount FROM {{ source("raw") }} WHERE amount >= 200'  # predicates only
RUNNER_SECONDS = 180.0  # each runner's wait for RUNNING, on a loaded 2-CPU machine
BUILD_SECONDS = 900
TOPIC_WAIT_MS = 120_000  # a new topic's leader, on a loaded 2-CPU machine


@pytest.fixture(scope="class")
def engine(docker_host: str) -> Iterator[Any]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOCKER_HOST", docker_host)  # the observer and deployer find the engine as the CLI does
        client = docker.DockerClient(base_url=docker_host, timeout=60)
        yield client
        client.close()


@pytest.fixture(scope="class")
def runner_image(engine: Any, kstreams_base_image: str) -> str:
    """The runner image of these sources on the stack's base image: reused when the engine has it."""
    wanted = build.dry_run(kstreams_base_image)["build_input_hash"]
    labels = [f"{build.LABEL_INPUTS}={wanted}", f"{build.LABEL_BASE}={kstreams_base_image}"]
    cached = engine.images.list(filters={"label": labels})
    if cached:
        return str(cached[0].id)
    return str(build.build(kstreams_base_image, BUILD_SECONDS)["image"])


@pytest.fixture(scope="class")
def contract_project(engine: Any, kafka_bootstrap: str) -> Iterator[str]:
    from kafka import KafkaAdminClient

    name = f"contracts-{uuid.uuid4().hex[:8]}"
    topics = [f"{name}.raw", f"{name}.out"]
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        # A runner started before its input topic has a leader never gets RUNNING: wait for the metadata.
        one = {"num_partitions": 1, "replication_factor": 1}
        admin.create_topics({topic: one for topic in topics})
        admin.wait_for_topics(topics, timeout_ms=TOPIC_WAIT_MS)
        yield name
    finally:
        for container in engine.containers.list(all=True, filters={"label": f"{LABEL_PROJECT}={name}"}):
            container.remove(force=True)
        for volume in engine.volumes.list(filters={"label": f"{LABEL_PROJECT}={name}"}):
            volume.remove(force=True)
        admin.delete_topics(topics)
        admin.close()


def _files(project: str, model: str, bootstrap: str, image: str, sql: str, network: str) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "project": {"name": project},
            "runtime": {
                "kafka": {"bootstrap_servers": bootstrap},
                "kafka_streams": {"image": image, "docker_network": network, "initial_offset": "earliest"},
            },
            "sources": [
                {
                    "name": "raw",
                    "topic": f"{project}.raw",
                    "columns": [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}],
                }
            ],
            "models": [
                {
                    "name": model,
                    "materialized": "topic",
                    "executor": "kafka_streams",
                    "sql": sql,
                    "advanced": {"topic": {"name": f"{project}.out", "partitions": 1, "replication_factor": 1}},
                }
            ],
        }
    }


class TestKafkaStreamsRunnerProvider(ProviderContract):
    @pytest.fixture
    def parts(
        self, tmp_path: Path, contract_project: str, kafka_bootstrap: str, runner_image: str
    ) -> Callable[..., tuple[Any, Artifact]]:
        name = f"contracts_{uuid.uuid4().hex[:8]}"
        made: list[Path] = []

        def make(sql: str = SQL, model: str = name, network: str = "host") -> tuple[Any, Artifact]:
            files = _files(contract_project, model, kafka_bootstrap, runner_image, sql, network)
            made.append(write_project(tmp_path / f"{model}-{len(made)}", files))
            loaded = load_and_compile(made[-1], None)
            (artifact,) = loaded.compiled.of_kind(KIND_KAFKA_STREAMS_JOB)
            return loaded.project.runtime, artifact

        return make

    @pytest.fixture
    def provider(self, parts):
        runtime, _ = parts()
        deployer = KafkaStreamsDeployer(runtime, runner_timeout=RUNNER_SECONDS)
        return KafkaStreamsObserver(runtime), KafkaStreamsPlanner(), deployer

    @pytest.fixture
    def unanswered(self, parts, monkeypatch: pytest.MonkeyPatch):
        runtime, _ = parts()
        monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{closed_port()}")  # for this test only
        return KafkaStreamsObserver(runtime), KafkaStreamsPlanner(), KafkaStreamsDeployer(runtime)

    @pytest.fixture
    def desired(self, parts, provider, engine) -> Iterator[Artifact]:
        _, artifact = parts()
        yield artifact
        container = artifact.spec["container_name"]
        for found in engine.containers.list(all=True, filters={"name": f"^{container}$"}):
            found.remove(force=True)  # one runner fewer for the next test on a 2-CPU machine

    @pytest.fixture
    def changed(self, parts):
        return lambda _artifact: parts(sql=CHANGED_SQL)[1]

    @pytest.fixture
    def refused(self, parts) -> Artifact:
        # The engine refuses to start it (404: no such network); nothing of the runner may be left.
        return parts(model=f"contracts_{uuid.uuid4().hex[:8]}", network="contracts-no-such-network")[1]
