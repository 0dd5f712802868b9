"""Planner decisions and deployer arguments for Kafka Streams runners (pure: no engine)."""

from __future__ import annotations

import io
import json
import tarfile
from types import SimpleNamespace

import pytest
from streamt.sdk import ABSENT, PRESENT, Artifact, Observation, SafetyBlocker, StreamtError
from streamt_kstreams import deploy, online

SPEC = {
    "application_id": "streamt-p-default-m",
    "project": "p",
    "environment": "default",
    "container_name": "streamt-p-default-m",
    "state_volume": "streamt-p-default-m-state",
    "runtime": {"image": "sha256:" + "1" * 64, "docker_network": "host", "bootstrap_servers": "127.0.0.1:9092"},
}


def artifact() -> Artifact:
    return Artifact(kind="kafka_streams_job", name="m", identity="m", spec=SPEC, ownership="managed", provider="x")


def present(*rows: dict) -> Observation:
    return Observation(PRESENT, {"containers": list(rows)})


def row(checksum: str, state: str = "running", cid: str = "c1") -> dict:
    return {"id": cid, "state": state, "checksum": checksum}


def decisions(observation: Observation, record=None) -> list[str]:
    items = online.KafkaStreamsPlanner().plan(artifact(), observation, record)
    return [i.reason if isinstance(i, SafetyBlocker) else i.action for i in items]


def test_planner_create_noop_and_every_blocker() -> None:
    a = artifact()
    assert decisions(Observation(ABSENT)) == ["create"]
    assert decisions(present(row(a.checksum)), SimpleNamespace(artifact_checksum=a.checksum)) == ["noop"]
    assert decisions(present(row("sha256:other")), SimpleNamespace(artifact_checksum=a.checksum)) == [
        "update",
        "kafka_streams_update",
    ]
    assert decisions(present(row(a.checksum)), SimpleNamespace(artifact_checksum="sha256:old")) == [
        "update",
        "kafka_streams_update",
    ]
    assert decisions(present(row(a.checksum, "exited"))) == ["update", "kafka_streams_not_running"]
    assert decisions(present(row(a.checksum), row(a.checksum, cid="c2"))) == ["update", "kafka_streams_duplicate"]


def test_observation_keeps_only_this_runner_and_leaves_health_out() -> None:
    a = artifact()
    mine = {"Id": "b", "State": "running", "Status": "Up 3 seconds (healthy)", "Labels": online.labels(a)}
    other = {
        "Id": "a",
        "State": "running",
        "Status": "Up",
        "Labels": {**online.labels(a), online.LABEL_APPLICATION: "x"},
    }
    assert online.select([other, mine], a) == present(row(a.checksum, cid="b"))
    assert online.rows_of([mine], a)[0]["health"] == "healthy"
    assert online.select([other], a) == Observation(ABSENT)


def test_create_options_are_exact_and_hold_no_secret_by_default() -> None:
    a = artifact()
    runtime = SimpleNamespace(kafka=SimpleNamespace(security_protocol="PLAINTEXT", sasl_username=None))
    options = deploy.create_options(runtime, a)
    assert options["network_mode"] == "host" and "network" not in options
    assert options["image"] == SPEC["runtime"]["image"] and options["name"] == SPEC["container_name"]
    assert options["volumes"] == {SPEC["state_volume"]: {"bind": "/var/lib/streamt", "mode": "rw"}}
    assert options["labels"][online.LABEL_CHECKSUM] == a.checksum and options["environment"] == {}
    sasl = SimpleNamespace(security_protocol="SASL_PLAINTEXT", sasl_username="alice", sasl_password="pw-sentinel")
    assert (
        deploy.create_options(SimpleNamespace(kafka=sasl), a)["environment"]["STREAMT_KAFKA_SASL_PASSWORD"]
        == "pw-sentinel"
    )
    assert "pw-sentinel" not in json.dumps(a.spec)


def test_the_plan_file_is_the_artifact_spec() -> None:
    with tarfile.open(fileobj=io.BytesIO(deploy.plan_archive(artifact()))) as tar:
        assert json.loads(tar.extractfile("streamt/plan.json").read()) == SPEC


@pytest.mark.parametrize("value", ["0", "601", "abc", "-1"])
def test_runner_timeout_is_bounded(value: str) -> None:
    with pytest.raises(StreamtError):
        deploy.runner_timeout({deploy.TIMEOUT_ENV: value})
    assert deploy.runner_timeout({}) == 60.0 and deploy.runner_timeout({deploy.TIMEOUT_ENV: "600"}) == 600.0


def test_unsupported_kafka_security_is_refused() -> None:
    runtime = SimpleNamespace(kafka=SimpleNamespace(security_protocol="SASL_SSL", sasl_mechanism="PLAIN"))
    with pytest.raises(StreamtError):
        online.check_kafka_security(runtime)


def test_avro_inputs_are_refused_at_validate(tmp_path) -> None:
    from streamt_testing import run_cli

    root = tmp_path / "p"
    assert run_cli("init", "-p", root, "--executor", "kafka_streams", "--runner-image", "sha256:" + "2" * 64).ok
    (root / "sources").mkdir()
    (root / "sources" / "legacy.yml").write_text(
        "sources:\n  - name: legacy\n    topic: legacy.orders\n    schema:\n      subject: legacy.orders-value\n"
        "    columns:\n      - name: id\n        type: STRING\n      - name: amount\n        type: BIGINT\n"
        "      - name: paid\n        type: BOOLEAN\n"
    )
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace('ref("raw_orders")', 'source("legacy")'))
    outcome = run_cli("validate", "-p", root)
    assert outcome.error_codes == ["E501_PARSE_ERROR"]
    assert "Avro values" in outcome.envelope["errors"][0]["message"]
