"""``observe`` metrics of a Flink job from the REST shapes (a fake client; the e2e test uses the real cluster)."""

from __future__ import annotations

from typing import Any

import pytest
from streamt.errors import Codes, StreamtError
from streamt_flink.metrics import job_metrics

JOB = {
    "vertices": [{"id": "src", "name": "Source", "parallelism": 2}, {"id": "snk", "name": "Sink", "parallelism": 1}],
    "plan": {"nodes": [{"id": "src"}, {"id": "snk", "inputs": [{"id": "src"}]}]},
}
RATES = {
    "src": [{"id": "numRecordsInPerSecond", "sum": 0.0}, {"id": "numRecordsOutPerSecond", "sum": 41.5}],
    "snk": [{"id": "numRecordsInPerSecond", "sum": 40.25}, {"id": "numRecordsOutPerSecond", "sum": 0.0}],
}
PRESSURE = {
    "src": {"backpressureLevel": "high", "subtasks": [{"ratio": 0.7}, {"ratio": 0.2}]},
    "snk": {"backpressureLevel": "ok", "subtasks": [{"ratio": 0.0}]},
}
CHECKPOINTS = {"counts": {"completed": 12, "failed": 1}, "latest": {"completed": {"latest_ack_timestamp": 1_000_000}}}


class FakeClient:
    def __init__(self, checkpoints: Any = CHECKPOINTS) -> None:
        self.paths: list[str] = []
        self.checkpoints = checkpoints

    def _request(self, method: str, path: str, what: str) -> Any:
        self.paths.append(path)
        if path == "/jobs/j1":
            return JOB
        if path == "/jobs/j1/checkpoints":
            return self.checkpoints
        vertex = path.split("/")[4]
        return RATES[vertex] if "subtasks/metrics" in path else PRESSURE[vertex]


def test_sources_give_records_in_sinks_records_out_and_the_worst_backpressure() -> None:
    client = FakeClient()
    metrics = job_metrics(client, "j1", now_seconds=1_004.5)  # type: ignore[arg-type]
    assert metrics["records_in_per_second"] == 41.5 and metrics["records_out_per_second"] == 40.25
    assert metrics["backpressure_ratio"] == 0.7
    assert metrics["last_checkpoint_age_seconds"] == 4.5
    assert (metrics["checkpoints_completed"], metrics["checkpoints_failed"]) == (12, 1)
    assert [v["name"] for v in metrics["vertices"]] == ["Source", "Sink"]
    # A bounded number of requests: the job, two per vertex, the checkpoints.
    assert len(client.paths) == 1 + 2 * 2 + 1


def test_no_completed_checkpoint_is_none_not_zero() -> None:
    metrics = job_metrics(FakeClient({"counts": {"completed": 0}, "latest": {}}), "j1", 5.0)  # type: ignore[arg-type]
    assert metrics["last_checkpoint_age_seconds"] is None


def test_an_unreadable_cluster_is_its_error() -> None:
    class Down(FakeClient):
        def _request(self, method: str, path: str, what: str) -> Any:
            raise StreamtError(Codes.E406_CONNECTION_REFUSED, "down")

    with pytest.raises(StreamtError) as raised:
        job_metrics(Down(), "j1", 0.0)  # type: ignore[arg-type]
    assert raised.value.diagnostics[0].code.code == "E406_CONNECTION_REFUSED"
