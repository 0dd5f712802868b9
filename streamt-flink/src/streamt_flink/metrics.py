"""``observe`` for Flink jobs: state, records per second, backpressure and checkpoint age.

Per running job: ``GET /jobs/<jid>`` (vertices and the plan's edges), per vertex
``GET /jobs/<jid>/vertices/<vid>/backpressure`` and
``GET /jobs/<jid>/vertices/<vid>/subtasks/metrics?get=numRecordsInPerSecond,numRecordsOutPerSecond&agg=sum``,
and ``GET /jobs/<jid>/checkpoints``; the job ids come from the observer's one ``/jobs/overview``.
Records in per second are what the source vertices emit, records out what the sink vertices take in:
a job's own throughput, independent of how many operators it chains. Backpressure is the highest
ratio of any vertex (Flink samples it on request, so a first read may report 0 while it samples).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import Artifact

from streamt_flink.planning import KINDS, FlinkJobObserver, rest_client
from streamt_flink.rest import FlinkRestClient

RATES = "numRecordsInPerSecond,numRecordsOutPerSecond"


@attrs.define
class FlinkJobRuntimeReader:
    runtime: Any
    kinds = KINDS
    clock: Any = time.time

    def read(self, artifacts: Sequence[Artifact]) -> dict[str, dict[str, Any]]:
        states = FlinkJobObserver(self.runtime).runtime_status(artifacts)
        out: dict[str, dict[str, Any]] = {}
        for artifact in artifacts:
            status = states.get(artifact.identity)
            if status is None:
                out[artifact.identity] = {"state": "MISSING", "healthy": False}
                continue
            row = {k: v for k, v in status.items() if k in ("state", "healthy", "job_id", "cause", "reason")}
            if status["state"] == "RUNNING":
                row.update(job_metrics(rest_client(self.runtime, artifact), status["job_id"], self.clock()))
            out[artifact.identity] = row
        return out


def _get(client: FlinkRestClient, path: str, what: str) -> Any:
    # The client's one request path: bounded timeouts, and E406 for anything unreadable.
    return client._request("GET", path, what)


def job_metrics(client: FlinkRestClient, job_id: str, now_seconds: float) -> dict[str, Any]:
    job = _get(client, f"/jobs/{job_id}", "read a job")
    vertices = [v for v in job.get("vertices") or [] if isinstance(v, dict)]
    nodes = [n for n in (job.get("plan") or {}).get("nodes") or [] if isinstance(n, dict)]
    fed = {str(i.get("id")) for n in nodes for i in n.get("inputs") or [] if isinstance(i, dict)}
    has_input = {str(n.get("id")) for n in nodes if n.get("inputs")}
    rows = []
    for vertex in vertices:
        vid = str(vertex.get("id"))
        base = f"/jobs/{job_id}/vertices/{vid}"
        rates = _rates(_get(client, f"{base}/subtasks/metrics?get={RATES}&agg=sum", "read rates"))
        pressure = _get(client, f"{base}/backpressure", "read backpressure")
        ratios = [float(s.get("ratio") or 0) for s in pressure.get("subtasks") or [] if isinstance(s, dict)]
        rows.append(
            {
                "name": str(vertex.get("name")),
                "parallelism": vertex.get("parallelism"),
                "records_in_per_second": rates.get("numRecordsInPerSecond", 0.0),
                "records_out_per_second": rates.get("numRecordsOutPerSecond", 0.0),
                "backpressure_ratio": max(ratios, default=0.0),
                "backpressure_level": pressure.get("backpressureLevel"),
                "source": vid not in has_input,
                "sink": vid not in fed,
            }
        )
    checkpoints = _get(client, f"/jobs/{job_id}/checkpoints", "read checkpoints")
    completed = ((checkpoints.get("latest") or {}).get("completed") or {}) if isinstance(checkpoints, dict) else {}
    finished = completed.get("latest_ack_timestamp") or completed.get("end_time")
    counts = checkpoints.get("counts") or {} if isinstance(checkpoints, dict) else {}
    return {
        "records_in_per_second": round(sum(r["records_out_per_second"] for r in rows if r["source"]), 3),
        "records_out_per_second": round(sum(r["records_in_per_second"] for r in rows if r["sink"]), 3),
        "backpressure_ratio": max((r["backpressure_ratio"] for r in rows), default=0.0),
        "last_checkpoint_age_seconds": round(now_seconds - finished / 1000, 1) if finished else None,
        "checkpoints_completed": counts.get("completed"),
        "checkpoints_failed": counts.get("failed"),
        "vertices": [{k: v for k, v in r.items() if k not in ("source", "sink")} for r in rows],
    }


def _rates(body: Any) -> dict[str, float]:
    entries = body if isinstance(body, list) else []
    return {str(e.get("id")): round(float(e.get("sum") or 0), 3) for e in entries if isinstance(e, dict)}
