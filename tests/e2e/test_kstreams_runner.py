"""The Kafka Streams runner against the real Docker Engine and broker of the devstack.

starter -> `runtime build` -> image into the project -> apply creates the runner -> records come out
filtered and projected, checked one by one -> a second apply changes nothing -> `status --health`.
The same from an imported topic; a SIGKILL of apply while the container comes up, then reviewed
recovery; the faults that must stop a plan before any mutation. Every test removes the containers,
volumes and topics it made (found by its unique project name), and never creates a network.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

docker = pytest.importorskip("docker")

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

STREAMT = [str(Path(sys.executable).with_name("streamt"))]
BUILD_LABEL = "io.streamt.runner.build-input-hash"
BASE_LABEL = "io.streamt.runner.base-image"
EXPECTED = [{"id": "o-1", "amount": 250}, {"id": "o-4", "amount": 100}]
# Beyond the starter's samples: SQL's NULL rule, wrong JSON types and non-objects are dropped, never guessed.
EXTRA_EVENTS = [
    b'{"id": "o-5", "amount": null, "paid": true}',
    b'{"id": "o-6", "amount": "900", "paid": true}',
    b"[1, 2, 3]",
    b"not json",
    b'{"id": "o-7", "amount": 100, "paid": true, "note": "kept out"}',
]


@pytest.fixture(scope="module")
def engine(docker_host: str) -> Iterator[Any]:
    client = docker.DockerClient(base_url=docker_host, timeout=60)
    yield client
    client.close()


@pytest.fixture(scope="module")
def env(docker_host: str, kafka_bootstrap: str) -> dict[str, str]:
    return {"DOCKER_HOST": docker_host, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}


def streamt(*args: Any, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*STREAMT, "-o", "json", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=timeout,
    )


def ok(completed: subprocess.CompletedProcess) -> dict[str, Any]:
    envelope = json.loads(completed.stdout)
    assert completed.returncode == 0 and envelope["status"] == "ok", completed.stdout + completed.stderr
    return envelope["data"]


@pytest.fixture(scope="module")
def runner_image(engine: Any, env: dict[str, str], kstreams_base_image: str) -> str:
    """The runner image of these sources on this base: reused when the engine has it (a warm stack)."""
    dry = ok(streamt("runtime", "build", "--dry-run", "--base-image", kstreams_base_image, env=env))
    labels = [f"{BUILD_LABEL}={dry['build_input_hash']}", f"{BASE_LABEL}={kstreams_base_image}"]
    cached = engine.images.list(filters={"label": labels})
    if cached:
        return str(cached[0].id)
    built = ok(streamt("runtime", "build", "--base-image", kstreams_base_image, "--timeout", "900", env=env))
    return str(built["image"])


@pytest.fixture
def cleanup(engine: Any, kafka_bootstrap: str) -> Iterator[list[str]]:
    """Projects (by name) whose runner containers, state volumes and topics the test removes at the end."""
    projects: list[str] = []
    yield projects
    from kafka import KafkaAdminClient

    for name in projects:
        for container in engine.containers.list(all=True, filters={"label": f"io.streamt.project={name}"}):
            container.remove(force=True)
        for volume in engine.volumes.list(filters={"label": f"io.streamt.project={name}"}):
            volume.remove(force=True)
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        mine = [t for t in admin.list_topics() if any(t.startswith(f"{name}.") for name in projects)]
        if mine:
            admin.delete_topics(mine)
    finally:
        admin.close()


def starter(tmp_path: Path, image: str, env: dict[str, str], cleanup: list[str]) -> tuple[Path, str]:
    name = f"ks{uuid.uuid4().hex[:10]}"
    cleanup.append(name)
    root = tmp_path / name
    ok(
        streamt(
            "init", "-p", root, "--executor", "kafka_streams", "--runner-image", image,
            "--docker-network", "host", "--initial-offset", "earliest", env=env,
        )
    )  # fmt: skip
    return root, name


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        for index, value in enumerate(values):
            producer.send(topic, key=f"k{index}".encode(), value=value)
        producer.flush(timeout=30)
    finally:
        producer.close()


def consume(bootstrap: str, topic: str, count: int, seconds: float = 90) -> list[tuple[bytes, Any]]:
    """Read ``count`` records from the start (then 3 seconds more, to catch any record too many)."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False, group_id=None
    )
    found: list[tuple[bytes, Any]] = []
    try:
        deadline = time.monotonic() + seconds
        settle: float | None = None
        while time.monotonic() < (settle or deadline):
            for records in consumer.poll(timeout_ms=500).values():
                found += [(r.key, json.loads(r.value)) for r in records]
            if len(found) >= count and settle is None:
                settle = time.monotonic() + 3
    finally:
        consumer.close()
    return found


