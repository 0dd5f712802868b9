"""Benchmark: online plan and apply of 100 / 1,000 / 2,000 topics against the devstack broker.

Per size, in one process (the CLI's own code path, without the interpreter start-up): compile a
project of N managed topic models (each declaring ``retention.ms``), then

* ``plan (absent)``   — observe N absent topics and plan N creates;
* ``apply``           — plan again under the state lock, create in batches, commit local state;
* ``plan (existing)`` — observe N existing topics: the number to beat is < 5 s at 2,000 with a
  constant number of admin requests.
* ``observe``         — the observation alone (``TopicObserver.observe``, its admin client included),
  and ``observe (kafka-python)``: the same two requests through kafka-python's ``describe_topics`` and
  ``describe_configs`` (the observer's previous shape), on the same topics in the same run.

* ``observe (broker)`` — the broker's own time for the observation: the same Metadata and DescribeConfigs
  requests (the same versions, names and key) written to a plain socket and timed until the last byte of
  each answer, nothing decoded (PLAINTEXT listeners only), so ``plan (existing) / observe (broker)``
  says how much of a plan is not the broker. ``--plan-rounds R`` repeats ``plan (existing)``, ``observe``
  and ``observe (broker)`` R times, interleaved (the topics stay between rounds).

* ``plan (process)`` and ``describe floor`` — what a user waits for: a second ``streamt plan`` of the
  project as a fresh process (start-up, load, compile, state read, observation, diff, text rendering),
  against the raw describe floor, a fresh process that imports kafka-python and, through its
  ``KafkaAdminClient``, describes the same topics (``describe_topics``) and their declared configuration
  keys (``describe_configs``), which is what the plan needs to know. CPU (user + system of the child,
  ``wait4``) and wall, ``--process-rounds R`` interleaved rounds (default 5), medians; ``plan / floor`` of
  both is printed. With ``--profile PREFIX`` the last plan process runs under cProfile
  (``PREFIX-<size>-process.prof``, its own round, outside the medians).

* ``floor``           — the broker's own time for the same N topics (fresh names): one CreateTopics
  request with all of them up to 3,000 (KRaft refuses larger ones, see ``FLOOR_BATCH``),
  then until metadata shows every one with a leader (what apply also waits for, read the same cheap
  way: ``topic_reads.wait_until_ready``; kafka-python's ``wait_for_topics`` spends seconds of client
  CPU per poll at 10,000 topics), measured right after, so ``apply / floor`` compares like with like
  under the same load.

Admin requests are counted per phase by wrapping ``RequestCounter.add`` (every batched admin call
goes through it). Every topic (unique prefix per run, ``--prefix NAME`` to choose its first part) is
deleted afterwards. ``--no-floor`` leaves the apply floor out. ``--profile PREFIX`` writes a cProfile of
the ``apply`` and ``plan (existing)`` phases (``PREFIX-<size>-apply.prof``, ``PREFIX-<size>-plan.prof``).
Usage: ``./dev bench kafka_plan_apply_bench [--prefix NAME] [--profile PREFIX] [--plan-rounds R]
[--process-rounds R] [--no-floor] [sizes...]``; needs the devstack (``./dev stack up --only kafka``;
``STREAMT_STACK_ENDPOINTS`` names another endpoints file).
"""

from __future__ import annotations

import contextlib
import cProfile
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from streamt_kafka.topic_reads import wait_until_ready
from streamt_kafka.topics_live import DesiredTopic, RequestCounter, create_topics_with_ids
from streamt_testing import write_project

ROOT = Path(__file__).resolve().parent.parent
REQUESTS: Counter[str] = Counter()
_original_add = RequestCounter.add


def _counting_add(self: RequestCounter, phase: str) -> None:
    REQUESTS[phase] += 1
    _original_add(self, phase)


RequestCounter.add = _counting_add  # type: ignore[method-assign]


def project(root: Path, bootstrap: str, prefix: str, size: int) -> Path:
    models = [
        {
            "name": f"t{i:05d}",
            "advanced": {"topic": {"name": f"{prefix}.t{i:05d}", "config": {"retention.ms": 3600000}}},
        }
        for i in range(size)
    ]
    files = {
        "stream_project.yml": {
            "project": {"name": "bench"},
            "runtime": {"kafka": {"bootstrap_servers": bootstrap}},
            "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
            "models": models,
        }
    }
    return write_project(root, files)


