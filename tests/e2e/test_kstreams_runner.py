"""The Kafka Streams runner against the real Docker Engine and broker of the devstack.

starter -> `runtime build` -> image into the project -> apply creates the runner -> records come out
filtered and projected, checked one by one -> a second apply changes nothing -> `status --health` ->
a stop leaves the consumer group. (The same from an imported topic opens the imported-source
journey of test_kstreams_replacement.) A SIGKILL of apply while the container comes up, then
reviewed recovery; the faults that must stop a plan before any mutation. Every test removes the containers,
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
# --import-mode=importlib does not put this folder on sys.path; the session fixtures' module is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
from kstreams_fixtures import BASE_LABEL, BUILD_LABEL  # noqa: E402
from kstreams_fixtures import SOURCE_STREAMT as STREAMT  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

EXPECTED = [{"id": "o-1", "amount": 250}, {"id": "o-4", "amount": 100}]
# Beyond the starter's samples: SQL's NULL rule, wrong JSON types and non-objects are dropped, never guessed.
EXTRA_EVENTS = [
    b'{"id": "o-5", "amount": null, "paid": true}',
    b'{"id": "o-6", "amount": "900", "paid": true}',
    b"[1, 2, 3]",
    b"not json",
    b'{"id": "o-7", "amount": 100, "paid": true, "note": "kept out"}',
]


@pytest.fixture
def engine(kstreams_engine: Any) -> Any:
    return kstreams_engine  # one client per session (tests/e2e/kstreams_fixtures.py)


@pytest.fixture
def runner_image(kstreams_runner_image: str) -> str:
    return kstreams_runner_image  # built at most once per session, reused from the engine when warm


@pytest.fixture(scope="module")
def env(docker_host: str, kafka_bootstrap: str) -> dict[str, str]:
    return {"DOCKER_HOST": docker_host, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}


def streamt(
    *args: Any, env: dict[str, str], timeout: float = 600, cli: list[str] = STREAMT
) -> subprocess.CompletedProcess:
    """``cli -o json *args``; ``cli`` is the checkout's console script unless a journey passes another."""
    return subprocess.run(
        [*cli, "-o", "json", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=timeout,
    )


def ok(completed: subprocess.CompletedProcess) -> dict[str, Any]:
    envelope = json.loads(completed.stdout)
    assert completed.returncode == 0 and envelope["status"] == "ok", completed.stdout + completed.stderr
    return envelope["data"]


@pytest.fixture
def cleanup(engine: Any, kafka_bootstrap: str) -> Iterator[list[str]]:
    """Projects (by name) whose runner containers, state volumes and topics the test removes at the end."""
    projects: list[str] = []
    yield projects
    remove_projects(engine, kafka_bootstrap, projects)


def remove_projects(engine: Any, bootstrap: str, projects: list[str]) -> None:
    from kafka import KafkaAdminClient

    for name in projects:
        for container in engine.containers.list(all=True, filters={"label": f"io.streamt.project={name}"}):
            container.remove(force=True)
        for volume in engine.volumes.list(filters={"label": f"io.streamt.project={name}"}):
            volume.remove(force=True)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        mine = [t for t in admin.list_topics() if any(t.startswith(f"{name}.") for name in projects)]
        if mine:
            admin.delete_topics(mine)
    finally:
        admin.close()


def starter(
    tmp_path: Path, image: str, env: dict[str, str], cleanup: list[str], cli: list[str] = STREAMT
) -> tuple[Path, str]:
    name = f"ks{uuid.uuid4().hex[:10]}"
    cleanup.append(name)
    root = tmp_path / name
    ok(
        streamt(
            "init", "-p", root, "--executor", "kafka_streams", "--runner-image", image,
            "--docker-network", "host", "--initial-offset", "earliest", env=env, cli=cli,
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


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        offsets = admin.list_group_offsets(group).get(group) or {}
    finally:
        admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


def wait_committed(bootstrap: str, group: str, topic: str, at_least: int, seconds: float = 90) -> dict[int, int]:
    deadline = time.monotonic() + seconds
    while True:
        found = committed(bootstrap, group, topic)
        if sum(found.values()) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def processed(bootstrap: str, group: str, source: str, inputs: int, output: str) -> list[tuple[bytes, Any]]:
    """Every record of ``output`` once the runner ``group`` has committed ``inputs`` records of ``source``.

    The runner flushes its producer before it commits its input offsets, so by then every output of
    those inputs is in the log: reading up to the end offsets taken afterwards sees each of them, and
    any record too many (a reprocessed or unfiltered one), without waiting for more to show up.
    """
    done = wait_committed(bootstrap, group, source, inputs)
    assert sum(done.values()) >= inputs, f"{group} committed {done} of {source}, expected {inputs} records"
    return read_to_end(bootstrap, output)


def read_to_end(bootstrap: str, topic: str, seconds: float = 60) -> list[tuple[bytes, Any]]:
    """``(key, JSON value)`` of every record of ``topic`` up to its current end offsets, in log order."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    found: list[tuple[bytes, Any]] = []
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        assert partitions, f"{topic} does not exist"
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        ends = consumer.end_offsets(partitions)
        deadline = time.monotonic() + seconds
        while any(consumer.position(tp) < end for tp, end in ends.items()):
            assert time.monotonic() < deadline, f"{topic} not read up to {ends} in {seconds} s"
            for records in consumer.poll(timeout_ms=500).values():
                found += [(r.key, json.loads(r.value)) for r in records]
    finally:
        consumer.close()
    return found


def applied(data: dict[str, Any]) -> dict[str, str]:
    return {a["identity"]: a["result"] for a in data["actions"]}


def runners(engine: Any, name: str) -> list[Any]:
    return engine.containers.list(all=True, filters={"label": f"io.streamt.project={name}"})


def group_members(bootstrap: str, group: str) -> list[Any]:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        description = admin.describe_groups([group])[group]
    finally:
        admin.close()
    return list(description["members"])


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
    app_id = f"streamt-{name}-default-eligible_orders"
    out = processed(kafka_bootstrap, app_id, f"{name}.orders.raw.v1", 9, f"{name}.orders.eligible.v1")
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
    # A stopped runner has left its consumer group: a successor gets the partitions without waiting
    # for the session timeout.
    assert group_members(kafka_bootstrap, app_id) == []
    stopped = streamt("status", "-p", root, "--health", env=env)
    assert stopped.returncode == 1
    assert [r["status"] for r in json.loads(stopped.stdout)["data"]["kafka_streams_jobs"]] == ["EXITED"]


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
    # The timeout only has to run out (this runner never reaches its Kafka): the smallest bound will do.
    failed = streamt("apply", "-p", other, env={**env, "STREAMT_RUNNER_TIMEOUT": "8"})
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
    app_id, raw = f"streamt-{name}-default-eligible_orders", f"{name}.orders.raw.v1"
    produce(kafka_bootstrap, raw, (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    assert [v for _, v in processed(kafka_bootstrap, app_id, raw, 4, f"{name}.orders.eligible.v1")] == EXPECTED
    status = streamt("status", "-p", root, "--health", env=sasl_env)
    assert status.returncode == 0, status.stdout
    (container,) = runners(engine, name)
    plan_file = b"".join(container.get_archive("/etc/streamt/plan.json")[0])
    written = [p.read_bytes() for p in root.rglob("*") if p.is_file()]
    for blob in [created.stdout.encode(), created.stderr.encode(), status.stdout.encode(), plan_file, *written]:
        assert secret.encode() not in blob
