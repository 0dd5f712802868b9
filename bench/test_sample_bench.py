"""Benchmark: `streamt test` sample tests over 100 topics x 1,000 records, and SQL assertions per 10,000 rows.

Three measurements (``./dev bench test_sample_bench``; needs ``./dev stack up --only kafka``, or
``STREAMT_STACK_DIR`` naming a running stack):

* ``sample 100x1000`` — one ``streamt -o json test`` process (interpreter start-up included) running 100
  sample tests (``not_null``, ``accepted_values``, ``range``, ``unique_key``, ``expression``) over 100 topics
  of 1,000 JSON records (2 partitions each): CPU (user + sys), wall time and the child's peak RSS; paired, in
  each of ``STREAMT_BENCH_ROUNDS`` (3) rounds, with the *floor*: a fresh process with one plain kafka-python
  consumer reading the same records and JSON-decoding each (``floor``); the ratio is streamt's CPU over the
  floor's;
* ``bounded read`` — one topic of 20,000 records with ``sample_size: 1000``: records read, wall time and
  peak RSS, to show the read is bounded by ``sample_size`` and not by the topic;
* ``sql per 10k rows`` — in-process: open the run's DuckDB connection (with a one-row table), load 10,000
  decoded rows into it and evaluate one ``expression`` and one ``custom_sql`` ``where`` (median of 5), plus the
  Python row assertions over the same rows.

The children run without ``PYTHONDONTWRITEBYTECODE`` after one unmeasured warm-up of each, so both read
bytecode caches, as an installation does. Topics are deleted afterwards.
Usage: ``./dev bench test_sample_bench [topics] [records]``.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STREAMT = str(Path(sys.executable).with_name("streamt"))
# The children keep their bytecode caches, as a user's installation does (the editable sources have none
# until a child writes them; one unmeasured warm-up run of each side does).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ASSERTIONS = [
    {"not_null": {"columns": ["order_id"]}},
    {"accepted_values": {"column": "status", "values": ["new", "paid"]}},
    {"range": {"column": "amount", "min": 0, "max": 100000}},
    {"unique_key": {"key": "order_id"}},
    {"expression": {"sql": "amount >= 0"}},
]


def record(i: int) -> dict[str, Any]:
    return {"order_id": f"o{i}", "amount": i % 5000, "status": "new" if i % 2 else "paid", "note": "x" * 40}


def make_topics(bootstrap: str, names: list[str], records: int) -> None:
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(n, 2, 1) for n in names])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, batch_size=256 * 1024)
    for name in names:
        for i in range(records):
            producer.send(name, json.dumps(record(i)).encode(), partition=i % 2)
    producer.flush()
    producer.close()


def drop_topics(bootstrap: str, names: list[str]) -> None:
    from kafka.admin import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.delete_topics(names)
    admin.close()


def project(root: Path, bootstrap: str, topics: list[str], sample_size: int) -> Path:
    from streamt_testing import write_project

    return write_project(
        root,
        {
            "stream_project.yml": {
                "project": {"name": "bench"},
                "runtime": {"kafka": {"bootstrap_servers": bootstrap}},
                "sources": [{"name": f"s{i:03d}", "topic": t} for i, t in enumerate(topics)],
                "tests": [
                    {"name": f"q{i:03d}", "model": f"s{i:03d}", "type": "sample", "sample_size": sample_size,
                     "assertions": ASSERTIONS}
                    for i in range(len(topics))
                ],
            }
        },
    )  # fmt: skip


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(path: Path) -> tuple[float, float, float, dict[str, Any]]:
    """Wall seconds, the child's CPU seconds (user + sys), its peak RSS in MiB, and the envelope."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [STREAMT, "-o", "json", "test", "-p", str(path)], capture_output=True, text=True, check=False, env=CHILD_ENV
    )
    elapsed = time.perf_counter() - started
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return elapsed, children_cpu() - cpu, peak, json.loads(done.stdout)


def run_floor(bootstrap: str, topics: list[str], budget: int) -> tuple[float, float, int]:
    """The floor in a fresh process: wall seconds, its CPU seconds (user + sys), and the records it decoded."""
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--floor", bootstrap, str(budget), *topics],
        capture_output=True,
        text=True,
        check=True,
        env=CHILD_ENV,
    )
    elapsed = time.perf_counter() - started
    return elapsed, children_cpu() - cpu, int(done.stdout)