def phase(name: str, fn, profile: str | None = None):  # type: ignore[no-untyped-def]
    REQUESTS.clear()
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    result = fn()
    seconds = time.perf_counter() - started
    if profiler is not None and profile:
        profiler.disable()
        profiler.dump_stats(profile)
    return result, {"phase": name, "seconds": round(seconds, 2), "requests": dict(REQUESTS)}


def run(
    size: int,
    bootstrap: str,
    prefix: str,
    profile: str | None = None,
    plan_rounds: int = 1,
    with_floor: bool = True,
    process_rounds: int = 5,
) -> list[dict]:
    from streamt.apply.executor import deployers_by_kind, execute
    from streamt.compile import load_and_compile
    from streamt.plan.online import open_backend, plan_online
    from streamt.plugins import get_plugins

    with tempfile.TemporaryDirectory() as tmp, _deleted_afterwards(bootstrap, prefix):
        root = project(Path(tmp) / "p", bootstrap, prefix, size)
        loaded = load_and_compile(root, None)
        backend = open_backend(loaded.project, "write")
        plugins = get_plugins()
        rows = []
        (plan, _), row = phase("plan (absent)", lambda: plan_online(loaded.project, loaded.compiled, backend))
        assert plan.counts["create"] == size
        rows.append(row)

        def apply() -> object:
            with backend.operation_lock():
                backend.require_clear()
                fresh, _ = plan_online(loaded.project, loaded.compiled, backend)
                artifacts = {(a.kind, a.identity): a for a in loaded.compiled.artifacts}
                return execute(fresh, artifacts, deployers_by_kind(plugins, loaded.project.runtime), backend)

        report, row = phase("apply", apply, profile and f"{profile}-{size}-apply.prof")
        assert all(result == "created" for _, result in report.results)  # type: ignore[attr-defined]
        rows.append(row)
        topics = [a for a in loaded.compiled.artifacts if a.kind == "topic"]
        for _ in range(plan_rounds):
            (plan, _), row = phase(
                "plan (existing)",
                lambda: plan_online(loaded.project, loaded.compiled, backend),
                profile and f"{profile}-{size}-plan.prof",
            )
            assert plan.counts["noop"] == size, plan.counts
            rows.append(row)
            rows += observe_both(loaded.project.runtime, topics)
            rows.append(observe_on_the_wire(bootstrap, topics))
        if process_rounds:
            rows += plan_process_and_describe_floor(root, bootstrap, topics, process_rounds, Path(tmp))
            if profile:
                profiled = f"{profile}-{size}-process.prof"
                _process([sys.executable, "-m", "cProfile", "-o", profiled, "-m", "streamt", "plan", "-p", str(root)])
    if with_floor:
        rows.append(floor(bootstrap, f"{prefix}-floor", size))
    return [dict(r, topics=size) for r in rows]


# The raw describe floor: kafka-python's admin client reading what a plan of these topics needs, nothing else.
DESCRIBE_FLOOR = """
import json, sys
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType
bootstrap, keys_file = sys.argv[1:3]
keys = json.loads(open(keys_file).read())
admin = KafkaAdminClient(bootstrap_servers=bootstrap)
try:
    present = [t["name"] for t in admin.describe_topics(sorted(keys)) if t["error_code"] == 0]
    wanted = [ConfigResource(ConfigResourceType.TOPIC, n, configs=dict.fromkeys(keys[n])) for n in present]
    if wanted:
        admin.describe_configs(wanted)
finally:
    admin.close()
assert len(present) == len(keys), (len(present), len(keys))
"""


def plan_process_and_describe_floor(root: Path, bootstrap: str, topics: list, rounds: int, tmp: Path) -> list[dict]:  # type: ignore[type-arg]
    """``streamt plan`` of the project (fresh process) against ``DESCRIBE_FLOOR`` (fresh process), interleaved:
    rows of their median CPU and wall, and of plan / floor for each."""
    keys = tmp / "floor-keys.json"
    keys.write_text(json.dumps({t.identity: sorted(t.spec.get("config") or {}) for t in topics}))
    output = tmp / "plan.txt"
    plan_argv = [str(Path(sys.executable).with_name("streamt")), "plan", "-p", str(root)]
    floor_argv = [sys.executable, "-c", DESCRIBE_FLOOR, bootstrap, str(keys)]
    plans, floors = [], []
    for _ in range(rounds):
        plans.append(_process(plan_argv, output))
        floors.append(_process(floor_argv))
    if not output.read_text().startswith("Plan: 0 to create, 0 to update, 0 to delete"):
        raise SystemExit(f"plan (process): not a plan without changes:\n{output.read_text()[:2000]}")
    rows = []
    for name, runs in (("plan (process)", plans), ("describe floor", floors)):
        cpu, wall = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        rows.append(
            {"phase": name, "seconds": round(wall, 2), "requests": {"cpu": round(cpu, 3), "wall": round(wall, 3)}}
        )
    ratio = {key: round(rows[0]["requests"][key] / rows[1]["requests"][key], 2) for key in ("cpu", "wall")}
    rows.append({"phase": "plan / floor", "seconds": ratio["wall"], "requests": ratio})
    return rows