def applied(data: dict[str, Any]) -> dict[str, str]:
    return {a["identity"]: a["result"] for a in data["actions"]}


def runners(engine: Any, name: str) -> list[Any]:
    return engine.containers.list(all=True, filters={"label": f"io.streamt.project={name}"})


def test_runtime_build_dry_run_and_the_image(engine: Any, env: dict[str, str], runner_image: str, kstreams_base_image):
    first = ok(streamt("runtime", "build", "--dry-run", env=env))
    assert first == ok(streamt("runtime", "build", "--dry-run", env={**env, "DOCKER_HOST": "unix:///nowhere.sock"}))
    image = engine.images.get(runner_image)
    assert image.id == runner_image and image.tags == []  # an ID, never a tag
    assert image.labels[BUILD_LABEL] == first["build_input_hash"] and image.labels[BASE_LABEL] == kstreams_base_image


def test_starter_create_records_noop_and_health(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    root, name = starter(tmp_path, runner_image, env, cleanup)
    created = ok(streamt("apply", "-p", root, env=env))
    assert applied(created) == {
        f"{name}.orders.raw.v1": "created",
        f"{name}.orders.eligible.v1": "created",
        "eligible_orders": "created",
    }
    (container,) = runners(engine, name)
    assert container.attrs["HostConfig"]["NetworkMode"] == "host"
    assert container.attrs["Config"]["Image"] == runner_image
    assert [m["Name"] for m in container.attrs["Mounts"]] == [f"streamt-{name}-default-eligible_orders-state"]

    samples = (root / "samples" / "orders.jsonl").read_bytes().splitlines()
    produce(kafka_bootstrap, f"{name}.orders.raw.v1", samples + EXTRA_EVENTS)
    out = consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 3)
    # Record by record, in input order, keys kept: o-1, o-4, o-7 (projected to id and amount only).
    assert out == [(b"k0", EXPECTED[0]), (b"k3", EXPECTED[1]), (b"k8", {"id": "o-7", "amount": 100})]

    again = ok(streamt("apply", "-p", root, env=env))
    assert set(applied(again).values()) == {"unchanged"}
    assert [c.id for c in runners(engine, name)] == [container.id]
    health = streamt("status", "-p", root, "--health", env=env)
    assert health.returncode == 0, health.stdout
    (row,) = json.loads(health.stdout)["data"]["kafka_streams_jobs"]
    assert row["status"] == "RUNNING"
    container.stop(timeout=10)
    stopped = streamt("status", "-p", root, "--health", env=env)
    assert stopped.returncode == 1
    assert [r["status"] for r in json.loads(stopped.stdout)["data"]["kafka_streams_jobs"]] == ["EXITED"]


def test_imported_topic_journey(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    root, name = starter(tmp_path, runner_image, env, cleanup)
    legacy = f"{name}.legacy.payments"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(legacy, 1, 1)])
    admin.close()
    produce(kafka_bootstrap, legacy, [b'{"id": "p-1", "amount": 5, "paid": true}'])  # before streamt knew it
    ok(streamt("import", "-p", root, "--include", legacy, "--no-schemas", env=env))
    imported = yaml.safe_load((root / "sources" / "imported.kafka.yml").read_text())
    (source,) = imported["sources"]
    # The user declares the columns the runner types the values with (no schema in the registry).
    source["columns"] = [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}]
    (root / "sources" / "imported.kafka.yml").write_text(yaml.safe_dump(imported, sort_keys=False))
    relation = '{{ source("' + source["name"] + '") }}'
    (root / "models" / "orders.yml").write_text(
        yaml.safe_dump(
            {
                "models": [
                    {
                        "name": "big_payments",
                        "ownership": {"mode": "managed"},
                        "materialized": "topic",
                        "executor": "kafka_streams",
                        "sql": f"SELECT id, amount AS units FROM {relation} WHERE amount > 10",
                        "advanced": {"topic": {"name": f"{name}.payments.big.v1"}},
                    }
                ]
            }
        )
    )
    (root / "exposures" / "fraud_app.yml").unlink()
    created = ok(streamt("apply", "-p", root, env=env))
    assert applied(created) == {legacy: "unchanged", f"{name}.payments.big.v1": "created", "big_payments": "created"}
    produce(kafka_bootstrap, legacy, [b'{"id": "p-2", "amount": 50}', b'{"id": "p-3", "amount": 10}'])
    assert consume(kafka_bootstrap, f"{name}.payments.big.v1", 1) == [(b"k0", {"id": "p-2", "units": 50})]
    assert set(applied(ok(streamt("apply", "-p", root, env=env))).values()) == {"unchanged"}
    assert streamt("status", "-p", root, "--health", env=env).returncode == 0