def floor(bootstrap: str, budget: int, topics: list[str]) -> int:
    """What the sample read cannot go below: one plain kafka-python consumer (no group) that reads the same
    records (each topic's ``budget`` most recent, shared evenly by its partitions) and JSON-decodes each value.
    Imports nothing of streamt, so its start-up is the interpreter's and kafka-python's only."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=[bootstrap], group_id=None, enable_auto_commit=False)
    wanted = [TopicPartition(t, p) for t in topics for p in sorted(consumer.partitions_for_topic(t) or ())]
    ends, begins = consumer.end_offsets(wanted), consumer.beginning_offsets(wanted)
    per_topic = {t: sum(1 for tp in wanted if tp.topic == t) for t in topics}
    spans = {tp: (max(begins[tp], ends[tp] - budget // per_topic[tp.topic]), ends[tp]) for tp in wanted}
    spans = {tp: span for tp, span in spans.items() if span[1] > span[0]}
    consumer.assign(list(spans))
    for tp, (start, _) in spans.items():
        consumer.seek(tp, start)
    decoded = 0
    pending = set(spans)
    while pending:  # the bench's topics have no transaction markers: the last offset says "done"
        for tp, batch in consumer.poll(timeout_ms=200, max_records=10_000).items():
            for message in batch:
                if message.offset < spans[tp][1]:
                    json.loads(message.value)
                    decoded += 1
            if batch and batch[-1].offset >= spans[tp][1] - 1:
                pending.discard(tp)
                consumer.pause(tp)
    consumer.close(autocommit=False)
    return decoded


def sql_cost(rows_count: int) -> dict[str, float]:
    from streamt.testrun import Assertion, Target
    from streamt_kafka.sample_assert import ROW_ASSERTIONS, Row
    from streamt_kafka.sample_sql import SampleEngine, evaluate

    rows = [Row(i % 2, i // 2, f"k{i}".encode(), record(i)) for i in range(rows_count)]
    target = Target(kind="source", name="s", topic="t")
    expression = Assertion(0, "expression", {"sql": "amount >= 0"})
    where = Assertion(1, "custom_sql", {"name": "n", "where": "`status` = 'weird'", "detail_column": "note"})
    timings: dict[str, list[float]] = {
        "connect (once per run)": [], "load": [], "expression": [], "custom_sql": [], "python row checks": [],
    }  # fmt: skip
    for _ in range(5):
        engine = SampleEngine()
        started = time.perf_counter()
        with engine.table(rows[:1]):  # the connection opens at the run's first table
            timings["connect (once per run)"].append(time.perf_counter() - started)
        started = time.perf_counter()
        with engine.table(rows) as con:
            timings["load"].append(time.perf_counter() - started)
            for name, assertion in (("expression", expression), ("custom_sql", where)):
                started = time.perf_counter()
                evaluate(con, assertion, rows, target)
                timings[name].append(time.perf_counter() - started)
        engine.close()
        started = time.perf_counter()
        for index, spec in enumerate(ASSERTIONS[:4]):
            kind, body = next(iter(spec.items()))
            ROW_ASSERTIONS[kind](Assertion(index, kind, body), rows, target)
        timings["python row checks"].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in timings.items()}


def main() -> None:
    if sys.argv[1:2] == ["--floor"]:
        print(floor(sys.argv[2], int(sys.argv[3]), sys.argv[4:]))
        return
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    records = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    stack = Path(os.environ.get("STREAMT_STACK_DIR", ROOT / ".stack"))
    endpoints = json.loads((stack / "endpoints.json").read_text())
    bootstrap = os.environ.get("STREAMT_BENCH_KAFKA", endpoints["kafka_bootstrap"])
    prefix = f"bench-sample-{uuid.uuid4().hex[:8]}"
    topics = [f"{prefix}.t{i:03d}" for i in range(count)]
    big = f"{prefix}.big"
    rounds = int(os.environ.get("STREAMT_BENCH_ROUNDS", "3"))
    try:
        started = time.perf_counter()
        make_topics(bootstrap, topics, records)
        make_topics(bootstrap, [big], 20 * records)
        print(f"produced {count} x {records} + 1 x {20 * records} records in {time.perf_counter() - started:.1f} s")
        print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
        with tempfile.TemporaryDirectory() as tmp:
            many = project(Path(tmp) / "many", bootstrap, topics, records)
            bounded = project(Path(tmp) / "big", bootstrap, [big], records)
            run_cli(bounded)  # warm-up: bytecode caches written, not measured
            run_floor(bootstrap, [big], records)
            ratios = []
            for round_ in range(rounds):  # paired: streamt, then the floor, each round
                elapsed, cpu, peak, envelope = run_cli(many)
                read = sum(t["messages"] or 0 for t in envelope["data"]["tests"])
                floor_wall, floor_cpu, floor_read = run_floor(bootstrap, topics, records)
                ratios.append(cpu / floor_cpu)
                print(f"round {round_ + 1}: sample {count}x{records}: {cpu:.2f} s CPU, {elapsed:.2f} s wall, "
                      f"peak RSS {peak:.0f} MiB, {read} records read, summary {envelope['data']['summary']}; "
                      f"floor {floor_cpu:.2f} s CPU, {floor_wall:.2f} s wall, {floor_read} records decoded; "
                      f"streamt/floor {cpu / floor_cpu:.2f}x")  # fmt: skip
                if floor_read != read:
                    print(f"  (the floor decoded {floor_read} records, streamt read {read}: not the same work)")
            print(f"streamt/floor CPU, median of {rounds} paired rounds: {statistics.median(ratios):.2f}x")
            elapsed, cpu, peak, envelope = run_cli(bounded)
            test = envelope["data"]["tests"][0]
            print(f"bounded read: topic of {20 * records} records, sample_size {records}: {test['messages']} read, "
                  f"{cpu:.2f} s CPU, {elapsed:.2f} s wall, peak RSS {peak:.0f} MiB")  # fmt: skip
    finally:
        drop_topics(bootstrap, [*topics, big])
    for name, ms in sql_cost(10_000).items():
        print(f"sql per 10k rows: {name}: {ms:.1f} ms (median of 5)")


if __name__ == "__main__":
    main()