def _process(argv: list[str], output: Path | None = None) -> tuple[float, float]:
    """CPU (user + system) and wall seconds of one fresh process; stdout to ``output`` when given."""
    with tempfile.TemporaryFile() as err, open(output or os.devnull, "wb") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        if status:
            err.seek(0)
            raise SystemExit(f"failed ({status}): {argv[0]} {argv[1]}\n{err.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall


def observe_on_the_wire(bootstrap: str, topics: list) -> dict:  # type: ignore[type-arg]
    """The broker's time for the observation's two requests: written to a plain socket (one connection, one
    after the other, as the observer sends them), each timed until its answer's last byte, nothing decoded."""
    from kafka import KafkaAdminClient
    from kafka.protocol.admin import DescribeConfigsRequest
    from kafka.protocol.metadata import MetadataRequest
    from streamt_kafka.topic_reads import _metadata_request

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        versions = admin._manager.broker_version_data  # what the observer's client negotiated
    finally:
        admin.close()
    names = sorted(t.identity for t in topics)
    resource = DescribeConfigsRequest.DescribeConfigsResource
    configs = DescribeConfigsRequest(
        resources=[
            resource(resource_type=2, resource_name=t.identity, configuration_keys=sorted(t.spec.get("config") or {}))
            for t in sorted(topics, key=lambda t: t.identity)
        ],
        include_synonyms=False,
    )
    host, port = bootstrap.rsplit(":", 1)
    seconds = {}
    with socket.create_connection((host, int(port))) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for correlation, (label, request) in enumerate(
            (("metadata", _metadata_request(MetadataRequest, names)), ("describe_configs", configs)), start=1
        ):
            request.API_VERSION = versions.api_version(request)
            request.with_header(correlation_id=correlation, client_id="streamt-bench")
            started = time.perf_counter()
            sock.sendall(request.encode(framed=True, header=True))
            size = struct.unpack(">i", _read_exactly(sock, 4))[0]
            answer = _read_exactly(sock, size)
            seconds[label] = time.perf_counter() - started
            assert struct.unpack(">i", answer[:4])[0] == correlation, "answer to another request"
    return {
        "phase": "observe (broker)",
        "seconds": round(sum(seconds.values()), 2),
        "requests": {label: round(value, 2) for label, value in seconds.items()},
    }


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        received = sock.recv_into(view[got:])
        if not received:
            raise SystemExit("the broker closed the connection mid-answer")
        got += received
    return bytes(buffer)


def observe_both(runtime: object, topics: list) -> list[dict]:  # type: ignore[type-arg]
    """The observer's own observation next to kafka-python's ``describe_topics`` + ``describe_configs``."""
    from kafka.admin import ConfigResource, ConfigResourceType
    from streamt_kafka.admin import admin_client
    from streamt_kafka.observers import TopicObserver, kafka_settings

    def previous() -> None:
        with admin_client(kafka_settings(runtime)) as admin:
            names = sorted(t.identity for t in topics)
            present = [e["name"] for e in admin.describe_topics(names) if e.get("error_code", 0) != 3]
            keys = {t.identity: sorted(t.spec.get("config") or {}) for t in topics}
            wanted = [ConfigResource(ConfigResourceType.TOPIC, n, configs=dict.fromkeys(keys[n])) for n in present]
            admin.describe_configs(wanted, config_filter="all")

    observed, row = phase("observe", lambda: TopicObserver(runtime).observe(topics))
    assert all(o.status == "present" for o in observed.values())
    _, before = phase("observe (kafka-python)", previous)
    return [row, before]


# KRaft refuses a CreateTopics request that needs more than 10,000 metadata records ("Unable to perform
# excessively large batch operation", POLICY_VIOLATION): a topic with one partition and one config is 3
# records, so the broker's own floor for N > 3,333 such topics is more than one call.
FLOOR_BATCH = 3000


def floor(bootstrap: str, prefix: str, size: int) -> dict:
    """The fewest CreateTopics requests the controller accepts for ``size`` topics (one up to 3,000), each
    followed by the metadata wait apply also does; topics deleted after. The requests are sent and read
    the cheap way apply sends them (``create_topics_with_ids``): kafka-python's ``create_topics`` turns each
    answer's per-topic configuration into dicts, seconds of client CPU that are not the broker's."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=600_000)
    topics = [DesiredTopic(f"{prefix}.t{i:05d}", 1, 1, {"retention.ms": "3600000"}) for i in range(size)]
    calls, created = 0, 0.0
    try:
        started = time.perf_counter()
        for start in range(0, size, FLOOR_BATCH):
            batch = topics[start : start + FLOOR_BATCH]
            call = time.perf_counter()
            errors, _ = create_topics_with_ids(admin, batch)
            created += time.perf_counter() - call
            calls += 1
            failed = sorted({error for error in errors.values() if error is not None})
            if failed:
                raise SystemExit(f"floor: topics refused: {failed}")
            pending = wait_until_ready(admin, [t.name for t in batch], 600.0)
            if pending:
                raise SystemExit(f"floor: {len(pending)} topics not visible after 600 s")
        visible = time.perf_counter() - started
    finally:
        admin.close()
        _cleanup(bootstrap, prefix)
    return {
        "phase": "floor",
        "seconds": round(visible, 2),
        "requests": {"create_topics": calls, "in create": round(created, 2)},
    }


@contextlib.contextmanager
def _deleted_afterwards(bootstrap: str, prefix: str) -> Iterator[None]:
    """The topics under ``prefix`` are deleted however the block ends (a failed assertion included)."""
    try:
        yield
    finally:
        _cleanup(bootstrap, prefix)


def _cleanup(bootstrap: str, prefix: str) -> None:
    """Delete every topic under ``prefix``, repeating (bounded) while the broker still lists some:
    deleting thousands of topics takes the controller longer than one request's timeout."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=120_000)
    try:
        for _ in range(30):
            names = [t for t in admin.list_topics() if t.startswith(prefix + ".")]
            if not names:
                return
            for start in range(0, len(names), 500):
                admin.delete_topics(names[start : start + 500], timeout_ms=120_000, raise_errors=False)
            time.sleep(5)
        print(f"warning: topics under {prefix}. still listed after cleanup", file=sys.stderr)
    finally:
        admin.close()


def main() -> None:
    args = sys.argv[1:]
    flags = ("--prefix", "--profile", "--plan-rounds", "--process-rounds")
    options = {flag: args[args.index(flag) + 1] for flag in flags if flag in args}
    sizes = [int(a) for a in args if a.isdigit() and a not in options.values()] or [100, 1000, 2000]
    endpoints = Path(os.environ.get("STREAMT_STACK_ENDPOINTS", ROOT / ".stack" / "endpoints.json"))
    bootstrap = json.loads(endpoints.read_text())["kafka_bootstrap"]
    print(f"{'topics':>6}  {'phase':<16} {'seconds':>7}  requests")
    for size in sizes:
        prefix = f"{options.get('--prefix', 'bench')}-{uuid.uuid4().hex[:8]}"
        plan_rounds = int(options.get("--plan-rounds", 1))
        process_rounds = int(options.get("--process-rounds", 5))
        rows = run(
            size, bootstrap, prefix, options.get("--profile"), plan_rounds, "--no-floor" not in args, process_rounds
        )
        for row in rows:
            print(f"{row['topics']:>6}  {row['phase']:<16} {row['seconds']:>7}  {row['requests']}")
        seconds = {row["phase"]: row["seconds"] for row in rows}
        if "floor" in seconds:
            print(f"{size:>6}  apply / floor    {seconds['apply'] / max(seconds['floor'], 0.01):>7.2f}")
        plans = [row["seconds"] for row in rows if row["phase"] == "plan (existing)"]
        wire = [row["seconds"] for row in rows if row["phase"] == "observe (broker)"]
        print(f"{size:>6}  plan (existing) / observe (broker), summed over {plan_rounds}: {sum(plans) / sum(wire):.2f}")


if __name__ == "__main__":
    main()