def killed_apply(root: Path, engine: Any, env: dict[str, str], name: str, *, started: bool) -> Any:
    """SIGKILL `apply` once its runner container exists (``started``: once it runs, before RUNNING)."""
    apply = subprocess.Popen(
        [*STREAMT, "-o", "json", "apply", "-p", str(root)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while True:
        assert apply.poll() is None and time.monotonic() < deadline
        found = runners(engine, name)
        if found and (not started or found[0].status == "running"):
            break
        time.sleep(0.02)
    apply.send_signal(signal.SIGKILL)  # the container exists; its readiness was never acknowledged
    assert apply.wait(timeout=30) == -9
    control = json.loads((root / ".streamt" / "state" / "default.control.json").read_text())
    assert control["status"] == "in_progress"
    blocked = streamt("apply", "-p", root, env=env)
    assert [e["code"] for e in json.loads(blocked.stdout)["errors"]] == ["E419_STATE_RECOVERY_REQUIRED"]
    (container,) = runners(engine, name)
    return container


def recovery_plan(root: Path, env: dict[str, str], path: Path) -> subprocess.CompletedProcess:
    return streamt("state", "recovery-plan", "-p", root, "--resolution", "observed", "--out", path, env=env)


def recover(root: Path, env: dict[str, str], path: Path) -> dict[str, Any]:
    plan = json.loads(path.read_text())
    summary = ok(
        streamt(
            "state", "recover", "-p", root, "--plan", path,
            "--confirm-operation-id", plan["blocked_operation_id"],
            "--confirm-resolution", "observed",
            "--confirm-evidence-checksum", plan["evidence_checksum"], env=env,
        )
    )  # fmt: skip
    assert summary["control_status"] == "clear"
    return summary


def classes(path: Path) -> dict[str, str]:
    return {t["identity"]: t["classification"] for t in json.loads(path.read_text())["targets"]}


def test_sigkill_after_the_runner_started_then_reviewed_recovery(tmp_path, engine, env, runner_image, cleanup):
    root, name = starter(tmp_path, runner_image, env, cleanup)
    container = killed_apply(root, engine, env, name, started=True)
    evidence = tmp_path / "recovery.json"
    ok(recovery_plan(root, env, evidence))
    assert classes(evidence)["eligible_orders"] == "candidate"  # running, with this operation's checksum
    assert recover(root, env, evidence)["state_changed"] is True
    assert set(applied(ok(streamt("apply", "-p", root, env=env))).values()) == {"unchanged"}
    assert [c.id for c in runners(engine, name)] == [container.id]
    assert streamt("status", "-p", root, "--health", env=env).returncode == 0


def test_sigkill_during_container_creation_then_reviewed_recovery(tmp_path, engine, env, runner_image, cleanup):
    root, name = starter(tmp_path, runner_image, env, cleanup)
    container = killed_apply(root, engine, env, name, started=False)
    evidence = tmp_path / "recovery.json"
    container.reload()
    if container.status != "running":
        # Created, never started (no plan inside): it cannot be represented as before or as intended, so
        # recovery refuses until the operator removes it; then the runner is "prior" (absent).
        refused = recovery_plan(root, env, evidence)
        assert json.loads(refused.stdout)["errors"][0]["code"] == "E408_PLAN_FILE_INVALID"
        container.remove(force=True)
        ok(recovery_plan(root, env, evidence))
        assert classes(evidence)["eligible_orders"] == "prior"
        recover(root, env, evidence)
        assert applied(ok(streamt("apply", "-p", root, env=env)))["eligible_orders"] == "created"
    else:
        ok(recovery_plan(root, env, evidence))
        assert classes(evidence)["eligible_orders"] == "candidate"
        recover(root, env, evidence)
        assert set(applied(ok(streamt("apply", "-p", root, env=env))).values()) == {"unchanged"}
    assert len(runners(engine, name)) == 1
    assert streamt("status", "-p", root, "--health", env=env).returncode == 0


def test_faults_stop_the_plan_before_any_mutation(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    root, name = starter(tmp_path, "sha256:" + "e" * 64, env, cleanup)  # an image this engine does not have
    missing = streamt("apply", "-p", root, env=env)
    error = json.loads(missing.stdout)["errors"][0]
    assert error["code"] == "E208_MISSING_CONFIG" and "runtime build" in error["suggestion"]
    secret_host = f"unix://{tmp_path}/user:pw-sentinel@gone.sock"
    down = streamt("apply", "-p", root, env={**env, "DOCKER_HOST": secret_host})
    assert json.loads(down.stdout)["errors"][0]["code"] == "E406_CONNECTION_REFUSED"
    assert "pw-sentinel" not in down.stdout + down.stderr
    tagged = yaml.safe_load((root / "stream_project.yml").read_text())
    tagged["runtime"]["kafka_streams"]["image"] = "streamt-runner:latest"
    (root / "stream_project.yml").write_text(yaml.safe_dump(tagged))
    assert json.loads(streamt("validate", "-p", root, env=env).stdout)["errors"][0]["code"] == "E501_PARSE_ERROR"
    assert not runners(engine, name) and not (root / ".streamt" / "state" / "default.json").exists()

    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        assert not [t for t in admin.list_topics() if t.startswith(f"{name}.")]
    finally:
        admin.close()


def test_a_changed_runner_is_blocked_and_a_failing_one_is_rolled_back(tmp_path, engine, env, runner_image, cleanup):
    root, name = starter(tmp_path, runner_image, env, cleanup)
    ok(streamt("apply", "-p", root, env=env))
    (container,) = runners(engine, name)
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 100", "amount >= 200"))
    blocked = streamt("apply", "-p", root, "--force", env=env)
    assert json.loads(blocked.stdout)["errors"][0]["code"] == "E417_SAFETY_BLOCKED"
    assert [c.id for c in runners(engine, name)] == [container.id]  # untouched
    models.write_text(models.read_text().replace("amount >= 200", "amount >= 100"))
    shutil.rmtree(root / ".streamt")  # the labelled runner now has no ownership record: never adopted silently
    orphan = json.loads(streamt("apply", "-p", root, env=env).stdout)
    assert "E410_OWNERSHIP_REQUIRED" in [e["code"] for e in orphan["errors"]]
    assert [c.id for c in runners(engine, name)] == [container.id]

    # A second runner whose Kafka cannot be reached never gets RUNNING: removed again, volume kept.
    other, other_name = starter(tmp_path, runner_image, env, cleanup)
    project = yaml.safe_load((other / "stream_project.yml").read_text())
    project["runtime"]["kafka"]["bootstrap_servers_internal"] = "127.0.0.1:1"
    (other / "stream_project.yml").write_text(yaml.safe_dump(project))
    failed = streamt("apply", "-p", other, env={**env, "STREAMT_RUNNER_TIMEOUT": "20"})
    envelope = json.loads(failed.stdout)
    assert envelope["errors"][0]["code"] == "E407_DEPLOY_ERROR"
    assert envelope["data"]["failures"][0]["outcome"] == "failed"
    assert not runners(engine, other_name)
    assert [v.name for v in engine.volumes.list(filters={"label": f"io.streamt.project={other_name}"})] == [
        f"streamt-{other_name}-default-eligible_orders-state"
    ]
    control = json.loads((other / ".streamt" / "state" / "default.control.json").read_text())
    assert control["status"] == "recovery_required"


def test_sasl_plain_credentials_reach_the_runner_and_nothing_else(
    tmp_path, engine, env, runner_image, kafka_bootstrap, kafka_sasl_bootstrap, kafka_sasl_credentials, cleanup
):
    root, name = starter(tmp_path, runner_image, env, cleanup)
    secret = kafka_sasl_credentials["alice"]
    project = yaml.safe_load((root / "stream_project.yml").read_text())
    project["runtime"]["kafka"] = {
        "bootstrap_servers": kafka_sasl_bootstrap,
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_username": "alice",
        "sasl_password": "${E2E_KSTREAMS_SASL_PW}",
    }
    (root / "stream_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    sasl_env = {**env, "E2E_KSTREAMS_SASL_PW": secret}
    created = streamt("apply", "-p", root, env=sasl_env)
    assert set(applied(ok(created)).values()) == {"created"}
    produce(kafka_bootstrap, f"{name}.orders.raw.v1", (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    assert [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 2)] == EXPECTED
    status = streamt("status", "-p", root, "--health", env=sasl_env)
    assert status.returncode == 0, status.stdout
    (container,) = runners(engine, name)
    plan_file = b"".join(container.get_archive("/etc/streamt/plan.json")[0])
    written = [p.read_bytes() for p in root.rglob("*") if p.is_file()]
    for blob in [created.stdout.encode(), created.stderr.encode(), status.stdout.encode(), plan_file, *written]:
        assert secret.encode() not in blob
