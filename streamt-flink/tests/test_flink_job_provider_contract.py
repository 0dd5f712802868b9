"""Flink SQL jobs keep the provider contract (streamt_testing.contracts), against the real Flink + SQL Gateway.

One pair of topics per class (``contracts.<hex>.raw`` -> ``.out``), one job name per test
(``contracts/default/contracts_<hex>``). The update is a ``stateless`` upgrade (cancel, start the
new SQL from scratch: the cheapest reviewed update; the savepoint path has its own end-to-end
tests in tests/e2e/test_flink_lifecycle.py). The refused create is an INSERT the SQL Gateway's
planner rejects (an undeclared column); the unanswered trio points at closed ports. A cancelled
job stays in the cluster's history, so the class declares ``keeps_history``. Every job a test
started is cancelled at its end and the topics are deleted with the class.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from streamt.sdk import KIND_FLINK_JOB, Artifact, load_and_compile
from streamt_flink.deployers import FlinkJobDeployer
from streamt_flink.planning import FlinkJobObserver, FlinkJobPlanner
from streamt_flink.rest import TERMINAL
from streamt_testing import closed_port, write_project
from streamt_testing.contracts import ProviderContract

pytestmark = [pytest.mark.kafka, pytest.mark.flink]

PROJECT = "contracts"
SQL = 'SELECT id, UPPER(name) AS name_upper FROM {{ source("raw") }}'
CHANGED_SQL = SQL + " WHERE name <> 'contracts'"
REFUSED_SQL = 'SELECT id, no_such_column FROM {{ source("raw") }}'  # the SQL Gateway's planner refuses it
CANCEL_SECONDS = 60.0
TOPIC_WAIT_MS = 120_000  # a new topic's leader, on a loaded 2-CPU machine


@pytest.fixture(scope="class")
def topics(kafka_bootstrap: str) -> Iterator[tuple[str, str]]:
    from kafka import KafkaAdminClient

    prefix = f"contracts.{uuid.uuid4().hex[:8]}"
    names = (f"{prefix}.raw", f"{prefix}.out")
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        # A job started before its input topic has a leader fails: wait for the metadata.
        one = {"num_partitions": 1, "replication_factor": 1}
        admin.create_topics({name: one for name in names})
        admin.wait_for_topics(names, timeout_ms=TOPIC_WAIT_MS)
        yield names
    finally:
        admin.delete_topics(list(names))
        admin.close()


def _files(name: str, endpoints: dict[str, str], topics: tuple[str, str], sql: str) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "project": {"name": PROJECT},
            "runtime": {
                "kafka": {"bootstrap_servers": endpoints["kafka"]},
                "flink": {
                    "default": "local",
                    "clusters": {"local": {"rest_url": endpoints["rest"], "sql_gateway_url": endpoints["gateway"]}},
                },
            },
            "sources": [
                {
                    "name": "raw",
                    "topic": topics[0],
                    "columns": [{"name": "id", "type": "STRING"}, {"name": "name", "type": "STRING"}],
                }
            ],
            "models": [
                {
                    "name": name,
                    "materialized": "flink",
                    "sql": sql,
                    "advanced": {
                        "topic": {"name": topics[1], "partitions": 1, "replication_factor": 1},
                        "flink": {"parallelism": 1, "upgrade_mode": "stateless"},
                    },
                }
            ],
        }
    }


def _cancel_all(rest: str, pipeline: str) -> None:
    """Cancel every live job named ``pipeline`` and wait (bounded) until none is left: slots are shared."""
    deadline = time.monotonic() + CANCEL_SECONDS
    while True:
        listed = requests.get(f"{rest}/jobs/overview", timeout=10).json()["jobs"]
        live = [j["jid"] for j in listed if j["name"] == pipeline and j["state"] not in TERMINAL]
        if not live or time.monotonic() > deadline:
            assert not live, f"jobs {live} of {pipeline} were not cancelled"
            return
        for job_id in live:
            requests.patch(f"{rest}/jobs/{job_id}?mode=cancel", timeout=10)
        time.sleep(1)


class TestFlinkJobProvider(ProviderContract):
    @pytest.fixture
    def parts(
        self,
        tmp_path: Path,
        topics: tuple[str, str],
        kafka_bootstrap: str,
        flink_rest_url: str,
        flink_sql_gateway_url: str,
    ) -> Iterator[Callable[..., tuple[Any, Artifact]]]:
        name = f"contracts_{uuid.uuid4().hex[:8]}"
        endpoints = {"kafka": kafka_bootstrap, "rest": flink_rest_url, "gateway": flink_sql_gateway_url}
        made: set[str] = set()

        def make(sql: str = SQL, model: str = name, **where: str) -> tuple[Any, Artifact]:
            files = _files(model, {**endpoints, **where}, topics, sql)
            root = write_project(tmp_path / f"{model}-{len(made)}", files)
            made.add(f"{PROJECT}/default/{model}")
            loaded = load_and_compile(root, None)
            (artifact,) = loaded.compiled.of_kind(KIND_FLINK_JOB)
            return loaded.project.runtime, artifact

        yield make
        for pipeline in sorted(made):
            _cancel_all(flink_rest_url, pipeline)

    @pytest.fixture
    def provider(self, parts):
        runtime, _ = parts()
        return FlinkJobObserver(runtime), FlinkJobPlanner(), FlinkJobDeployer(runtime)

    @pytest.fixture
    def unanswered(self, parts):
        closed = {"rest": f"http://127.0.0.1:{closed_port()}", "gateway": f"http://127.0.0.1:{closed_port()}"}
        runtime, _ = parts(**closed)
        return FlinkJobObserver(runtime), FlinkJobPlanner(), FlinkJobDeployer(runtime)

    @pytest.fixture
    def desired(self, parts) -> Artifact:
        return parts()[1]

    @pytest.fixture
    def changed(self, parts):
        return lambda _artifact: parts(sql=CHANGED_SQL)[1]

    @pytest.fixture
    def refused(self, parts) -> Artifact:
        return parts(sql=REFUSED_SQL, model=f"contracts_{uuid.uuid4().hex[:8]}")[1]

    @pytest.fixture
    def keeps_history(self) -> bool:
        return True
